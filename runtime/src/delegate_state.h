// The delegate's state (Blob.states: a language model's KV cache) held in
// NNAPI memory for as long as the delegate is loaded (docs/language_models.md).
//
// NNAPI forbids an execution's output to overlap its inputs, so each state
// has two slots in one shared memory region: every execution reads the
// state's value from one slot and writes its new value into the other, and
// the slots swap roles once the execution has succeeded. Nothing is copied
// by the runtime or ExecuTorch; a failed execution leaves the value as it was.
// Where NNAPI memory cannot be made (a library without the memory functions)
// the slots are ordinary memory bound by pointer: the same state, with the
// copies NNAPI makes of arguments given by pointer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <executorch/runtime/core/error.h>

#include "blob_reader.h"
#include "nnapi_api.h"
#include "nnapi_memory.h"

namespace executorch_nnapi {

class DelegateState {
 public:
  /// The blob's states in a new region, each slot holding its initial value.
  /// Null in *out (and Ok) when the blob has no state.
  static executorch::runtime::Error create(std::shared_ptr<const NnapiApi> api,
                                           const LoadedBlob& blob,
                                           std::unique_ptr<DelegateState>* out);

  /// Binds every state to `execution`: its value as model input, the other
  /// slot as model output. Logged on failure.
  executorch::runtime::Error bind(ANeuralNetworksExecution* execution) const;

  /// After a successful execution: the new values become the values.
  void commit() { current_ ^= 1; }

  /// Bytes of state bound per execution (inputs and outputs together).
  size_t bytes_bound() const;

  /// Whether the state is in NNAPI memory (else bound by pointer).
  bool in_nnapi_memory() const { return region_ != nullptr; }

  /// The current value of state `k` (in this process's memory).
  const uint8_t* value(size_t k) const {
    return data_ + slots_[k].offset[current_];
  }

 private:
  struct Slots {
    uint32_t input_index;
    uint32_t output_index;
    size_t bytes;
    size_t offset[2];
  };

  DelegateState() = default;
  executorch::runtime::Error allocate(size_t bytes);

  std::shared_ptr<const NnapiApi> api_;
  // The slots: in shared memory NNAPI maps, or (without it) in `heap_`.
  std::unique_ptr<SharedRegion> region_;
  std::unique_ptr<uint8_t[]> heap_;
  uint8_t* data_ = nullptr;
  std::vector<Slots> slots_;
  // Which of each state's two slots holds its value.
  int current_ = 0;
};

}  // namespace executorch_nnapi
