// Stages 4-6 of load_blob: each operand's type, dims, per-channel
// quantization and value (inline, named data or shape expressions), then the
// operations and the model inputs/outputs that refer to operands.
#include <string>
#include <vector>

#include "blob_reader.h"
#include "error_log.h"
#include "load_stages.h"
#include "nnapi_c_api.h"

namespace executorch_nnapi {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;

namespace {

// NNAPI sizes are 32-bit.
constexpr uint64_t kMaxNnapiBytes = 0xFFFFFFFFull;

}  // namespace

bool nnapi_type_info(int32_t type, uint32_t* element_size, bool* is_tensor) {
  switch (type) {
    case ANEURALNETWORKS_FLOAT32:
    case ANEURALNETWORKS_INT32:
    case ANEURALNETWORKS_UINT32:
      *element_size = 4;
      *is_tensor = false;
      return true;
    case ANEURALNETWORKS_BOOL:
      *element_size = 1;
      *is_tensor = false;
      return true;
    case ANEURALNETWORKS_FLOAT16:
      *element_size = 2;
      *is_tensor = false;
      return true;
    case ANEURALNETWORKS_TENSOR_FLOAT32:
    case ANEURALNETWORKS_TENSOR_INT32:
      *element_size = 4;
      *is_tensor = true;
      return true;
    case ANEURALNETWORKS_TENSOR_QUANT16_SYMM:
    case ANEURALNETWORKS_TENSOR_FLOAT16:
    case ANEURALNETWORKS_TENSOR_QUANT16_ASYMM:
      *element_size = 2;
      *is_tensor = true;
      return true;
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM:
    case ANEURALNETWORKS_TENSOR_BOOL8:
    case ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case ANEURALNETWORKS_TENSOR_QUANT8_SYMM:
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED:
      *element_size = 1;
      *is_tensor = true;
      return true;
    case ANEURALNETWORKS_MODEL:
      // A referenced model (IF / WHILE): no bytes of its own.
      *element_size = 0;
      *is_tensor = false;
      return true;
    default:
      // Vendor/OEM types are not supported.
      return false;
  }
}

bool checked_byte_size(uint32_t element_size, const uint32_t* dims,
                       size_t rank, size_t* size) {
  uint64_t total = element_size;
  for (size_t i = 0; i < rank; ++i) {
    total *= dims[i];
    if (total > kMaxNnapiBytes) {
      return false;
    }
  }
  *size = static_cast<size_t>(total);
  return true;
}

uint32_t num_shape_expressions(const blob::Blob* root) {
  return root->shape_program() != nullptr
             ? vsize(root->shape_program()->expressions())
             : 0;
}

Error check_value_expression_indices(const LoadedBlob& loaded,
                                     const blob::Blob* model, uint32_t i) {
  const uint32_t num_expressions = num_shape_expressions(loaded.root());
  const auto* exprs = model->operands()->Get(i)->value_exprs();
  for (uint32_t k = 0; k < vsize(exprs); ++k) {
    const int32_t e = exprs->Get(k);
    if (e < 0 || static_cast<uint32_t>(e) >= num_expressions) {
      return reject(Error::InvalidProgram,
                    format_message("%s value %u uses shape expression %d, "
                                   "but there are %u",
                                   loaded.describe_operand(i, model).c_str(), k,
                                   e, num_expressions));
    }
  }
  return Error::Ok;
}

namespace {

// What an operand's dims say about its size.
struct OperandShape {
  uint32_t rank = 0;
  // Every dim static and known: the operand has a size at load time.
  bool fully_static = false;
  // That size, when fully_static.
  size_t static_bytes = 0;
};

// An operand's type and dims: a supported type, no dims on scalars, dim
// expressions that exist, and a static size within NNAPI's limit.
Error load_operand_shape(const LoadedBlob& loaded, const blob::Blob* model,
    uint32_t i,
                         OperandInfo* info, OperandShape* shape) {
  const blob::Operand* op = model->operands()->Get(i);
  const uint32_t num_expressions = num_shape_expressions(loaded.root());
  info->type = op->type();
  if (!nnapi_type_info(info->type, &info->element_size, &info->is_tensor)) {
    return reject(Error::InvalidProgram,
                  format_message("%s has NNAPI operand type %d, which this "
                                 "runtime does not support",
                                 loaded.describe_operand(i, model).c_str(),
                                 info->type));
  }
  const uint32_t rank = vsize(op->dims());
  if (!info->is_tensor && rank != 0) {
    return reject(Error::InvalidProgram,
                  format_message("%s is a scalar but has %u dimensions",
                                 loaded.describe_operand(i, model).c_str(), rank));
  }
  const uint32_t num_dim_exprs = vsize(op->dim_exprs());
  if (num_dim_exprs != 0 && num_dim_exprs != rank) {
    return reject(
        Error::InvalidProgram,
        format_message("%s has %u dimensions but %u dimension expressions",
                       loaded.describe_operand(i, model).c_str(), rank,
                       num_dim_exprs));
  }
  bool all_known = true;
  for (uint32_t d = 0; d < rank; ++d) {
    const int32_t e = num_dim_exprs != 0 ? op->dim_exprs()->Get(d) : -1;
    if (e >= 0) {
      if (static_cast<uint32_t>(e) >= num_expressions) {
        return reject(
            Error::InvalidProgram,
            format_message("%s dimension %u uses shape expression %d, but "
                           "there are %u",
                           loaded.describe_operand(i, model).c_str(), d, e,
                           num_expressions));
      }
      info->has_dynamic_dims = true;
    } else if (e != -1) {
      return reject(Error::InvalidProgram,
                    format_message("%s dimension %u has expression index "
                                   "%d (must be -1 or an index)",
                                   loaded.describe_operand(i, model).c_str(), d, e));
    } else if (op->dims()->Get(d) == 0) {
      all_known = false;  // NNAPI "unknown" size (a temporary).
    }
  }
  shape->rank = rank;
  shape->fully_static = all_known && !info->has_dynamic_dims;
  if (shape->fully_static &&
      !checked_byte_size(info->element_size,
                         rank != 0 ? op->dims()->data() : nullptr, rank,
                         &shape->static_bytes)) {
    return reject(Error::InvalidProgram,
                  format_message("%s is larger than NNAPI's 4 GiB limit",
                                 loaded.describe_operand(i, model).c_str()));
  }
  return Error::Ok;
}

// Per-channel quantization parameters, if any: only on the per-channel type,
// with a channel dim inside the rank and (when static) one scale a channel.
Error check_per_channel(const LoadedBlob& loaded, const blob::Blob* model,
    uint32_t i,
                        const OperandInfo& info, uint32_t rank) {
  const blob::Operand* op = model->operands()->Get(i);
  const blob::PerChannelQuant* pc = op->per_channel();
  if (pc == nullptr) {
    return Error::Ok;
  }
  if (info.type != ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    return reject(Error::InvalidProgram,
                  format_message(
                      "%s has per-channel parameters but type %d (needs %d)",
                      loaded.describe_operand(i, model).c_str(), info.type,
                      ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL));
  }
  if (pc->scales() == nullptr || pc->channel_dim() >= rank) {
    return reject(Error::InvalidProgram,
                  format_message("%s has per-channel parameters with no "
                                 "scales or channel_dim %u outside its "
                                 "rank %u",
                                 loaded.describe_operand(i, model).c_str(),
                                 pc->channel_dim(), rank));
  }
  const bool channel_static = vsize(op->dim_exprs()) == 0 ||
                              op->dim_exprs()->Get(pc->channel_dim()) < 0;
  if (channel_static &&
      pc->scales()->size() != op->dims()->Get(pc->channel_dim())) {
    return reject(Error::InvalidProgram,
                  format_message("%s has %u per-channel scales for %u "
                                 "channels",
                                 loaded.describe_operand(i, model).c_str(),
                                 pc->scales()->size(),
                                 op->dims()->Get(pc->channel_dim())));
  }
  return Error::Ok;
}

// An INLINE value: present, and of the operand's size when that is static.
Error load_inline_value(const LoadedBlob& loaded, const blob::Blob* model,
    uint32_t i,
                        const OperandShape& shape, OperandInfo* info) {
  const blob::Operand* op = model->operands()->Get(i);
  if (op->data() == nullptr) {
    return reject(Error::InvalidProgram,
                  format_message("%s is INLINE but has no data",
                                 loaded.describe_operand(i, model).c_str()));
  }
  if (shape.fully_static && op->data()->size() != shape.static_bytes) {
    return reject(Error::InvalidProgram,
                  format_message("%s holds %u bytes of data but its type needs "
                                 "%zu",
                                 loaded.describe_operand(i, model).c_str(),
                                 op->data()->size(), shape.static_bytes));
  }
  info->value = op->data()->data();
  info->value_size = op->data()->size();
  return Error::Ok;
}

// A NAMED_DATA value: looked up in the program's named data, checked like an
// inline one, and its buffer appended to *buffers (which keeps it alive).
Error load_named_value(const LoadedBlob& loaded, const blob::Blob* model,
    uint32_t i,
                       const OperandShape& shape,
                       const NamedDataMap* named_data, OperandInfo* info,
                       std::vector<FreeableBuffer>* buffers) {
  const blob::Operand* op = model->operands()->Get(i);
  if (op->named_data_key() == nullptr || op->named_data_key()->size() == 0) {
    return reject(Error::InvalidProgram,
                  format_message("%s is NAMED_DATA but has no key",
                                 loaded.describe_operand(i, model).c_str()));
  }
  const std::string key = op->named_data_key()->str();
  if (named_data == nullptr) {
    return reject(Error::InvalidProgram,
                  format_message("%s needs the named data '%s', but the "
                                 "program provides no named data map (load "
                                 "the .ptd file with the program)",
                                 loaded.describe_operand(i, model).c_str(),
                                 key.c_str()));
  }
  auto buffer = named_data->get_data(key);
  if (!buffer.ok()) {
    return reject(Error::InvalidProgram,
                  format_message("%s needs the named data '%s', which is not "
                                 "in the program's named data (error 0x%x); "
                                 "was the matching .ptd file loaded?",
                                 loaded.describe_operand(i, model).c_str(),
                                 key.c_str(),
                                 static_cast<unsigned>(buffer.error())));
  }
  auto bytes = buffer->data_safe();
  if (!bytes.ok()) {
    return reject(Error::InvalidProgram,
                  format_message("named data '%s' is not addressable",
                                 key.c_str()));
  }
  if (shape.fully_static && buffer->size() != shape.static_bytes) {
    return reject(Error::InvalidProgram,
                  format_message("%s: named data '%s' has %zu bytes but the "
                                 "operand's type needs %zu",
                                 loaded.describe_operand(i, model).c_str(),
                                 key.c_str(), buffer->size(),
                                 shape.static_bytes));
  }
  info->value = bytes.get();
  info->value_size = buffer->size();
  buffers->push_back(std::move(buffer.get()));
  return Error::Ok;
}

// SHAPE_EXPRESSIONS values (evaluated at build time): an INT32 type, one
// expression an element of a static shape, every index in range.
Error check_value_expressions(const LoadedBlob& loaded, const blob::Blob* model,
    uint32_t i,
                              const OperandShape& shape,
                              const OperandInfo& info) {
  const blob::Operand* op = model->operands()->Get(i);
  const uint32_t count = vsize(op->value_exprs());
  if (info.type != ANEURALNETWORKS_INT32 &&
      info.type != ANEURALNETWORKS_TENSOR_INT32) {
    return reject(Error::InvalidProgram,
                  format_message("%s has SHAPE_EXPRESSIONS values but type "
                                 "%d (must be INT32 or TENSOR_INT32)",
                                 loaded.describe_operand(i, model).c_str(),
                                 info.type));
  }
  const size_t elements =
      shape.fully_static ? shape.static_bytes / info.element_size : 0;
  if (!shape.fully_static || (info.is_tensor && shape.rank == 0) ||
      count != elements) {
    return reject(Error::InvalidProgram,
                  format_message("%s has %u value expressions but static "
                                 "shape with %zu elements is required",
                                 loaded.describe_operand(i, model).c_str(), count,
                                 elements));
  }
  return check_value_expression_indices(loaded, model, i);
}

// An operand's value, by its source.
Error load_operand_value(const LoadedBlob& loaded, const blob::Blob* model,
    uint32_t i,
                         const OperandShape& shape,
                         const NamedDataMap* named_data, OperandInfo* info,
                         std::vector<FreeableBuffer>* buffers) {
  const blob::Operand* op = model->operands()->Get(i);
  switch (op->source()) {
    case blob::ValueSource::NONE:
    case blob::ValueSource::OMITTED:
      return Error::Ok;
    case blob::ValueSource::INLINE:
      return load_inline_value(loaded, model, i, shape, info);
    case blob::ValueSource::NAMED_DATA:
      return load_named_value(loaded, model, i, shape, named_data, info,
                              buffers);
    case blob::ValueSource::SHAPE_EXPRESSIONS:
      return check_value_expressions(loaded, model, i, shape, *info);
    case blob::ValueSource::RUN_TIME_EXPRESSIONS:
      return check_run_time_expressions(loaded, model, i, *info);
    case blob::ValueSource::SUBGRAPH:
      if (info->type != ANEURALNETWORKS_MODEL ||
          op->subgraph() >= vsize(loaded.root()->subgraphs())) {
        return reject(Error::InvalidProgram,
                      format_message("%s refers to referenced model %u, but "
                                     "it is of type %d and there are %u",
                                     loaded.describe_operand(i, model).c_str(),
                                     op->subgraph(), info->type,
                                     vsize(loaded.root()->subgraphs())));
      }
      return Error::Ok;
    default:
      return reject(Error::InvalidProgram,
                    format_message("%s has unknown value source %d",
                                   loaded.describe_operand(i, model).c_str(),
                                   static_cast<int>(op->source())));
  }
}

}  // namespace

// Stage 5: every operation refers to existing operands.
Error check_operations(const blob::Blob* root) {
  const uint32_t num_operands = vsize(root->operands());
  const uint32_t num_operations = vsize(root->operations());
  for (uint32_t i = 0; i < num_operations; ++i) {
    const blob::Operation* op = root->operations()->Get(i);
    for (const auto* list : {op->inputs(), op->outputs()}) {
      for (uint32_t k = 0; k < vsize(list); ++k) {
        if (list->Get(k) >= num_operands) {
          return reject(Error::InvalidProgram,
                        format_message("operation %u (type %d%s%s) refers to "
                                       "operand %u, but there are %u",
                                       i, op->type(),
                                       op->debug_name() ? ", " : "",
                                       op->debug_name()
                                           ? op->debug_name()->c_str()
                                           : "",
                                       list->Get(k), num_operands));
        }
      }
    }
  }
  return Error::Ok;
}

// Stage 6: the model has inputs and outputs, all existing operands.
Error check_model_io(const blob::Blob* root) {
  const uint32_t num_operands = vsize(root->operands());
  const auto* model_inputs = root->model_inputs();
  const auto* model_outputs = root->model_outputs();
  if (vsize(model_inputs) == 0 || vsize(model_outputs) == 0) {
    return reject(Error::InvalidProgram,
                  "the model has no inputs or no outputs");
  }
  for (const auto* list : {model_inputs, model_outputs}) {
    for (uint32_t k = 0; k < list->size(); ++k) {
      if (list->Get(k) >= num_operands) {
        return reject(Error::InvalidProgram,
                      format_message("model %s %u is operand %u, but there "
                                     "are %u",
                                     list == model_inputs ? "input" : "output",
                                     k, list->Get(k), num_operands));
      }
    }
  }
  return Error::Ok;
}

// Stage 4: each operand's type, dims, quantization and value, in index order,
// of the main model and of every referenced model.
Error LoadedBlob::load_operands(const NamedDataMap* named_data) {
  Error err = load_model_operands(root_, named_data, &operands_);
  const uint32_t num_subgraphs = vsize(root_->subgraphs());
  subgraph_operands_.resize(num_subgraphs);
  for (uint32_t k = 0; k < num_subgraphs && err == Error::Ok; ++k) {
    err = load_model_operands(root_->subgraphs()->Get(k), named_data,
                              &subgraph_operands_[k]);
  }
  return err;
}

Error LoadedBlob::load_model_operands(const blob::Blob* model,
                                      const NamedDataMap* named_data,
                                      std::vector<OperandInfo>* infos) {
  const uint32_t num_operands = vsize(model->operands());
  infos->resize(num_operands);
  for (uint32_t i = 0; i < num_operands; ++i) {
    OperandInfo& info = (*infos)[i];
    OperandShape shape;
    Error err = load_operand_shape(*this, model, i, &info, &shape);
    if (err == Error::Ok) {
      err = check_per_channel(*this, model, i, info, shape.rank);
    }
    if (err == Error::Ok && info.type == ANEURALNETWORKS_MODEL &&
        model->operands()->Get(i)->source() != blob::ValueSource::SUBGRAPH) {
      err = reject(Error::InvalidProgram,
                   format_message("%s is of type MODEL but refers to no "
                                  "referenced model",
                                  describe_operand(i, model).c_str()));
    }
    if (err == Error::Ok) {
      err = load_operand_value(*this, model, i, shape, named_data, &info,
                               &named_data_);
    }
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

// Stage 7: the order to build referenced models in, each after the models it
// refers to; a cycle of references (which NNAPI cannot express: a model can
// only refer to finished models) is refused rather than followed.
Error LoadedBlob::order_subgraphs() {
  const uint32_t n = vsize(root_->subgraphs());
  std::vector<std::vector<uint32_t>> referrers(n);
  std::vector<uint32_t> pending(n, 0);
  for (uint32_t k = 0; k < n; ++k) {
    const blob::Blob* model = root_->subgraphs()->Get(k);
    for (uint32_t i = 0; i < vsize(model->operands()); ++i) {
      const blob::Operand* op = model->operands()->Get(i);
      if (op->source() == blob::ValueSource::SUBGRAPH) {
        referrers[op->subgraph()].push_back(k);
        ++pending[k];
      }
    }
  }
  subgraph_order_.clear();
  for (uint32_t k = 0; k < n; ++k) {
    if (pending[k] == 0) {
      subgraph_order_.push_back(k);
    }
  }
  for (size_t next = 0; next < subgraph_order_.size(); ++next) {
    for (uint32_t r : referrers[subgraph_order_[next]]) {
      if (--pending[r] == 0) {
        subgraph_order_.push_back(r);
      }
    }
  }
  if (subgraph_order_.size() != n) {
    uint32_t stuck = 0;
    while (pending[stuck] == 0) {
      ++stuck;
    }
    return reject(Error::InvalidProgram,
                  format_message("referenced model %u is on a cycle of "
                                 "references (a model cannot refer to "
                                 "itself, directly or not)",
                                 stuck));
  }
  return Error::Ok;
}

}  // namespace executorch_nnapi
