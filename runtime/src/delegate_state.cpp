#include "delegate_state.h"

#include <cstring>
#include <new>

#include "error_log.h"

namespace executorch_nnapi {

using executorch::runtime::Error;

namespace {

// Slots start on this boundary (NNAPI's preferred alignment for memory
// arguments, and every element size's multiple).
constexpr size_t kSlotAlignment = 64;

size_t aligned(size_t n) {
  return (n + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
}

}  // namespace

Error DelegateState::create(std::shared_ptr<const NnapiApi> api,
                            const LoadedBlob& blob,
                            std::unique_ptr<DelegateState>* out) {
  out->reset();
  if (blob.states().empty()) {
    return Error::Ok;
  }
  std::unique_ptr<DelegateState> state(new (std::nothrow) DelegateState());
  if (state == nullptr) {
    NNAPI_LOG_ERROR("out of memory creating the delegate's state");
    return Error::MemoryAllocationFailed;
  }
  state->api_ = api;
  size_t total = 0;
  for (const StateInfo& info : blob.states()) {
    Slots slots{info.input_index, info.output_index, info.bytes, {0, 0}};
    for (size_t& offset : slots.offset) {
      offset = total;
      total += aligned(info.bytes);
    }
    state->slots_.push_back(slots);
  }
  Error err = SharedRegion::create(std::move(api), total,
                                   "executorch_nnapi_state", &state->region_);
  if (err != Error::Ok) {
    return err;
  }
  // The region starts zeroed: only non-zero initial values are written.
  for (size_t k = 0; k < blob.states().size(); ++k) {
    const StateInfo& info = blob.states()[k];
    if (info.initial != nullptr) {
      std::memcpy(state->region_->data() + state->slots_[k].offset[0],
                  info.initial, info.bytes);
    }
  }
  *out = std::move(state);
  return Error::Ok;
}

Error DelegateState::bind(ANeuralNetworksExecution* execution) const {
  const NnapiApi& nn = *api_;
  for (const Slots& s : slots_) {
    int rc = nn.ANeuralNetworksExecution_setInputFromMemory(
        execution, static_cast<int32_t>(s.input_index), nullptr,
        region_->memory(), s.offset[current_], s.bytes);
    if (rc == ANEURALNETWORKS_NO_ERROR) {
      rc = nn.ANeuralNetworksExecution_setOutputFromMemory(
          execution, static_cast<int32_t>(s.output_index), nullptr,
          region_->memory(), s.offset[current_ ^ 1], s.bytes);
    }
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("binding the delegate's state (model input %u, output "
                      "%u, %zu bytes) to NNAPI memory failed: %s",
                      s.input_index, s.output_index, s.bytes,
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
  }
  return Error::Ok;
}

size_t DelegateState::bytes_bound() const {
  size_t total = 0;
  for (const Slots& s : slots_) {
    total += 2 * s.bytes;
  }
  return total;
}

}  // namespace executorch_nnapi
