// What building NNAPI models needs in both nnapi_model.cpp (the build, the
// compilation and the execution) and model_building.cpp (each model's
// operands, operations and inputs / outputs, referenced models included).
#pragma once

#include <cstdint>
#include <string>

#include <executorch/runtime/core/error.h>

#include "nnapi_blob_generated.h"
#include "nnapi_c_api.h"

namespace executorch_nnapi {

/// ExecuTorch error for a failed NNAPI call made while building/compiling.
inline executorch::runtime::Error build_error(int code) {
  return code == ANEURALNETWORKS_OUT_OF_MEMORY
             ? executorch::runtime::Error::MemoryAllocationFailed
             : executorch::runtime::Error::DelegateInvalidCompatibility;
}

/// A non-null pointer for empty index lists: some NNAPI versions answer
/// UNEXPECTED_NULL for a null array even when its count is 0.
inline const uint32_t* list_data(const flatbuffers::Vector<uint32_t>* v) {
  static const uint32_t kEmpty = 0;
  return (v != nullptr && v->size() > 0) ? v->data() : &kEmpty;
}

inline uint32_t list_size(const flatbuffers::Vector<uint32_t>* v) {
  return v != nullptr ? v->size() : 0;
}

}  // namespace executorch_nnapi
