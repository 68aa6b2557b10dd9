// Stage 7 of load_blob: the delegate's arguments. Each tensor argument binds
// one model input/output (with its scalar type, dim order and, for a tensor
// of higher rank than its operand, merged dims); every model input/output is
// bound exactly once.
#include <cstring>
#include <vector>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include "blob_reader.h"
#include "error_log.h"
#include "load_stages.h"
#include "nnapi_c_api.h"

namespace executorch_nnapi {

using executorch::runtime::Error;

namespace {

// One side (inputs or outputs) of the delegate's arguments.
struct ArgumentSide {
  const flatbuffers::Vector<flatbuffers::Offset<blob::Argument>>* args;
  // The model inputs (or outputs) the arguments bind.
  const flatbuffers::Vector<uint32_t>* io;
  const char* name;
};

// Marks the model input/output that operand `operand` is as bound to
// argument `a`, and returns its position in *io_index.
Error bind_model_io(const ArgumentSide& side, uint32_t a, uint32_t operand,
                    std::vector<bool>* bound, uint32_t* io_index) {
  for (uint32_t k = 0; k < side.io->size(); ++k) {
    if (side.io->Get(k) != operand) {
      continue;
    }
    if ((*bound)[k]) {
      return reject(Error::InvalidProgram,
                    format_message("model %s %u (operand %u) is bound to "
                                   "more than one argument",
                                   side.name, k, operand));
    }
    (*bound)[k] = true;
    *io_index = k;
    return Error::Ok;
  }
  return reject(Error::InvalidProgram,
                format_message("%s argument %u is bound to operand %u, "
                               "which is not a model %s",
                               side.name, a, operand, side.name));
}

// A tensor argument's operand must have every dim static or given by a
// shape expression (an unknown dim cannot size the ExecuTorch tensor).
Error check_argument_dims(const LoadedBlob& loaded, const ArgumentSide& side,
                          uint32_t a, uint32_t operand) {
  const blob::Operand* op = loaded.root()->operands()->Get(operand);
  const uint32_t rank = vsize(op->dims());
  bool dims_known = loaded.operands()[operand].is_tensor && rank > 0;
  for (uint32_t d = 0; dims_known && d < rank; ++d) {
    const bool dynamic =
        vsize(op->dim_exprs()) != 0 && op->dim_exprs()->Get(d) >= 0;
    dims_known = dynamic || op->dims()->Get(d) != 0;
  }
  if (!dims_known) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u (%s) must be a tensor whose "
                                 "every dimension is static or given by a "
                                 "shape expression",
                                 side.name, a,
                                 loaded.describe_operand(operand).c_str()));
  }
  return Error::Ok;
}

// The argument's dim_order, if any: a permutation of the operand's `rank`
// dims. Kept in *dim_order only when it is not the identity.
Error load_dim_order(const ArgumentSide& side, uint32_t a, uint32_t rank,
                     std::vector<uint8_t>* dim_order) {
  const auto* order = side.args->Get(a)->dim_order();
  if (vsize(order) == 0) {
    return Error::Ok;
  }
  std::vector<bool> seen(rank, false);
  bool valid = order->size() == rank;
  for (uint32_t d = 0; valid && d < rank; ++d) {
    const uint8_t src = order->Get(d);
    valid = src < rank && !seen[src];
    if (valid) {
      seen[src] = true;
    }
  }
  if (!valid) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has a dim_order that is not "
                                 "a permutation of its %u dimensions",
                                 side.name, a, rank));
  }
  bool identity = true;
  for (uint32_t d = 0; d < rank; ++d) {
    identity = identity && order->Get(d) == d;
  }
  if (!identity) {
    dim_order->assign(order->begin(), order->end());
  }
  return Error::Ok;
}

// The tensor's dims of a merged argument: a rank in [1, kMaxTensorRank],
// static sizes > 0, expression indices in range.
Error load_tensor_dims(const LoadedBlob& loaded, const ArgumentSide& side,
                       uint32_t a, ArgumentInfo* info) {
  constexpr uint32_t kMaxTensorRank = 16;  // ExecuTorch's limit.
  const blob::Argument* arg = side.args->Get(a);
  const uint32_t rank = vsize(arg->tensor_dims());
  const uint32_t num_exprs = vsize(arg->tensor_dim_exprs());
  const blob::ShapeProgram* program = loaded.root()->shape_program();
  const uint32_t available =
      program != nullptr ? vsize(program->expressions()) : 0;
  if (rank == 0 || rank > kMaxTensorRank || (num_exprs != 0 && num_exprs != rank)) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has merged_dims but %u "
                                 "tensor_dims (must be 1 to %u) and %u "
                                 "tensor_dim_exprs (must be 0 or as many)",
                                 side.name, a, rank, kMaxTensorRank, num_exprs));
  }
  for (uint32_t d = 0; d < rank; ++d) {
    const int32_t e = num_exprs != 0 ? arg->tensor_dim_exprs()->Get(d) : -1;
    const uint32_t size = arg->tensor_dims()->Get(d);
    if (e >= static_cast<int64_t>(available) || (e < 0 && size == 0)) {
      return reject(Error::InvalidProgram,
                    format_message("%s argument %u tensor dimension %u is "
                                   "neither a static size > 0 nor one of the "
                                   "%u shape expressions",
                                   side.name, a, d, available));
    }
    info->tensor_dims.push_back(size);
    info->tensor_dim_exprs.push_back(e < 0 ? -1 : e);
  }
  return Error::Ok;
}

// A merged argument's merged_dims: one entry per operand dim, together
// spanning the tensor's dims; where both sides are static the sizes agree.
Error load_merged_dims(const LoadedBlob& loaded, const ArgumentSide& side,
                       uint32_t a, uint32_t operand_rank, ArgumentInfo* info) {
  const blob::Argument* arg = side.args->Get(a);
  if (vsize(arg->merged_dims()) == 0) {
    if (vsize(arg->tensor_dims()) != 0 || vsize(arg->tensor_dim_exprs()) != 0) {
      return reject(Error::InvalidProgram,
                    format_message("%s argument %u has tensor_dims without "
                                   "merged_dims", side.name, a));
    }
    return Error::Ok;
  }
  Error err = load_tensor_dims(loaded, side, a, info);
  if (err != Error::Ok) {
    return err;
  }
  if (vsize(arg->dim_order()) != 0 || vsize(arg->merged_dims()) != operand_rank) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has %u merged_dims for an "
                                 "operand of rank %u (and must have no "
                                 "dim_order)",
                                 side.name, a, vsize(arg->merged_dims()),
                                 operand_rank));
  }
  const blob::Operand* op = loaded.root()->operands()->Get(info->operand);
  size_t next = 0;
  for (uint32_t i = 0; i < operand_rank; ++i) {
    const uint8_t span = arg->merged_dims()->Get(i);
    bool known = vsize(op->dim_exprs()) == 0 || op->dim_exprs()->Get(i) < 0;
    uint64_t product = 1;
    for (uint8_t k = 0; k < span && next + k < info->tensor_dims.size(); ++k) {
      known = known && info->tensor_dim_exprs[next + k] < 0;
      product *= static_cast<uint64_t>(info->tensor_dims[next + k]);
    }
    next += span;
    if (next > info->tensor_dims.size() ||
        (known && product != op->dims()->Get(i))) {
      return reject(Error::InvalidProgram,
                    format_message("%s argument %u: merged_dims do not map "
                                   "its %zu tensor dims onto %s",
                                   side.name, a, info->tensor_dims.size(),
                                   loaded.describe_operand(info->operand).c_str()));
    }
    info->merged_dims.push_back(span);
  }
  if (next != info->tensor_dims.size()) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u: merged_dims span %zu of its "
                                 "%zu tensor dims",
                                 side.name, a, next, info->tensor_dims.size()));
  }
  return Error::Ok;
}

bool is_integer_type(int8_t code) {
  using executorch::aten::ScalarType;
  const ScalarType t = static_cast<ScalarType>(code);
  return t == ScalarType::Long || t == ScalarType::Int ||
         t == ScalarType::Short || t == ScalarType::Char ||
         t == ScalarType::Byte;
}

// The elements the shape program may read from an integer tensor of static
// sizes `dims` (0 for any other tensor).
size_t readable_values(int8_t scalar_type, const std::vector<int64_t>& dims) {
  if (!is_integer_type(scalar_type)) {
    return 0;
  }
  size_t count = 1;
  for (int64_t d : dims) {
    if (d <= 0) {
      return 0;  // dynamic
    }
    count *= static_cast<size_t>(d);
  }
  return count;
}

// A VALUES input: an integer or other tensor bound to no operand, whose
// sizes (tensor_dims) and elements only the shape program reads.
Error load_values_argument(const LoadedBlob& loaded, const ArgumentSide& side,
                           uint32_t a, ArgumentInfo* info, int* rank) {
  const blob::Argument* arg = side.args->Get(a);
  info->is_values = true;
  info->scalar_type = arg->scalar_type();
  if (std::strcmp(side.name, "input") != 0 ||
      !executorch::runtime::isValid(
          static_cast<executorch::aten::ScalarType>(info->scalar_type)) ||
      vsize(arg->merged_dims()) != 0) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u is VALUES, which only inputs "
                                 "of a valid scalar type without merged_dims "
                                 "may be",
                                 side.name, a));
  }
  const Error err = load_tensor_dims(loaded, side, a, info);
  if (err != Error::Ok) {
    return err;
  }
  info->value_count = readable_values(info->scalar_type, info->tensor_dims);
  *rank = static_cast<int>(info->tensor_dims.size());
  return Error::Ok;
}

// Argument `a` of `side`: an IGNORED one, an INT input, a VALUES input, or a
// TENSOR of a valid scalar type bound to one model input/output. Its rank
// goes to *rank (-1 if ignored, 1 for an INT: the shape program reads its
// value as a size).
Error load_argument(const LoadedBlob& loaded, const ArgumentSide& side,
                    uint32_t a, std::vector<bool>* bound, ArgumentInfo* info,
                    int* rank) {
  const blob::Argument* arg = side.args->Get(a);
  *rank = -1;
  if (arg->kind() == blob::ArgKind::IGNORED) {
    return Error::Ok;
  }
  if (arg->kind() == blob::ArgKind::VALUES) {
    return load_values_argument(loaded, side, a, info, rank);
  }
  if (arg->kind() == blob::ArgKind::INT) {
    if (std::strcmp(side.name, "input") != 0) {
      return reject(Error::InvalidProgram,
                    format_message("%s argument %u is an INT, which only "
                                   "inputs may be",
                                   side.name, a));
    }
    info->is_int = true;
    *rank = 1;
    return Error::Ok;
  }
  if (arg->kind() != blob::ArgKind::TENSOR) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has unknown kind %d",
                                 side.name, a, static_cast<int>(arg->kind())));
  }
  info->is_tensor = true;
  info->operand = arg->operand();
  info->scalar_type = arg->scalar_type();
  if (!executorch::runtime::isValid(
          static_cast<executorch::aten::ScalarType>(info->scalar_type))) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has invalid scalar type %d",
                                 side.name, a, info->scalar_type));
  }
  Error err = bind_model_io(side, a, info->operand, bound, &info->io_index);
  if (err != Error::Ok) {
    return err;
  }
  // Bound to a model input/output, so the operand index is in range.
  err = check_argument_dims(loaded, side, a, info->operand);
  if (err != Error::Ok) {
    return err;
  }
  const blob::Operand* operand = loaded.root()->operands()->Get(info->operand);
  info->int64_as_int32 =
      info->scalar_type ==
          static_cast<int8_t>(executorch::aten::ScalarType::Long) &&
      operand->type() == ANEURALNETWORKS_TENSOR_INT32;
  const uint32_t operand_rank = vsize(operand->dims());
  err = load_merged_dims(loaded, side, a, operand_rank, info);
  if (err != Error::Ok) {
    return err;
  }
  *rank = static_cast<int>(info->merged_dims.empty() ? operand_rank
                                                     : info->tensor_dims.size());
  err = load_dim_order(side, a, operand_rank, &info->dim_order);
  if (err == Error::Ok && info->merged_dims.empty() && info->dim_order.empty()) {
    std::vector<int64_t> dims;
    for (uint32_t d = 0; d < operand_rank; ++d) {
      const bool dynamic = vsize(operand->dim_exprs()) != 0 &&
                           operand->dim_exprs()->Get(d) >= 0;
      dims.push_back(dynamic ? 0 : operand->dims()->Get(d));
    }
    info->value_count = readable_values(info->scalar_type, dims);
  }
  return err;
}

}  // namespace

// Stage 7: each tensor argument binds one model input/output, and every
// model input/output is bound exactly once (NNAPI needs them all set), to an
// argument or to a state (stage 6b).
// *input_ranks gets each input argument's rank (-1 if ignored), for the
// shape program.
Error LoadedBlob::load_arguments(std::vector<int>* input_ranks) {
  const ArgumentSide sides[] = {
      {root_->inputs(), root_->model_inputs(), "input"},
      {root_->outputs(), root_->model_outputs(), "output"},
  };
  for (const ArgumentSide& side : sides) {
    const bool is_input = &side == &sides[0];
    std::vector<ArgumentInfo>& infos = is_input ? inputs_ : outputs_;
    // A state's input and output are bound to the runtime's memory.
    std::vector<bool> bound(side.io->size(), false);
    for (uint32_t k = 0; k < side.io->size(); ++k) {
      bound[k] = is_state_io(is_input, k);
    }
    for (uint32_t a = 0; a < vsize(side.args); ++a) {
      ArgumentInfo info;
      int rank = -1;
      const Error err = load_argument(*this, side, a, &bound, &info, &rank);
      if (err != Error::Ok) {
        return err;
      }
      if (is_input) {
        input_ranks->push_back(rank);
      }
      infos.push_back(std::move(info));
    }
    for (uint32_t k = 0; k < side.io->size(); ++k) {
      if (!bound[k]) {
        return reject(Error::InvalidProgram,
                      format_message("model %s %u (operand %u) is not bound "
                                     "to any delegate argument",
                                     side.name, k, side.io->Get(k)));
      }
    }
  }
  return Error::Ok;
}

}  // namespace executorch_nnapi
