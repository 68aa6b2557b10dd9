// What a loaded blob answers while models are built and executed: operand
// descriptions for messages, and the dims and sizes of operands and tensor
// arguments for given values of the shape expressions.
#include <cinttypes>
#include <string>
#include <vector>

#include "blob_reader.h"
#include "error_log.h"
#include "load_stages.h"

namespace executorch_nnapi {

const std::vector<OperandInfo>& LoadedBlob::operands_of(
    const blob::Blob* model) const {
  for (uint32_t k = 0; k < subgraph_operands_.size(); ++k) {
    if (model == subgraph(k)) {
      return subgraph_operands_[k];
    }
  }
  return operands_;
}

std::string LoadedBlob::describe_operand(uint32_t index,
                                         const blob::Blob* model) const {
  std::string out = format_message("operand %u", index);
  if (model != nullptr && model != root_) {
    for (uint32_t k = 0; k < vsize(root_->subgraphs()); ++k) {
      if (model == subgraph(k)) {
        out = format_message("referenced model %u ", k) + out;
      }
    }
  } else {
    model = root_;
  }
  const blob::Operand* op = model->operands()->Get(index);
  if (op->debug_name() != nullptr && op->debug_name()->size() > 0) {
    out += " (" + op->debug_name()->str() + ")";
  }
  return out;
}

bool LoadedBlob::operand_dims(uint32_t index,
                              const std::vector<int64_t>& values,
                              std::vector<uint32_t>* dims,
                              std::string* error,
                              const blob::Blob* model) const {
  const blob::Operand* op =
      (model != nullptr ? model : root_)->operands()->Get(index);
  const auto* static_dims = op->dims();
  const auto* exprs = op->dim_exprs();
  const size_t rank = vsize(static_dims);
  dims->resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int32_t e = (exprs != nullptr && exprs->size() > 0)
                          ? exprs->Get(static_cast<flatbuffers::uoffset_t>(d))
                          : -1;
    if (e < 0) {
      (*dims)[d] = static_dims->Get(static_cast<flatbuffers::uoffset_t>(d));
      continue;
    }
    const int64_t v = values[static_cast<size_t>(e)];
    if (v < 1 || v > static_cast<int64_t>(0xFFFFFFFFll)) {
      *error = format_message(
          "%s dimension %zu = %s evaluates to %" PRId64
          " for these input sizes; NNAPI needs a size in [1, 4294967295] "
          "(empty tensors cannot be represented)",
          describe_operand(index, model).c_str(), d,
          shape_program_.expression_text(static_cast<size_t>(e)).c_str(), v);
      return false;
    }
    (*dims)[d] = static_cast<uint32_t>(v);
  }
  return true;
}

bool LoadedBlob::tensor_dims(const ArgumentInfo& arg,
                             const std::vector<int64_t>& values,
                             std::vector<int64_t>* dims,
                             std::string* error) const {
  if (arg.merged_dims.empty()) {
    std::vector<uint32_t> operand;
    if (!operand_dims(arg.operand, values, &operand, error)) {
      return false;
    }
    dims->assign(operand.size(), 0);
    for (size_t d = 0; d < operand.size(); ++d) {
      (*dims)[arg.dim_order.empty() ? d : arg.dim_order[d]] = operand[d];
    }
    return true;
  }
  *dims = arg.tensor_dims;
  for (size_t d = 0; d < dims->size(); ++d) {
    const int32_t e = arg.tensor_dim_exprs.empty() ? -1 : arg.tensor_dim_exprs[d];
    if (e < 0) {
      continue;
    }
    const int64_t v = values[static_cast<size_t>(e)];
    if (v < 1 || v > static_cast<int64_t>(0xFFFFFFFFll)) {
      *error = format_message(
          "tensor of %s dimension %zu = %s evaluates to %" PRId64
          " for these input sizes; NNAPI needs a size in [1, 4294967295]",
          describe_operand(arg.operand).c_str(), d,
          shape_program_.expression_text(static_cast<size_t>(e)).c_str(), v);
      return false;
    }
    (*dims)[d] = v;
  }
  return true;
}

bool LoadedBlob::byte_size(uint32_t index, const std::vector<uint32_t>& dims,
                           size_t* size, const blob::Blob* model) const {
  const auto& infos = model != nullptr ? operands_of(model) : operands_;
  return checked_byte_size(infos[index].element_size, dims.data(),
                           dims.size(), size);
}

InputDims LoadedBlob::exported_input_dims() const {
  InputDims out(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!inputs_[i].is_tensor) {
      continue;
    }
    if (!inputs_[i].merged_dims.empty()) {
      out[i] = inputs_[i].tensor_dims;  // 0 where dynamic, as for operands.
      continue;
    }
    const auto* dims = root_->operands()->Get(inputs_[i].operand)->dims();
    for (flatbuffers::uoffset_t d = 0; d < vsize(dims); ++d) {
      out[i].push_back(dims->Get(d));
    }
  }
  return out;
}

}  // namespace executorch_nnapi
