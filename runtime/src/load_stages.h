// The stages of load_blob (blob_reader.cpp) that are free functions, and
// what the files holding the stages share. Stages 2, 4 and 7 fill in a
// LoadedBlob, so they are its members (blob_reader.h).
//
//   1, 2, 3  blob_integrity.cpp      envelope, alignment, FlatBuffer, version, CRC
//   4, 5, 6  operand_validation.cpp  operands; operations and model inputs/outputs
//   6b       state_binding.cpp       the delegate's state
//   7        argument_binding.cpp    the delegate's arguments
//   8        run_time_values.cpp     values filled at every execution
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>

#include "nnapi_blob_generated.h"

namespace executorch_nnapi {

/// Logs "NnapiBackend: cannot load the delegate blob: <reason>" and returns
/// `code`.
executorch::runtime::Error reject(executorch::runtime::Error code,
                                  const std::string& reason);

/// The size of an optional FlatBuffer vector (0 when absent).
template <typename T>
flatbuffers::uoffset_t vsize(const flatbuffers::Vector<T>* v) {
  return v != nullptr ? v->size() : 0;
}

/// *size = element_size x the product of `dims`; false if that exceeds
/// NNAPI's 32-bit size limit.
bool checked_byte_size(uint32_t element_size, const uint32_t* dims,
                       size_t rank, size_t* size);

/// Stage 1: the processed data exists and looks like our blob; its bytes in
/// *data_out, *size_out.
executorch::runtime::Error check_envelope(
    executorch::runtime::FreeableBuffer* processed, const uint8_t** data_out,
    size_t* size_out);

/// The stored and the recomputed CRC-32 of a verified blob. The CRC field is
/// located through the root table's vtable; its own four bytes count as
/// zero. Returns false when the blob has no CRC field. (Also used by the
/// fuzz target, runtime/checks/blob_fuzzer.cpp, to re-seal mutated blobs.)
bool blob_crc(const uint8_t* data, size_t size, uint32_t* stored,
              uint32_t* computed);

/// Element size and tensor-ness of an NNAPI operand type; false if the
/// runtime cannot handle the type.
bool nnapi_type_info(int32_t type, uint32_t* element_size, bool* is_tensor);

/// Stage 3: structure (FlatBuffer verification), version, integrity (CRC);
/// the root in *root.
executorch::runtime::Error verify_blob(const uint8_t* data, size_t size,
                                       const blob::Blob** root);

class LoadedBlob;
struct OperandInfo;

/// The number of shape expressions of the blob whose root is `root` (0
/// without a shape program).
uint32_t num_shape_expressions(const blob::Blob* root);

/// Part of stage 4: every value expression of operand i of `model` is one of
/// the blob's shape expressions.
executorch::runtime::Error check_value_expression_indices(
    const LoadedBlob& loaded, const blob::Blob* model, uint32_t i);

/// Part of stage 4: a RUN_TIME_EXPRESSIONS operand (operand i of `model`) is
/// a 1-D TENSOR_INT32 of the main model whose expressions exist.
executorch::runtime::Error check_run_time_expressions(
    const LoadedBlob& loaded, const blob::Blob* model, uint32_t i,
    const OperandInfo& info);

/// Stage 5: every operation refers to existing operands.
executorch::runtime::Error check_operations(const blob::Blob* root);

/// Stage 6: the model has inputs and outputs, all existing operands.
executorch::runtime::Error check_model_io(const blob::Blob* root);

}  // namespace executorch_nnapi
