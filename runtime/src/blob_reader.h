// Init-time reading and validation of the delegate blob (nnapi_blob.fbs).
//
// Everything the later stages index into is checked here once, so building a
// model and executing it never read out of bounds, whatever bytes the .pte
// carried: a bad blob is refused at load with a message, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>

#include "nnapi_blob_generated.h"
#include "shape_program.h"

namespace executorch_nnapi {

/// Highest blob schema_version this runtime reads.
/// (2: arguments may bind a tensor at a lower rank, Argument.merged_dims;
/// 3: referenced models for IF / WHILE, Blob.subgraphs;
/// 4: RUN_TIME_EXPRESSIONS operands, filled at every execution;
/// 5: delegate state, VALUES arguments, PUSH_INPUT_VALUE, assertions.)
constexpr uint32_t kSupportedSchemaVersion = 5;

/// What the runtime needs to know about one operand, derived at init.
struct OperandInfo {
  int32_t type = 0;
  /// Bytes per element of the NNAPI type.
  uint32_t element_size = 0;
  bool is_tensor = false;
  /// True when some dimension is given by a shape expression.
  bool has_dynamic_dims = false;
  /// Constant bytes for INLINE and NAMED_DATA operands (null otherwise).
  const void* value = nullptr;
  size_t value_size = 0;
};

/// How one delegate argument maps onto the model.
struct ArgumentInfo {
  /// False for IGNORED, INT and VALUES arguments.
  bool is_tensor = false;
  /// True for VALUES arguments: a tensor bound to no operand whose sizes (and
  /// elements) only the shape program reads; tensor_dims gives its sizes.
  bool is_values = false;
  /// Elements the shape program may read from the tensor (PUSH_INPUT_VALUE):
  /// its static element count for an integer tensor, else 0.
  size_t value_count = 0;
  /// True for INT arguments: an integer (SymInt) the shape program reads as
  /// the only size of a one-dimensional input.
  bool is_int = false;
  uint32_t operand = 0;
  /// c10::ScalarType code the ExecuTorch tensor must have.
  int8_t scalar_type = 0;
  /// True for an int64 ExecuTorch tensor bound to a TENSOR_INT32 operand
  /// (NNAPI has no 64-bit integers): the backend narrows it (range-checked)
  /// while copying it in, or widens it while copying it out.
  bool int64_as_int32 = false;
  /// Position in the model's input (or output) list: the index passed to
  /// ANeuralNetworksExecution_setInput/setOutput.
  uint32_t io_index = 0;
  /// NNAPI dimension i is dimension dim_order[i] of the ExecuTorch tensor;
  /// empty when the orders are the same (no permutation at the boundary).
  std::vector<uint8_t> dim_order;
  /// Non-empty for a tensor bound to an operand of lower rank over the same
  /// bytes (a 5-D tensor as a 4-D operand): operand dimension i spans
  /// merged_dims[i] consecutive tensor dimensions (0: an added unit one).
  std::vector<uint8_t> merged_dims;
  /// With merged_dims: the tensor's sizes, static ones in tensor_dims and
  /// dynamic ones as the shape expression tensor_dim_exprs[d] (-1: static).
  std::vector<int64_t> tensor_dims;
  std::vector<int32_t> tensor_dim_exprs;
};

/// A mutated buffer the delegate keeps (Blob.states), validated at load.
struct StateInfo {
  uint32_t input_operand = 0;
  uint32_t output_operand = 0;
  /// Positions in the model's input and output lists.
  uint32_t input_index = 0;
  uint32_t output_index = 0;
  /// Exact byte size of the (static) operand.
  size_t bytes = 0;
  /// The initial value (named data kept by the blob), or null for zeros.
  const void* initial = nullptr;
  std::string name;
};

/// A validated blob plus everything it refers to, kept alive together.
class LoadedBlob {
 public:
  LoadedBlob() = default;
  LoadedBlob(const LoadedBlob&) = delete;
  LoadedBlob& operator=(const LoadedBlob&) = delete;

  /// The FlatBuffer root (points into the processed buffer or our copy).
  const blob::Blob* root() const { return root_; }
  const std::vector<OperandInfo>& operands() const { return operands_; }
  const std::vector<ArgumentInfo>& inputs() const { return inputs_; }
  const std::vector<ArgumentInfo>& outputs() const { return outputs_; }
  const ShapeProgram& shape_program() const { return shape_program_; }

  /// The models IF / WHILE operations refer to (Blob.subgraphs): each a Blob
  /// table of operands, operations and model inputs/outputs, in the order to
  /// build them (every model after the ones it refers to).
  const blob::Blob* subgraph(uint32_t k) const {
    return root_->subgraphs()->Get(k);
  }
  const std::vector<uint32_t>& subgraph_build_order() const {
    return subgraph_order_;
  }
  /// The operands' info of `model`: root() or one of the subgraphs.
  const std::vector<OperandInfo>& operands_of(const blob::Blob* model) const;

  /// A short description of operand `index` of `model` (null: the main
  /// model) for messages: "operand 3 (conv1_weight)" when the blob carries a
  /// debug name, "referenced model 1 operand 3 (...)" in a referenced model.
  std::string describe_operand(uint32_t index,
                               const blob::Blob* model = nullptr) const;

  /// The dimensions of operand `index` (of `model`, null: the main one) for
  /// the evaluated shape expressions `values`. Fails (message in *error) when
  /// a dynamic dimension evaluates to something NNAPI cannot represent (< 1
  /// or > UINT32_MAX).
  bool operand_dims(uint32_t index, const std::vector<int64_t>& values,
                    std::vector<uint32_t>* dims, std::string* error,
                    const blob::Blob* model = nullptr) const;

  /// The ExecuTorch sizes of tensor argument `arg` for the evaluated shape
  /// expressions `values`: its operand's dims in the tensor's dim order, or
  /// its own tensor_dims when merged. Fails like operand_dims.
  bool tensor_dims(const ArgumentInfo& arg, const std::vector<int64_t>& values,
                   std::vector<int64_t>* dims, std::string* error) const;

  /// Byte size of an operand with the given dims (element size x product).
  /// Returns false if it does not fit NNAPI's 32-bit size limit.
  bool byte_size(uint32_t index, const std::vector<uint32_t>& dims,
                 size_t* size, const blob::Blob* model = nullptr) const;

  /// The main model's RUN_TIME_EXPRESSIONS operands in operand order: NNAPI
  /// inputs after Blob.model_inputs (input model_inputs.size() + j is the
  /// j-th), filled at every execution.
  const std::vector<uint32_t>& run_time_operands() const {
    return run_time_operands_;
  }

  /// What a compiled model depends on among the evaluated expressions
  /// `values`: the same values with the expressions that only
  /// RUN_TIME_EXPRESSIONS operands use zeroed, so executions that differ only
  /// in those share one compiled model.
  std::vector<int64_t> compiled_model_key(
      const std::vector<int64_t>& values) const;

  /// The elements of RUN_TIME_EXPRESSIONS operand `index` for `values`; fails
  /// (message in *error) when one does not fit int32 or a dim is invalid.
  bool run_time_values(uint32_t index, const std::vector<int64_t>& values,
                       std::vector<int32_t>* out, std::string* error) const;

  /// The dims of each tensor input argument as exported (static dims and the
  /// export-time sizes of dynamic ones), for evaluating a program without
  /// symbols at init.
  InputDims exported_input_dims() const;

  /// The delegate's state: the mutated buffers it keeps across executions.
  const std::vector<StateInfo>& states() const { return states_; }
  /// Whether model input (`input`) or output `index` is a state's.
  bool is_state_io(bool input, uint32_t index) const;

 private:
  friend executorch::runtime::Error load_blob(
      executorch::runtime::FreeableBuffer* processed,
      const executorch::runtime::NamedDataMap* named_data,
      std::unique_ptr<LoadedBlob>* out);

  // The stages of load_blob that fill in members (stage 2 in
  // blob_integrity.cpp, 4 in operand_validation.cpp, 6b in
  // state_binding.cpp, 7 in
  // argument_binding.cpp); the others are free functions (load_stages.h).
  executorch::runtime::Error align_data(const uint8_t** data, size_t size);
  executorch::runtime::Error load_operands(
      const executorch::runtime::NamedDataMap* named_data);
  executorch::runtime::Error load_model_operands(
      const blob::Blob* model,
      const executorch::runtime::NamedDataMap* named_data,
      std::vector<OperandInfo>* infos);
  executorch::runtime::Error order_subgraphs();
  executorch::runtime::Error load_states(
      const executorch::runtime::NamedDataMap* named_data);
  executorch::runtime::Error load_initial_state(
      const blob::State* table,
      const executorch::runtime::NamedDataMap* named_data, StateInfo* info);
  executorch::runtime::Error load_arguments(std::vector<int>* input_ranks);
  // Stage 8 (run_time_values.cpp).
  void find_run_time_operands();

  // Owns an aligned copy when the processed buffer was not 16-byte aligned.
  std::unique_ptr<uint8_t[]> copy_storage_;
  const blob::Blob* root_ = nullptr;
  // Weights from the named data map; kept alive because NNAPI references
  // (does not copy) values larger than 128 bytes, and dynamic-shape models
  // are rebuilt from them at execute time.
  std::vector<executorch::runtime::FreeableBuffer> named_data_;
  std::vector<OperandInfo> operands_;
  // Per referenced model, its operands' info, and the order to build them in.
  std::vector<std::vector<OperandInfo>> subgraph_operands_;
  std::vector<uint32_t> subgraph_order_;
  std::vector<ArgumentInfo> inputs_;
  std::vector<ArgumentInfo> outputs_;
  ShapeProgram shape_program_;
  std::vector<uint32_t> run_time_operands_;
  // Per shape expression: whether a compiled model depends on its value.
  std::vector<bool> key_expressions_;
  std::vector<StateInfo> states_;
};

/// Validates the processed delegate data and returns the loaded blob in
/// *out. Checks, in order: size, file identifier, FlatBuffer verification,
/// schema version, CRC-32, then the semantic rules (indices in range, value
/// sizes, named data keys, argument bindings, the shape program). Logs the
/// reason and returns InvalidProgram (malformed or corrupted) or
/// DelegateInvalidCompatibility (a newer schema) on failure. `processed` is
/// not freed: its bytes stay referenced by the returned blob unless copied.
executorch::runtime::Error load_blob(
    executorch::runtime::FreeableBuffer* processed,
    const executorch::runtime::NamedDataMap* named_data,
    std::unique_ptr<LoadedBlob>* out);

/// CRC-32 with the zlib polynomial (same result as Python's zlib.crc32),
/// continuing from `crc` (0 to start).
uint32_t crc32_update(uint32_t crc, const uint8_t* data, size_t size);

}  // namespace executorch_nnapi
