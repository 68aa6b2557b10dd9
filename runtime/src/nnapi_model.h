// One NNAPI model + compilation built from a LoadedBlob for concrete sizes
// (the evaluated shape expressions), and the execution of it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>

#include "blob_reader.h"
#include "nnapi_api.h"

namespace executorch_nnapi {

/// A finished NNAPI compilation for one set of concrete sizes. Owns the
/// model and compilation (freed in the destructor with the function table
/// they were created with).
class CompiledModel {
 public:
  ~CompiledModel();
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;

  /// Builds and compiles the blob's model for the expression values
  /// `values` (ShapeProgram::evaluate's output). Every NNAPI call is checked;
  /// a failure is logged (call, operation, result code, driver message) and
  /// returned as an Error, with nothing leaked.
  static executorch::runtime::Error build(
      std::shared_ptr<const NnapiApi> api, const LoadedBlob& blob,
      const std::vector<int64_t>& values, std::unique_ptr<CompiledModel>* out);

  /// Dimensions of a delegate input/output argument's operand.
  const std::vector<uint32_t>& input_dims(size_t arg) const {
    return input_dims_[arg];
  }
  const std::vector<uint32_t>& output_dims(size_t arg) const {
    return output_dims_[arg];
  }
  /// Exact byte sizes of those operands.
  size_t input_bytes(size_t arg) const { return input_bytes_[arg]; }
  size_t output_bytes(size_t arg) const { return output_bytes_[arg]; }

  /// Runs one execution: binds the given buffers (one per tensor argument,
  /// null for ignored arguments; sizes must equal input_bytes/output_bytes)
  /// and waits for the result.
  executorch::runtime::Error execute(const LoadedBlob& blob,
                                     const std::vector<const void*>& inputs,
                                     const std::vector<void*>& outputs) const;

 private:
  CompiledModel() = default;

  // The stages of build, in order; each logs its failure.
  executorch::runtime::Error create_model();
  executorch::runtime::Error add_operands(const LoadedBlob& blob,
                                          const std::vector<int64_t>& values);
  executorch::runtime::Error add_operand(const LoadedBlob& blob, uint32_t i,
                                         const std::vector<uint32_t>& dims);
  executorch::runtime::Error set_per_channel_params(
      const LoadedBlob& blob, uint32_t i, const std::vector<uint32_t>& dims);
  executorch::runtime::Error set_operand_value(
      const LoadedBlob& blob, uint32_t i, const std::vector<uint32_t>& dims,
      const std::vector<int64_t>& values, size_t* next_shape_value);
  executorch::runtime::Error evaluate_value_expressions(
      const LoadedBlob& blob, uint32_t i, const std::vector<int64_t>& values,
      size_t* next_shape_value, const int32_t** value);
  executorch::runtime::Error add_operations(const blob::Blob* root);
  executorch::runtime::Error finish_model(const blob::Blob* root);
  executorch::runtime::Error compile();
  executorch::runtime::Error size_arguments(const LoadedBlob& blob,
                                            const std::vector<int64_t>& values);

  std::shared_ptr<const NnapiApi> api_;
  ANeuralNetworksModel* model_ = nullptr;
  ANeuralNetworksCompilation* compilation_ = nullptr;
  // Evaluated SHAPE_EXPRESSIONS values; NNAPI may reference (not copy) them,
  // so they live as long as the model.
  std::vector<int32_t> shape_values_;
  std::vector<std::vector<uint32_t>> input_dims_;
  std::vector<std::vector<uint32_t>> output_dims_;
  std::vector<size_t> input_bytes_;
  std::vector<size_t> output_bytes_;
};

}  // namespace executorch_nnapi
