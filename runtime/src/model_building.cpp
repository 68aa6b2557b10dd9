// The stages of CompiledModel::build that make one NNAPI model (the main one
// or a referenced one, for IF / WHILE) from its Blob table: operands with
// their values, operations, inputs and outputs, finish.
#include <cinttypes>
#include <limits>
#include <string>
#include <vector>

#include "backend_stats.h"
#include "error_log.h"
#include "model_building.h"
#include "nnapi_model.h"

namespace executorch_nnapi {

using executorch::runtime::Error;

namespace {

std::string describe_operation(const blob::Blob* tables, uint32_t index) {
  const blob::Operation* op = tables->operations()->Get(index);
  std::string out =
      format_message("operation %u (NNAPI type %d", index, op->type());
  if (op->debug_name() != nullptr && op->debug_name()->size() > 0) {
    out += ", " + op->debug_name()->str();
  }
  return out + ")";
}

}  // namespace

Error CompiledModel::build_model(const LoadedBlob& blob,
                                 const blob::Blob* tables,
                                 const std::vector<int64_t>& values,
                                 ANeuralNetworksModel** model) {
  Error err = create_model(model);
  if (err == Error::Ok) {
    err = add_operands(*model, blob, tables, values);
  }
  if (err == Error::Ok) {
    err = add_operations(*model, tables);
  }
  if (err == Error::Ok) {
    // A referenced model takes the main model's relaxation (NNAPI).
    err = finish_model(*model, blob, tables, tables == blob.root());
  }
  return err;
}

Error CompiledModel::create_model(ANeuralNetworksModel** model) {
  const int rc = api_->ANeuralNetworksModel_create(model);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    *model = nullptr;
    NNAPI_LOG_ERROR("ANeuralNetworksModel_create failed: %s",
                    nnapi_describe_result(*api_, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

// Every operand in index order (NNAPI numbers them as they are added): its
// type for these sizes, then its quantization parameters and value.
Error CompiledModel::add_operands(ANeuralNetworksModel* model,
                                  const LoadedBlob& blob,
                                  const blob::Blob* tables,
                                  const std::vector<int64_t>& values) {
  const uint32_t num_operands =
      static_cast<uint32_t>(blob.operands_of(tables).size());
  std::vector<uint32_t> dims;
  std::string error;
  for (uint32_t i = 0; i < num_operands; ++i) {
    if (!blob.operand_dims(i, values, &dims, &error, tables)) {
      NNAPI_LOG_ERROR_STR(error);
      return Error::InvalidArgument;
    }
    Error err = add_operand(model, blob, tables, i, dims);
    if (err == Error::Ok) {
      err = set_per_channel_params(model, blob, tables, i, dims);
    }
    if (err == Error::Ok) {
      err = set_operand_value(model, blob, tables, i, dims, values);
    }
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

Error CompiledModel::add_operand(ANeuralNetworksModel* model,
                                 const LoadedBlob& blob,
                                 const blob::Blob* tables, uint32_t i,
                                 const std::vector<uint32_t>& dims) {
  const blob::Operand* op = tables->operands()->Get(i);
  const OperandInfo& info = blob.operands_of(tables)[i];
  ANeuralNetworksOperandType type;
  type.type = info.type;
  type.dimensionCount = static_cast<uint32_t>(dims.size());
  type.dimensions = dims.empty() ? nullptr : dims.data();
  type.scale = op->scale();
  type.zeroPoint = op->zero_point();
  const int rc = api_->ANeuralNetworksModel_addOperand(model, &type);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_addOperand failed for %s (type "
                    "%d, rank %zu): %s",
                    blob.describe_operand(i, tables).c_str(), info.type, dims.size(),
                    nnapi_describe_result(*api_, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

Error CompiledModel::set_per_channel_params(ANeuralNetworksModel* model,
                                            const LoadedBlob& blob,
                                            const blob::Blob* tables,
                                            uint32_t i,
                                            const std::vector<uint32_t>& dims) {
  const NnapiApi& nn = *api_;
  const blob::PerChannelQuant* pc = tables->operands()->Get(i)->per_channel();
  if (pc == nullptr) {
    return Error::Ok;
  }
  if (nn.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams == nullptr) {
    NNAPI_LOG_ERROR(
        "%s uses per-channel quantization, which needs "
        "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams "
        "(NNAPI feature level 29); this NNAPI (level %s) does not have "
        "it",
        blob.describe_operand(i, tables).c_str(),
        nnapi_feature_level_name(nn.feature_level).c_str());
    return Error::DelegateInvalidCompatibility;
  }
  // A dynamic channel dim is only known now.
  if (pc->scales()->size() != dims[pc->channel_dim()]) {
    NNAPI_LOG_ERROR("%s has %u per-channel scales for %u channels",
                    blob.describe_operand(i, tables).c_str(), pc->scales()->size(),
                    dims[pc->channel_dim()]);
    return Error::InvalidProgram;
  }
  ANeuralNetworksSymmPerChannelQuantParams params;
  params.channelDim = pc->channel_dim();
  params.scaleCount = pc->scales()->size();
  params.scales = pc->scales()->data();
  const int rc = nn.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
      model, static_cast<int32_t>(i), &params);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_setOperandSymmPerChannelQuant"
                    "Params failed for %s: %s",
                    blob.describe_operand(i, tables).c_str(),
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

// Evaluates operand i's SHAPE_EXPRESSIONS into shape_values_ at
// next_shape_value_ (advanced past them); *value points at them.
Error CompiledModel::evaluate_value_expressions(
    const LoadedBlob& blob, const blob::Blob* tables, uint32_t i,
    const std::vector<int64_t>& values, const int32_t** value) {
  const auto* exprs = tables->operands()->Get(i)->value_exprs();
  int32_t* dst = shape_values_.data() + next_shape_value_;
  for (uint32_t k = 0; k < exprs->size(); ++k) {
    const size_t e = static_cast<size_t>(exprs->Get(k));
    const int64_t v = values[e];
    if (v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max()) {
      NNAPI_LOG_ERROR("%s value %u = %s is %" PRId64
                      " for these input sizes, which does not fit NNAPI's "
                      "int32",
                      blob.describe_operand(i, tables).c_str(), k,
                      blob.shape_program().expression_text(e).c_str(), v);
      return Error::InvalidArgument;
    }
    dst[k] = static_cast<int32_t>(v);
  }
  next_shape_value_ += exprs->size();
  *value = dst;
  return Error::Ok;
}

// Operand i's constant value, if it has one (NONE: a temporary or a model
// input/output; OMITTED: NULL/0, which marks an omitted optional operand).
Error CompiledModel::set_operand_value(ANeuralNetworksModel* model,
                                       const LoadedBlob& blob,
                                       const blob::Blob* tables, uint32_t i,
                                       const std::vector<uint32_t>& dims,
                                       const std::vector<int64_t>& values) {
  const blob::Operand* op = tables->operands()->Get(i);
  const OperandInfo& info = blob.operands_of(tables)[i];
  const void* value = nullptr;
  size_t value_size = 0;
  switch (op->source()) {
    case blob::ValueSource::INLINE:
    case blob::ValueSource::NAMED_DATA: {
      size_t expected = 0;
      if (!blob.byte_size(i, dims, &expected, tables) ||
          expected != info.value_size) {
        NNAPI_LOG_ERROR("%s holds %zu bytes of data, but its type for "
                        "these sizes needs %zu",
                        blob.describe_operand(i, tables).c_str(), info.value_size,
                        expected);
        return Error::InvalidProgram;
      }
      return set_constant(model, blob, tables, i, info.value, info.value_size);
    }
    case blob::ValueSource::SHAPE_EXPRESSIONS: {
      const int32_t* evaluated = nullptr;
      const Error err =
          evaluate_value_expressions(blob, tables, i, values, &evaluated);
      if (err != Error::Ok) {
        return err;
      }
      value = evaluated;
      value_size = op->value_exprs()->size() * sizeof(int32_t);
      break;
    }
    case blob::ValueSource::OMITTED:
      break;
    case blob::ValueSource::SUBGRAPH:
      return set_referenced_model(model, blob, tables, i);
    case blob::ValueSource::NONE:
    case blob::ValueSource::RUN_TIME_EXPRESSIONS:  // An input (finish_model).
      return Error::Ok;
    default:
      return Error::Ok;  // Rejected by load_blob.
  }
  const int rc = api_->ANeuralNetworksModel_setOperandValue(
      model, static_cast<int32_t>(i), value, value_size);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_setOperandValue failed for %s "
                    "(%zu bytes): %s",
                    blob.describe_operand(i, tables).c_str(), value_size,
                    nnapi_describe_result(*api_, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

// A constant (INLINE or NAMED_DATA) from NNAPI memory mapping the program's
// file when ConstantMemory found it there, else by pointer (NNAPI copies a
// value of at most kMaxImmediateValueBytes at once and references longer
// ones; the loaded blob keeps them alive).
Error CompiledModel::set_constant(ANeuralNetworksModel* model,
                                  const LoadedBlob& blob,
                                  const blob::Blob* tables, uint32_t i,
                                  const void* value, size_t value_size) {
  const ANeuralNetworksMemory* memory = nullptr;
  size_t offset = 0;
  const bool from_memory = value_size > kMaxImmediateValueBytes &&
                           constants_ != nullptr &&
                           constants_->find(value, &memory, &offset);
  const int rc =
      from_memory
          ? api_->ANeuralNetworksModel_setOperandValueFromMemory(
                model, static_cast<int32_t>(i), memory, offset, value_size)
          : api_->ANeuralNetworksModel_setOperandValue(
                model, static_cast<int32_t>(i), value, value_size);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_setOperandValue%s failed for %s "
                    "(%zu bytes): %s",
                    from_memory ? "FromMemory" : "",
                    blob.describe_operand(i, tables).c_str(), value_size,
                    nnapi_describe_result(*api_, rc).c_str());
    return build_error(rc);
  }
  if (value_size > kMaxImmediateValueBytes) {
    record_constant(from_memory, value_size);
  }
  return Error::Ok;
}

// A MODEL operand's value: the referenced model, already built and finished
// (build follows LoadedBlob::subgraph_build_order).
Error CompiledModel::set_referenced_model(ANeuralNetworksModel* model,
                                          const LoadedBlob& blob,
                                          const blob::Blob* tables,
                                          uint32_t i) {
  const NnapiApi& nn = *api_;
  if (nn.ANeuralNetworksModel_setOperandValueFromModel == nullptr) {
    NNAPI_LOG_ERROR("%s refers to a model (control flow), which needs "
                    "ANeuralNetworksModel_setOperandValueFromModel (NNAPI "
                    "feature level 30); this NNAPI (level %s) does not have it",
                    blob.describe_operand(i, tables).c_str(),
                    nnapi_feature_level_name(nn.feature_level).c_str());
    return Error::DelegateInvalidCompatibility;
  }
  const uint32_t k = tables->operands()->Get(i)->subgraph();
  const int rc = nn.ANeuralNetworksModel_setOperandValueFromModel(
      model, static_cast<int32_t>(i), subgraph_models_[k]);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_setOperandValueFromModel failed for "
                    "%s (referenced model %u): %s",
                    blob.describe_operand(i, tables).c_str(), k,
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

Error CompiledModel::add_operations(ANeuralNetworksModel* model,
                                    const blob::Blob* tables) {
  const uint32_t num_operations =
      tables->operations() != nullptr ? tables->operations()->size() : 0;
  for (uint32_t i = 0; i < num_operations; ++i) {
    const blob::Operation* op = tables->operations()->Get(i);
    const int rc = api_->ANeuralNetworksModel_addOperation(
        model, op->type(), list_size(op->inputs()), list_data(op->inputs()),
        list_size(op->outputs()), list_data(op->outputs()));
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksModel_addOperation failed for %s: %s",
                      describe_operation(tables, i).c_str(),
                      nnapi_describe_result(*api_, rc).c_str());
      return build_error(rc);
    }
  }
  return Error::Ok;
}

// Names the model's inputs and outputs (the main model's with its debug
// outputs), allows fp16 if the blob asks (on the main model, whose setting
// NNAPI applies to the models it refers to), and finishes the model.
Error CompiledModel::finish_model(ANeuralNetworksModel* model,
                                  const LoadedBlob& blob,
                                  const blob::Blob* tables, bool main_model) {
  const NnapiApi& nn = *api_;
  std::vector<uint32_t> outputs(list_data(tables->model_outputs()),
                                list_data(tables->model_outputs()) +
                                    list_size(tables->model_outputs()));
  // The debug outputs (intermediate values) are the main model's.
  if (main_model) {
    outputs.insert(outputs.end(), extra_outputs_.begin(), extra_outputs_.end());
  }
  std::vector<uint32_t> inputs(list_data(tables->model_inputs()),
                               list_data(tables->model_inputs()) +
                                   list_size(tables->model_inputs()));
  // The values filled at every execution are the main model's last inputs.
  if (main_model) {
    inputs.insert(inputs.end(), blob.run_time_operands().begin(),
                  blob.run_time_operands().end());
  }
  int rc = nn.ANeuralNetworksModel_identifyInputsAndOutputs(
      model, static_cast<uint32_t>(inputs.size()), inputs.data(),
      static_cast<uint32_t>(outputs.size()), outputs.data());
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_identifyInputsAndOutputs failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  // A load-time relax_fp32_to_fp16 overrides the blob's (lowering) choice.
  const bool relax = main_model && (options_.relax_fp32_to_fp16 >= 0
                                           ? options_.relax_fp32_to_fp16 == 1
                                           : tables->relax_fp32_to_fp16());
  if (relax) {
    if (nn.ANeuralNetworksModel_relaxComputationFloat32toFloat16 == nullptr) {
      // Only a permission to be less precise: running in fp32 is correct.
      NNAPI_LOG_WARNING("this NNAPI has no relaxComputationFloat32toFloat16; "
                        "computing in float32");
    } else {
      rc = nn.ANeuralNetworksModel_relaxComputationFloat32toFloat16(model,
                                                                   true);
      if (rc != ANEURALNETWORKS_NO_ERROR) {
        NNAPI_LOG_ERROR(
            "ANeuralNetworksModel_relaxComputationFloat32toFloat16 failed: %s",
            nnapi_describe_result(nn, rc).c_str());
        return build_error(rc);
      }
    }
  }
  rc = nn.ANeuralNetworksModel_finish(model);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_finish failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

}  // namespace executorch_nnapi
