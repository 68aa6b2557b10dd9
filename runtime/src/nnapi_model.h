// One NNAPI model + compilation built from a LoadedBlob for concrete sizes
// (the evaluated shape expressions), and the execution of it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>

#include "blob_reader.h"
#include "constant_memory.h"
#include "delegate_state.h"
#include "nnapi_api.h"
#include "runtime_options.h"

namespace executorch_nnapi {

/// What a traced execution asks of CompiledModel::execute beyond the outputs
/// (docs/debugging.md).
struct ExecutionProbe {
  /// In: one buffer per extra (debug) output, extra_output_bytes() long.
  std::vector<void*> extra_buffers;
  /// In: ask NNAPI to time the execution (setMeasureTiming; API 29 and
  /// exactly one device, else skipped).
  bool measure_timing = false;
  /// Out: nanoseconds per operation (the host shim's extension only;
  /// empty on a device).
  std::vector<uint64_t> operation_ns;
  /// Out: NNAPI's getDuration on hardware / in driver; UINT64_MAX unknown.
  uint64_t on_hardware_ns = UINT64_MAX;
  uint64_t in_driver_ns = UINT64_MAX;
};

/// A finished NNAPI compilation for one set of concrete sizes. Owns the
/// model and compilation (freed in the destructor with the function table
/// they were created with).
class CompiledModel {
 public:
  ~CompiledModel();
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;

  /// Builds and compiles the blob's model for the expression values
  /// `values` (ShapeProgram::evaluate's output) with `options` (already
  /// trimmed to the device's feature level); `model_digest` names the model
  /// in NNAPI's compilation cache and is only read when options.cache_dir is
  /// set. Constants `constants` finds in NNAPI memory are given from it
  /// (null: every constant by pointer); it must outlive the model. Every
  /// NNAPI call is checked; a failure is logged (call, operation, result
  /// code, driver message) and returned as an Error, with nothing leaked.
  static executorch::runtime::Error build(
      std::shared_ptr<const NnapiApi> api, const LoadedBlob& blob,
      const std::vector<int64_t>& values, const RuntimeOptions& options,
      const Digest& model_digest, const ConstantMemory* constants,
      std::unique_ptr<CompiledModel>* out,
      const std::vector<uint32_t>& extra_outputs = {});

  /// Operands made model outputs after the blob's own (a debug variant whose
  /// outputs are intermediates), their dims and byte sizes for these sizes.
  const std::vector<uint32_t>& extra_outputs() const { return extra_outputs_; }
  const std::vector<std::vector<uint32_t>>& extra_output_dims() const {
    return extra_output_dims_;
  }
  const std::vector<size_t>& extra_output_bytes() const {
    return extra_output_bytes_;
  }

  /// Nanoseconds Compilation_finish took for this model.
  uint64_t compilation_ns() const { return compilation_ns_; }

  /// Dimensions of a delegate input/output argument's operand.
  const std::vector<uint32_t>& input_dims(size_t arg) const {
    return input_dims_[arg];
  }
  const std::vector<uint32_t>& output_dims(size_t arg) const {
    return output_dims_[arg];
  }
  /// The ExecuTorch sizes of a delegate input/output argument's tensor
  /// (LoadedBlob::tensor_dims): what inputs must have, outputs are resized to.
  const std::vector<int64_t>& input_tensor_dims(size_t arg) const {
    return input_tensor_dims_[arg];
  }
  const std::vector<int64_t>& output_tensor_dims(size_t arg) const {
    return output_tensor_dims_[arg];
  }
  /// Exact byte sizes of those operands.
  size_t input_bytes(size_t arg) const { return input_bytes_[arg]; }
  size_t output_bytes(size_t arg) const { return output_bytes_[arg]; }

  /// Evaluates the blob's RUN_TIME_EXPRESSIONS operands for `values` (this
  /// execution's evaluated shape expressions); the next execute gives them
  /// to NNAPI as the inputs after the model's own. Fails (logged) when a
  /// value does not fit int32.
  executorch::runtime::Error set_run_time_values(
      const LoadedBlob& blob, const std::vector<int64_t>& values);

  /// Bytes of the RUN_TIME_EXPRESSIONS values the next execute binds.
  size_t run_time_bytes() const;

  /// Runs one execution: binds the given buffers (one per tensor argument,
  /// null for ignored arguments; sizes must equal input_bytes/output_bytes)
  /// and the delegate's `state` (null when it has none), and waits for the
  /// result (through the burst when options.use_burst). Not thread-safe: the
  /// backend calls it under the delegate's mutex.
  executorch::runtime::Error execute(const LoadedBlob& blob,
                                     const std::vector<const void*>& inputs,
                                     const std::vector<void*>& outputs,
                                     const DelegateState* state,
                                     ExecutionProbe* probe = nullptr);

 private:
  CompiledModel() = default;

  // The stages of build, in order; each logs its failure. Each model (the
  // referenced ones first, then the main one) is created, gets the operands
  // and operations of its Blob table `tables`, and is finished.
  executorch::runtime::Error build_model(const LoadedBlob& blob,
                                         const blob::Blob* tables,
                                         const std::vector<int64_t>& values,
                                         ANeuralNetworksModel** model);
  executorch::runtime::Error create_model(ANeuralNetworksModel** model);
  executorch::runtime::Error add_operands(ANeuralNetworksModel* model,
                                          const LoadedBlob& blob,
                                          const blob::Blob* tables,
                                          const std::vector<int64_t>& values);
  executorch::runtime::Error add_operand(ANeuralNetworksModel* model,
                                         const LoadedBlob& blob,
                                         const blob::Blob* tables, uint32_t i,
                                         const std::vector<uint32_t>& dims);
  executorch::runtime::Error set_per_channel_params(
      ANeuralNetworksModel* model, const LoadedBlob& blob,
      const blob::Blob* tables, uint32_t i, const std::vector<uint32_t>& dims);
  executorch::runtime::Error set_operand_value(
      ANeuralNetworksModel* model, const LoadedBlob& blob,
      const blob::Blob* tables, uint32_t i, const std::vector<uint32_t>& dims,
      const std::vector<int64_t>& values);
  executorch::runtime::Error set_constant(ANeuralNetworksModel* model,
                                          const LoadedBlob& blob,
                                          const blob::Blob* tables, uint32_t i,
                                          const void* value, size_t value_size);
  executorch::runtime::Error set_referenced_model(ANeuralNetworksModel* model,
                                                  const LoadedBlob& blob,
                                                  const blob::Blob* tables,
                                                  uint32_t i);
  executorch::runtime::Error evaluate_value_expressions(
      const LoadedBlob& blob, const blob::Blob* tables, uint32_t i,
      const std::vector<int64_t>& values, const int32_t** value);
  executorch::runtime::Error add_operations(ANeuralNetworksModel* model,
                                            const blob::Blob* tables);
  executorch::runtime::Error finish_model(ANeuralNetworksModel* model,
                                          const LoadedBlob& blob,
                                          const blob::Blob* tables,
                                          bool main_model);
  executorch::runtime::Error create_compilation();
  executorch::runtime::Error select_devices(
      std::vector<const ANeuralNetworksDevice*>* devices);
  executorch::runtime::Error configure_compilation(
      const Digest& model_digest, const std::vector<int64_t>& values);
  executorch::runtime::Error compile(const Digest& model_digest,
                                     const std::vector<int64_t>& values);
  executorch::runtime::Error run(ANeuralNetworksExecution* execution,
                                 ANeuralNetworksEvent** event);
  executorch::runtime::Error bind_extra_outputs(
      ANeuralNetworksExecution* execution, size_t first_index,
      const ExecutionProbe& probe);
  void read_timing(ANeuralNetworksExecution* execution,
                   ExecutionProbe* probe) const;
  executorch::runtime::Error size_arguments(const LoadedBlob& blob,
                                            const std::vector<int64_t>& values);

  std::shared_ptr<const NnapiApi> api_;
  RuntimeOptions options_;
  const ConstantMemory* constants_ = nullptr;
  ANeuralNetworksModel* model_ = nullptr;
  // The referenced models (IF / WHILE bodies), by subgraph index; they must
  // outlive model_, which refers to them, and are freed after it.
  std::vector<ANeuralNetworksModel*> subgraph_models_;
  ANeuralNetworksCompilation* compilation_ = nullptr;
  // Created at the first execute when options_.use_burst; freed before the
  // compilation it belongs to.
  ANeuralNetworksBurst* burst_ = nullptr;
  // Number of devices the compilation was created for (0: NNAPI chose).
  size_t num_devices_ = 0;
  uint64_t compilation_ns_ = 0;
  // Evaluated SHAPE_EXPRESSIONS values; NNAPI may reference (not copy) them,
  // so they live as long as the model.
  std::vector<int32_t> shape_values_;
  // Where the next operand's SHAPE_EXPRESSIONS values go in shape_values_.
  size_t next_shape_value_ = 0;
  std::vector<std::vector<uint32_t>> input_dims_;
  std::vector<std::vector<uint32_t>> output_dims_;
  std::vector<std::vector<int64_t>> input_tensor_dims_;
  std::vector<std::vector<int64_t>> output_tensor_dims_;
  std::vector<size_t> input_bytes_;
  std::vector<size_t> output_bytes_;
  std::vector<uint32_t> extra_outputs_;
  // This execution's RUN_TIME_EXPRESSIONS values, by run-time operand.
  std::vector<std::vector<int32_t>> run_time_inputs_;
  std::vector<std::vector<uint32_t>> extra_output_dims_;
  std::vector<size_t> extra_output_bytes_;
};

}  // namespace executorch_nnapi
