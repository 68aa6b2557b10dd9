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
  const Error err = state->allocate(total);
  if (err != Error::Ok) {
    return err;
  }
  // The slots start zeroed: only non-zero initial values are written.
  for (size_t k = 0; k < blob.states().size(); ++k) {
    const StateInfo& info = blob.states()[k];
    if (info.initial != nullptr) {
      std::memcpy(state->data_ + state->slots_[k].offset[0], info.initial,
                  info.bytes);
    }
  }
  *out = std::move(state);
  return Error::Ok;
}

// `bytes` of zeroed slots: shared memory NNAPI maps when this NNAPI has the
// memory functions and can make it, else ordinary memory (logged once).
Error DelegateState::allocate(size_t bytes) {
  const NnapiApi& nn = *api_;
  if (nn.ANeuralNetworksMemory_createFromFd != nullptr &&
      nn.ANeuralNetworksExecution_setInputFromMemory != nullptr &&
      nn.ANeuralNetworksExecution_setOutputFromMemory != nullptr &&
      SharedRegion::create(api_, bytes, "executorch_nnapi_state", &region_) ==
          Error::Ok) {
    data_ = region_->data();
    return Error::Ok;
  }
  region_.reset();
  NNAPI_LOG_WARNING("the delegate's state is kept in ordinary memory and "
                    "given to NNAPI by pointer: this NNAPI (%s) cannot map "
                    "shared memory",
                    api_->library_path.c_str());
  heap_.reset(new (std::nothrow) uint8_t[bytes]());
  if (heap_ == nullptr) {
    NNAPI_LOG_ERROR("out of memory allocating %zu bytes of delegate state",
                    bytes);
    return Error::MemoryAllocationFailed;
  }
  data_ = heap_.get();
  return Error::Ok;
}

Error DelegateState::bind(ANeuralNetworksExecution* execution) const {
  const NnapiApi& nn = *api_;
  for (const Slots& s : slots_) {
    const size_t in = s.offset[current_];
    const size_t out = s.offset[current_ ^ 1];
    const auto input = static_cast<int32_t>(s.input_index);
    const auto output = static_cast<int32_t>(s.output_index);
    int rc = region_ != nullptr
                 ? nn.ANeuralNetworksExecution_setInputFromMemory(
                       execution, input, nullptr, region_->memory(), in, s.bytes)
                 : nn.ANeuralNetworksExecution_setInput(execution, input, nullptr,
                                                        data_ + in, s.bytes);
    if (rc == ANEURALNETWORKS_NO_ERROR) {
      rc = region_ != nullptr
               ? nn.ANeuralNetworksExecution_setOutputFromMemory(
                     execution, output, nullptr, region_->memory(), out, s.bytes)
               : nn.ANeuralNetworksExecution_setOutput(execution, output, nullptr,
                                                       data_ + out, s.bytes);
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
