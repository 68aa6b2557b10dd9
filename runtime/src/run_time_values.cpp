// RUN_TIME_EXPRESSIONS operands: int32 values the shape program computes at
// every execution and the runtime gives NNAPI as extra model inputs, so that a
// value which changes from call to call without changing any size (indices at
// a KV cache's write position) does not make a new compiled model.
#include <cinttypes>
#include <limits>
#include <string>
#include <vector>

#include "blob_reader.h"
#include "error_log.h"
#include "load_stages.h"
#include "nnapi_c_api.h"

namespace executorch_nnapi {

using executorch::runtime::Error;

namespace {

// 2^24 int32s (64 MiB): positions of a sequence, never near this.
constexpr uint32_t kMaxRunTimeValues = 1u << 24;

// Marks every expression an operand's dims or constant values use.
void mark_size_expressions(const blob::Blob* model, std::vector<bool>* used) {
  for (uint32_t i = 0; i < vsize(model->operands()); ++i) {
    const blob::Operand* op = model->operands()->Get(i);
    for (uint32_t d = 0; d < vsize(op->dim_exprs()); ++d) {
      const int32_t e = op->dim_exprs()->Get(d);
      if (e >= 0) {
        (*used)[static_cast<size_t>(e)] = true;
      }
    }
    if (op->source() == blob::ValueSource::SHAPE_EXPRESSIONS) {
      for (uint32_t k = 0; k < vsize(op->value_exprs()); ++k) {
        (*used)[static_cast<size_t>(op->value_exprs()->Get(k))] = true;
      }
    }
  }
}

}  // namespace

Error check_run_time_expressions(const LoadedBlob& loaded,
                                 const blob::Blob* model, uint32_t i,
                                 const OperandInfo& info) {
  const blob::Operand* op = model->operands()->Get(i);
  const std::string name = loaded.describe_operand(i, model);
  if (model != loaded.root()) {
    return reject(Error::InvalidProgram,
                  name + " has RUN_TIME_EXPRESSIONS values, which only the "
                         "main model may have");
  }
  if (info.type != ANEURALNETWORKS_TENSOR_INT32 || vsize(op->dims()) != 1) {
    return reject(Error::InvalidProgram,
                  format_message("%s has RUN_TIME_EXPRESSIONS values but type "
                                 "%d and rank %u (must be a 1-D TENSOR_INT32)",
                                 name.c_str(), info.type, vsize(op->dims())));
  }
  const uint32_t count = vsize(op->value_exprs());
  const bool dynamic = vsize(op->dim_exprs()) == 1 && op->dim_exprs()->Get(0) >= 0;
  if (op->arange_step() != 0 ? count != 1
                             : (dynamic || count != op->dims()->Get(0))) {
    return reject(Error::InvalidProgram,
                  format_message("%s has %u run-time value expressions, which "
                                 "its shape and arange_step %d do not allow",
                                 name.c_str(), count, op->arange_step()));
  }
  return check_value_expression_indices(loaded, model, i);
}

// Stage 8: which operands are filled at every execution, and which
// expressions a compiled model depends on (those of every dim and every
// constant value, in any model).
void LoadedBlob::find_run_time_operands() {
  run_time_operands_.clear();
  for (uint32_t i = 0; i < vsize(root_->operands()); ++i) {
    if (root_->operands()->Get(i)->source() ==
        blob::ValueSource::RUN_TIME_EXPRESSIONS) {
      run_time_operands_.push_back(i);
    }
  }
  key_expressions_.assign(num_shape_expressions(root_), true);
  if (run_time_operands_.empty()) {
    return;  // Every expression may matter; nothing to leave out.
  }
  std::vector<bool> used(key_expressions_.size(), false);
  mark_size_expressions(root_, &used);
  for (uint32_t k = 0; k < vsize(root_->subgraphs()); ++k) {
    mark_size_expressions(subgraph(k), &used);
  }
  for (const std::vector<ArgumentInfo>* side : {&inputs_, &outputs_}) {
    for (const ArgumentInfo& arg : *side) {
      for (int32_t e : arg.tensor_dim_exprs) {
        if (e >= 0) {
          used[static_cast<size_t>(e)] = true;
        }
      }
    }
  }
  key_expressions_ = used;
}

std::vector<int64_t> LoadedBlob::compiled_model_key(
    const std::vector<int64_t>& values) const {
  std::vector<int64_t> key = values;
  for (size_t e = 0; e < key.size() && e < key_expressions_.size(); ++e) {
    if (!key_expressions_[e]) {
      key[e] = 0;
    }
  }
  return key;
}

bool LoadedBlob::run_time_values(uint32_t index,
                                 const std::vector<int64_t>& values,
                                 std::vector<int32_t>* out,
                                 std::string* error) const {
  const blob::Operand* op = root_->operands()->Get(index);
  std::vector<uint32_t> dims;
  if (!operand_dims(index, values, &dims, error)) {
    return false;
  }
  // An arange's length is a size (the KV cache's new positions); far more
  // than any input holds means a damaged blob, not a value to allocate.
  if (dims[0] > kMaxRunTimeValues) {
    *error = format_message(
        "%s has %u run-time values at this execution, more than the %u a "
        "delegate input could need (a damaged blob or a size far outside the "
        "exported range)",
        describe_operand(index).c_str(), dims[0], kMaxRunTimeValues);
    return false;
  }
  out->resize(dims[0]);
  const int64_t step = op->arange_step();
  for (uint32_t k = 0; k < dims[0]; ++k) {
    const size_t e = static_cast<size_t>(
        op->value_exprs()->Get(step != 0 ? 0 : k));
    const int64_t v = values[e] + (step != 0 ? step * k : 0);
    if (v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max()) {
      *error = format_message(
          "%s value %u (%s) is %" PRId64 " at this execution, which does not "
          "fit NNAPI's int32",
          describe_operand(index).c_str(), k,
          shape_program_.expression_text(e).c_str(), v);
      return false;
    }
    (*out)[k] = static_cast<int32_t>(v);
  }
  return true;
}

}  // namespace executorch_nnapi
