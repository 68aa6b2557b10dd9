#include "nnapi_model.h"

#include <cinttypes>
#include <limits>
#include <new>

#include "error_log.h"

namespace executorch_nnapi {

using executorch::runtime::Error;

namespace {

// ExecuTorch error for a failed NNAPI call made while building/compiling.
Error build_error(int code) {
  return code == ANEURALNETWORKS_OUT_OF_MEMORY
      ? Error::MemoryAllocationFailed
      : Error::DelegateInvalidCompatibility;
}

std::string describe_operation(const blob::Blob* root, uint32_t index) {
  const blob::Operation* op = root->operations()->Get(index);
  std::string out =
      format_message("operation %u (NNAPI type %d", index, op->type());
  if (op->debug_name() != nullptr && op->debug_name()->size() > 0) {
    out += ", " + op->debug_name()->str();
  }
  return out + ")";
}

// A non-null pointer for empty index lists: some NNAPI versions answer
// UNEXPECTED_NULL for a null array even when its count is 0.
const uint32_t* list_data(const flatbuffers::Vector<uint32_t>* v) {
  static const uint32_t kEmpty = 0;
  return (v != nullptr && v->size() > 0) ? v->data() : &kEmpty;
}

uint32_t list_size(const flatbuffers::Vector<uint32_t>* v) {
  return v != nullptr ? v->size() : 0;
}

// Frees an execution (and its event) on every path.
struct ExecutionGuard {
  const NnapiApi* api;
  ANeuralNetworksExecution* execution = nullptr;
  ANeuralNetworksEvent* event = nullptr;
  ~ExecutionGuard() {
    if (event != nullptr) {
      api->ANeuralNetworksEvent_free(event);
    }
    if (execution != nullptr) {
      api->ANeuralNetworksExecution_free(execution);
    }
  }
};

}  // namespace

CompiledModel::~CompiledModel() {
  // The compilation must go before the model it was created from.
  if (compilation_ != nullptr) {
    api_->ANeuralNetworksCompilation_free(compilation_);
  }
  if (model_ != nullptr) {
    api_->ANeuralNetworksModel_free(model_);
  }
}

Error CompiledModel::build(std::shared_ptr<const NnapiApi> api,
                           const LoadedBlob& blob,
                           const std::vector<int64_t>& values,
                           std::unique_ptr<CompiledModel>* out) {
  if (api == nullptr) {
    NNAPI_LOG_ERROR("no NNAPI library is loaded");
    return Error::InvalidState;
  }
  std::unique_ptr<CompiledModel> c(new (std::nothrow) CompiledModel());
  if (c == nullptr) {
    NNAPI_LOG_ERROR("out of memory building the NNAPI model");
    return Error::MemoryAllocationFailed;
  }
  c->api_ = api;
  const NnapiApi& nn = *api;
  const blob::Blob* root = blob.root();
  const std::vector<OperandInfo>& operands = blob.operands();

  int rc = nn.ANeuralNetworksModel_create(&c->model_);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    c->model_ = nullptr;
    NNAPI_LOG_ERROR("ANeuralNetworksModel_create failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }

  // Evaluate every SHAPE_EXPRESSIONS value up front, into storage that does
  // not move afterwards (NNAPI keeps pointers to values over 128 bytes).
  size_t total_shape_values = 0;
  for (uint32_t i = 0; i < operands.size(); ++i) {
    const blob::Operand* op = root->operands()->Get(i);
    if (op->source() == blob::ValueSource::SHAPE_EXPRESSIONS) {
      total_shape_values += op->value_exprs()->size();
    }
  }
  c->shape_values_.resize(total_shape_values);
  size_t next_shape_value = 0;

  std::vector<uint32_t> dims;
  std::string error;
  for (uint32_t i = 0; i < operands.size(); ++i) {
    const blob::Operand* op = root->operands()->Get(i);
    const OperandInfo& info = operands[i];
    if (!blob.operand_dims(i, values, &dims, &error)) {
      NNAPI_LOG_ERROR_STR(error);
      return Error::InvalidArgument;
    }
    ANeuralNetworksOperandType type;
    type.type = info.type;
    type.dimensionCount = static_cast<uint32_t>(dims.size());
    type.dimensions = dims.empty() ? nullptr : dims.data();
    type.scale = op->scale();
    type.zeroPoint = op->zero_point();
    rc = nn.ANeuralNetworksModel_addOperand(c->model_, &type);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksModel_addOperand failed for %s (type "
                      "%d, rank %zu): %s",
                      blob.describe_operand(i).c_str(), info.type,
                      dims.size(), nnapi_describe_result(nn, rc).c_str());
      return build_error(rc);
    }

    if (op->per_channel() != nullptr) {
      const blob::PerChannelQuant* pc = op->per_channel();
      if (nn.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams ==
          nullptr) {
        NNAPI_LOG_ERROR(
            "%s uses per-channel quantization, which needs "
            "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams "
            "(NNAPI feature level 29); this NNAPI (level %s) does not have "
            "it",
            blob.describe_operand(i).c_str(),
            nnapi_feature_level_name(nn.feature_level).c_str());
        return Error::DelegateInvalidCompatibility;
      }
      if (pc->scales()->size() != dims[pc->channel_dim()]) {
        NNAPI_LOG_ERROR("%s has %u per-channel scales for %u channels",
                        blob.describe_operand(i).c_str(),
                        pc->scales()->size(), dims[pc->channel_dim()]);
        return Error::InvalidProgram;
      }
      ANeuralNetworksSymmPerChannelQuantParams params;
      params.channelDim = pc->channel_dim();
      params.scaleCount = pc->scales()->size();
      params.scales = pc->scales()->data();
      rc = nn.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
          c->model_, static_cast<int32_t>(i), &params);
      if (rc != ANEURALNETWORKS_NO_ERROR) {
        NNAPI_LOG_ERROR("ANeuralNetworksModel_setOperandSymmPerChannelQuant"
                        "Params failed for %s: %s",
                        blob.describe_operand(i).c_str(),
                        nnapi_describe_result(nn, rc).c_str());
        return build_error(rc);
      }
    }

    const void* value = nullptr;
    size_t value_size = 0;
    switch (op->source()) {
      case blob::ValueSource::NONE:
        continue;
      case blob::ValueSource::INLINE:
      case blob::ValueSource::NAMED_DATA: {
        size_t expected = 0;
        if (!blob.byte_size(i, dims, &expected) ||
            expected != info.value_size) {
          NNAPI_LOG_ERROR("%s holds %zu bytes of data, but its type for "
                          "these sizes needs %zu",
                          blob.describe_operand(i).c_str(), info.value_size,
                          expected);
          return Error::InvalidProgram;
        }
        value = info.value;
        value_size = info.value_size;
        break;
      }
      case blob::ValueSource::SHAPE_EXPRESSIONS: {
        const auto* exprs = op->value_exprs();
        int32_t* dst = c->shape_values_.data() + next_shape_value;
        for (uint32_t k = 0; k < exprs->size(); ++k) {
          const size_t e = static_cast<size_t>(exprs->Get(k));
          const int64_t v = values[e];
          if (v < std::numeric_limits<int32_t>::min() ||
              v > std::numeric_limits<int32_t>::max()) {
            NNAPI_LOG_ERROR(
                "%s value %u = %s is %" PRId64
                " for these input sizes, which does not fit NNAPI's int32",
                blob.describe_operand(i).c_str(), k,
                blob.shape_program().expression_text(e).c_str(), v);
            return Error::InvalidArgument;
          }
          dst[k] = static_cast<int32_t>(v);
        }
        next_shape_value += exprs->size();
        value = dst;
        value_size = exprs->size() * sizeof(int32_t);
        break;
      }
      case blob::ValueSource::OMITTED:
        // NULL/0 marks an omitted optional operand.
        break;
      default:
        continue;  // Rejected by load_blob.
    }
    rc = nn.ANeuralNetworksModel_setOperandValue(
        c->model_, static_cast<int32_t>(i), value, value_size);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksModel_setOperandValue failed for %s "
                      "(%zu bytes): %s",
                      blob.describe_operand(i).c_str(), value_size,
                      nnapi_describe_result(nn, rc).c_str());
      return build_error(rc);
    }
  }

  const uint32_t num_operations =
      root->operations() != nullptr ? root->operations()->size() : 0;
  for (uint32_t i = 0; i < num_operations; ++i) {
    const blob::Operation* op = root->operations()->Get(i);
    rc = nn.ANeuralNetworksModel_addOperation(
        c->model_, op->type(), list_size(op->inputs()), list_data(op->inputs()),
        list_size(op->outputs()), list_data(op->outputs()));
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksModel_addOperation failed for %s: %s",
                      describe_operation(root, i).c_str(),
                      nnapi_describe_result(nn, rc).c_str());
      return build_error(rc);
    }
  }

  rc = nn.ANeuralNetworksModel_identifyInputsAndOutputs(
      c->model_, list_size(root->model_inputs()),
      list_data(root->model_inputs()), list_size(root->model_outputs()),
      list_data(root->model_outputs()));
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_identifyInputsAndOutputs failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }

  if (root->relax_fp32_to_fp16()) {
    if (nn.ANeuralNetworksModel_relaxComputationFloat32toFloat16 == nullptr) {
      // Only a permission to be less precise: running in fp32 is correct.
      NNAPI_LOG_WARNING("this NNAPI has no relaxComputationFloat32toFloat16; "
                        "computing in float32");
    } else {
      rc = nn.ANeuralNetworksModel_relaxComputationFloat32toFloat16(c->model_,
                                                                   true);
      if (rc != ANEURALNETWORKS_NO_ERROR) {
        NNAPI_LOG_ERROR(
            "ANeuralNetworksModel_relaxComputationFloat32toFloat16 failed: %s",
            nnapi_describe_result(nn, rc).c_str());
        return build_error(rc);
      }
    }
  }

  rc = nn.ANeuralNetworksModel_finish(c->model_);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_finish failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }

  rc = nn.ANeuralNetworksCompilation_create(c->model_, &c->compilation_);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    c->compilation_ = nullptr;
    NNAPI_LOG_ERROR("ANeuralNetworksCompilation_create failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  rc = nn.ANeuralNetworksCompilation_setPreference(
      c->compilation_, ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksCompilation_setPreference failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  rc = nn.ANeuralNetworksCompilation_finish(c->compilation_);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksCompilation_finish failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }

  // Sizes of the delegate's tensors for these dims.
  const struct {
    const std::vector<ArgumentInfo>* args;
    std::vector<std::vector<uint32_t>>* dims;
    std::vector<size_t>* bytes;
  } sides[] = {
      {&blob.inputs(), &c->input_dims_, &c->input_bytes_},
      {&blob.outputs(), &c->output_dims_, &c->output_bytes_},
  };
  for (const auto& side : sides) {
    side.dims->resize(side.args->size());
    side.bytes->resize(side.args->size(), 0);
    for (size_t a = 0; a < side.args->size(); ++a) {
      const ArgumentInfo& arg = (*side.args)[a];
      if (!arg.is_tensor) {
        continue;
      }
      if (!blob.operand_dims(arg.operand, values, &(*side.dims)[a], &error)) {
        NNAPI_LOG_ERROR_STR(error);
        return Error::InvalidArgument;
      }
      if (!blob.byte_size(arg.operand, (*side.dims)[a], &(*side.bytes)[a])) {
        NNAPI_LOG_ERROR("%s is larger than NNAPI's 4 GiB limit",
                        blob.describe_operand(arg.operand).c_str());
        return Error::InvalidArgument;
      }
    }
  }

  *out = std::move(c);
  return Error::Ok;
}

Error CompiledModel::execute(const LoadedBlob& blob,
                             const std::vector<const void*>& inputs,
                             const std::vector<void*>& outputs) const {
  const NnapiApi& nn = *api_;
  ExecutionGuard guard{&nn};
  int rc = nn.ANeuralNetworksExecution_create(compilation_, &guard.execution);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    guard.execution = nullptr;
    NNAPI_LOG_ERROR("ANeuralNetworksExecution_create failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return rc == ANEURALNETWORKS_OUT_OF_MEMORY ? Error::MemoryAllocationFailed
                                               : Error::Internal;
  }
  for (size_t a = 0; a < blob.inputs().size(); ++a) {
    const ArgumentInfo& arg = blob.inputs()[a];
    if (!arg.is_tensor) {
      continue;
    }
    // type NULL: the model's (fully specified) operand type applies.
    rc = nn.ANeuralNetworksExecution_setInput(
        guard.execution, static_cast<int32_t>(arg.io_index), nullptr,
        inputs[a], input_bytes_[a]);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_setInput failed for input "
                      "argument %zu (model input %u, %zu bytes): %s",
                      a, arg.io_index, input_bytes_[a],
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
  }
  for (size_t a = 0; a < blob.outputs().size(); ++a) {
    const ArgumentInfo& arg = blob.outputs()[a];
    if (!arg.is_tensor) {
      continue;
    }
    rc = nn.ANeuralNetworksExecution_setOutput(
        guard.execution, static_cast<int32_t>(arg.io_index), nullptr,
        outputs[a], output_bytes_[a]);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_setOutput failed for output "
                      "argument %zu (model output %u, %zu bytes): %s",
                      a, arg.io_index, output_bytes_[a],
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
  }
  if (nn.feature_level >= ANEURALNETWORKS_FEATURE_LEVEL_3 &&
      nn.ANeuralNetworksExecution_compute != nullptr) {
    rc = nn.ANeuralNetworksExecution_compute(guard.execution);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_compute failed: %s",
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
  } else {
    rc = nn.ANeuralNetworksExecution_startCompute(guard.execution,
                                                  &guard.event);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      guard.event = nullptr;
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_startCompute failed: %s",
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
    rc = nn.ANeuralNetworksEvent_wait(guard.event);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksEvent_wait failed: %s",
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
  }
  return Error::Ok;
}

}  // namespace executorch_nnapi
