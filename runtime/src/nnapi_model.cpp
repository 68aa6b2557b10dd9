#include "nnapi_model.h"

#include <chrono>
#include <cinttypes>
#include <cstring>
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
  // A burst goes before its compilation, the compilation before its model.
  if (burst_ != nullptr && api_->ANeuralNetworksBurst_free != nullptr) {
    api_->ANeuralNetworksBurst_free(burst_);
  }
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
                           const RuntimeOptions& options,
                           const Digest& model_digest,
                           std::unique_ptr<CompiledModel>* out,
                           const std::vector<uint32_t>& extra_outputs) {
  if (api == nullptr) {
    NNAPI_LOG_ERROR("no NNAPI library is loaded");
    return Error::InvalidState;
  }
  std::unique_ptr<CompiledModel> c(new (std::nothrow) CompiledModel());
  if (c == nullptr) {
    NNAPI_LOG_ERROR("out of memory building the NNAPI model");
    return Error::MemoryAllocationFailed;
  }
  c->api_ = std::move(api);
  c->options_ = options;
  c->extra_outputs_ = extra_outputs;
  // On failure `c` frees whatever was created so far.
  Error err = c->create_model();
  if (err == Error::Ok) {
    err = c->add_operands(blob, values);
  }
  if (err == Error::Ok) {
    err = c->add_operations(blob.root());
  }
  if (err == Error::Ok) {
    err = c->finish_model(blob.root());
  }
  if (err == Error::Ok) {
    err = c->compile(model_digest, values);
  }
  if (err == Error::Ok) {
    err = c->size_arguments(blob, values);
  }
  if (err != Error::Ok) {
    return err;
  }
  *out = std::move(c);
  return Error::Ok;
}

Error CompiledModel::create_model() {
  const int rc = api_->ANeuralNetworksModel_create(&model_);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    model_ = nullptr;
    NNAPI_LOG_ERROR("ANeuralNetworksModel_create failed: %s",
                    nnapi_describe_result(*api_, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

// Every operand in index order (NNAPI numbers them as they are added): its
// type for these sizes, then its quantization parameters and value.
Error CompiledModel::add_operands(const LoadedBlob& blob,
                                  const std::vector<int64_t>& values) {
  // Storage for every SHAPE_EXPRESSIONS value, sized up front so that it does
  // not move afterwards (NNAPI keeps pointers to values over 128 bytes).
  const uint32_t num_operands = static_cast<uint32_t>(blob.operands().size());
  size_t total_shape_values = 0;
  for (uint32_t i = 0; i < num_operands; ++i) {
    const blob::Operand* op = blob.root()->operands()->Get(i);
    if (op->source() == blob::ValueSource::SHAPE_EXPRESSIONS) {
      total_shape_values += op->value_exprs()->size();
    }
  }
  shape_values_.resize(total_shape_values);
  size_t next_shape_value = 0;

  std::vector<uint32_t> dims;
  std::string error;
  for (uint32_t i = 0; i < num_operands; ++i) {
    if (!blob.operand_dims(i, values, &dims, &error)) {
      NNAPI_LOG_ERROR_STR(error);
      return Error::InvalidArgument;
    }
    Error err = add_operand(blob, i, dims);
    if (err == Error::Ok) {
      err = set_per_channel_params(blob, i, dims);
    }
    if (err == Error::Ok) {
      err = set_operand_value(blob, i, dims, values, &next_shape_value);
    }
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

Error CompiledModel::add_operand(const LoadedBlob& blob, uint32_t i,
                                 const std::vector<uint32_t>& dims) {
  const blob::Operand* op = blob.root()->operands()->Get(i);
  const OperandInfo& info = blob.operands()[i];
  ANeuralNetworksOperandType type;
  type.type = info.type;
  type.dimensionCount = static_cast<uint32_t>(dims.size());
  type.dimensions = dims.empty() ? nullptr : dims.data();
  type.scale = op->scale();
  type.zeroPoint = op->zero_point();
  const int rc = api_->ANeuralNetworksModel_addOperand(model_, &type);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_addOperand failed for %s (type "
                    "%d, rank %zu): %s",
                    blob.describe_operand(i).c_str(), info.type, dims.size(),
                    nnapi_describe_result(*api_, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

Error CompiledModel::set_per_channel_params(const LoadedBlob& blob, uint32_t i,
                                            const std::vector<uint32_t>& dims) {
  const NnapiApi& nn = *api_;
  const blob::PerChannelQuant* pc =
      blob.root()->operands()->Get(i)->per_channel();
  if (pc == nullptr) {
    return Error::Ok;
  }
  if (nn.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams == nullptr) {
    NNAPI_LOG_ERROR(
        "%s uses per-channel quantization, which needs "
        "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams "
        "(NNAPI feature level 29); this NNAPI (level %s) does not have "
        "it",
        blob.describe_operand(i).c_str(),
        nnapi_feature_level_name(nn.feature_level).c_str());
    return Error::DelegateInvalidCompatibility;
  }
  // A dynamic channel dim is only known now.
  if (pc->scales()->size() != dims[pc->channel_dim()]) {
    NNAPI_LOG_ERROR("%s has %u per-channel scales for %u channels",
                    blob.describe_operand(i).c_str(), pc->scales()->size(),
                    dims[pc->channel_dim()]);
    return Error::InvalidProgram;
  }
  ANeuralNetworksSymmPerChannelQuantParams params;
  params.channelDim = pc->channel_dim();
  params.scaleCount = pc->scales()->size();
  params.scales = pc->scales()->data();
  const int rc = nn.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
      model_, static_cast<int32_t>(i), &params);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_setOperandSymmPerChannelQuant"
                    "Params failed for %s: %s",
                    blob.describe_operand(i).c_str(),
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

// Evaluates operand i's SHAPE_EXPRESSIONS into shape_values_ at
// *next_shape_value (advanced past them); *value points at them.
Error CompiledModel::evaluate_value_expressions(
    const LoadedBlob& blob, uint32_t i, const std::vector<int64_t>& values,
    size_t* next_shape_value, const int32_t** value) {
  const auto* exprs = blob.root()->operands()->Get(i)->value_exprs();
  int32_t* dst = shape_values_.data() + *next_shape_value;
  for (uint32_t k = 0; k < exprs->size(); ++k) {
    const size_t e = static_cast<size_t>(exprs->Get(k));
    const int64_t v = values[e];
    if (v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max()) {
      NNAPI_LOG_ERROR("%s value %u = %s is %" PRId64
                      " for these input sizes, which does not fit NNAPI's "
                      "int32",
                      blob.describe_operand(i).c_str(), k,
                      blob.shape_program().expression_text(e).c_str(), v);
      return Error::InvalidArgument;
    }
    dst[k] = static_cast<int32_t>(v);
  }
  *next_shape_value += exprs->size();
  *value = dst;
  return Error::Ok;
}

// Operand i's constant value, if it has one (NONE: a temporary or a model
// input/output; OMITTED: NULL/0, which marks an omitted optional operand).
Error CompiledModel::set_operand_value(const LoadedBlob& blob, uint32_t i,
                                       const std::vector<uint32_t>& dims,
                                       const std::vector<int64_t>& values,
                                       size_t* next_shape_value) {
  const blob::Operand* op = blob.root()->operands()->Get(i);
  const OperandInfo& info = blob.operands()[i];
  const void* value = nullptr;
  size_t value_size = 0;
  switch (op->source()) {
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
      const int32_t* evaluated = nullptr;
      const Error err = evaluate_value_expressions(
          blob, i, values, next_shape_value, &evaluated);
      if (err != Error::Ok) {
        return err;
      }
      value = evaluated;
      value_size = op->value_exprs()->size() * sizeof(int32_t);
      break;
    }
    case blob::ValueSource::OMITTED:
      break;
    case blob::ValueSource::NONE:
      return Error::Ok;
    default:
      return Error::Ok;  // Rejected by load_blob.
  }
  const int rc = api_->ANeuralNetworksModel_setOperandValue(
      model_, static_cast<int32_t>(i), value, value_size);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_setOperandValue failed for %s "
                    "(%zu bytes): %s",
                    blob.describe_operand(i).c_str(), value_size,
                    nnapi_describe_result(*api_, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

Error CompiledModel::add_operations(const blob::Blob* root) {
  const uint32_t num_operations =
      root->operations() != nullptr ? root->operations()->size() : 0;
  for (uint32_t i = 0; i < num_operations; ++i) {
    const blob::Operation* op = root->operations()->Get(i);
    const int rc = api_->ANeuralNetworksModel_addOperation(
        model_, op->type(), list_size(op->inputs()), list_data(op->inputs()),
        list_size(op->outputs()), list_data(op->outputs()));
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksModel_addOperation failed for %s: %s",
                      describe_operation(root, i).c_str(),
                      nnapi_describe_result(*api_, rc).c_str());
      return build_error(rc);
    }
  }
  return Error::Ok;
}

// Names the model's inputs and outputs, allows fp16 if the blob asks, and
// finishes the model.
Error CompiledModel::finish_model(const blob::Blob* root) {
  const NnapiApi& nn = *api_;
  std::vector<uint32_t> outputs(list_data(root->model_outputs()),
                                list_data(root->model_outputs()) +
                                    list_size(root->model_outputs()));
  outputs.insert(outputs.end(), extra_outputs_.begin(), extra_outputs_.end());
  int rc = nn.ANeuralNetworksModel_identifyInputsAndOutputs(
      model_, list_size(root->model_inputs()), list_data(root->model_inputs()),
      static_cast<uint32_t>(outputs.size()), outputs.data());
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_identifyInputsAndOutputs failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  // A load-time relax_fp32_to_fp16 overrides the blob's (lowering) choice.
  const bool relax = options_.relax_fp32_to_fp16 >= 0
                         ? options_.relax_fp32_to_fp16 == 1
                         : root->relax_fp32_to_fp16();
  if (relax) {
    if (nn.ANeuralNetworksModel_relaxComputationFloat32toFloat16 == nullptr) {
      // Only a permission to be less precise: running in fp32 is correct.
      NNAPI_LOG_WARNING("this NNAPI has no relaxComputationFloat32toFloat16; "
                        "computing in float32");
    } else {
      rc = nn.ANeuralNetworksModel_relaxComputationFloat32toFloat16(model_,
                                                                   true);
      if (rc != ANEURALNETWORKS_NO_ERROR) {
        NNAPI_LOG_ERROR(
            "ANeuralNetworksModel_relaxComputationFloat32toFloat16 failed: %s",
            nnapi_describe_result(nn, rc).c_str());
        return build_error(rc);
      }
    }
  }
  rc = nn.ANeuralNetworksModel_finish(model_);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksModel_finish failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

// The devices the options ask for, in NNAPI's order. Fails (logged) when no
// device matches: compiling elsewhere would silently ignore the user's choice.
Error CompiledModel::select_devices(
    std::vector<const ANeuralNetworksDevice*>* devices) {
  const NnapiApi& nn = *api_;
  if (nn.ANeuralNetworks_getDeviceCount == nullptr ||
      nn.ANeuralNetworks_getDevice == nullptr ||
      nn.ANeuralNetworksDevice_getName == nullptr ||
      nn.ANeuralNetworksDevice_getType == nullptr ||
      nn.ANeuralNetworksCompilation_createForDevices == nullptr) {
    NNAPI_LOG_WARNING("this NNAPI has no device API; the device options are "
                      "skipped and NNAPI chooses the devices");
    return Error::Ok;
  }
  uint32_t count = 0;
  int rc = nn.ANeuralNetworks_getDeviceCount(&count);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworks_getDeviceCount failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return Error::DelegateInvalidCompatibility;
  }
  std::string available;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    const char* name = nullptr;
    int32_t type = ANEURALNETWORKS_DEVICE_UNKNOWN;
    if (nn.ANeuralNetworks_getDevice(i, &device) != ANEURALNETWORKS_NO_ERROR ||
        nn.ANeuralNetworksDevice_getName(device, &name) != ANEURALNETWORKS_NO_ERROR ||
        nn.ANeuralNetworksDevice_getType(device, &type) != ANEURALNETWORKS_NO_ERROR ||
        name == nullptr) {
      continue;  // A device that cannot describe itself is not chosen.
    }
    static const char* const kTypeNames[] = {"unknown", "other", "cpu", "gpu",
                                             "accelerator"};
    const char* type_name =
        type >= 0 && type <= ANEURALNETWORKS_DEVICE_ACCELERATOR ? kTypeNames[type]
                                                                : "unknown";
    available += format_message("%s%s (%s)", available.empty() ? "" : ", ",
                                name, type_name);
    // NNAPI's own CPU implementation is named "nnapi-reference".
    if (options_.disallow_nnapi_cpu && std::strcmp(name, "nnapi-reference") == 0) {
      continue;
    }
    if (!options_.accelerator_name.empty() && options_.accelerator_name != name) {
      continue;
    }
    if (!options_.accelerator_type.empty() && options_.accelerator_type != type_name) {
      continue;
    }
    devices->push_back(device);
  }
  if (devices->empty()) {
    NNAPI_LOG_ERROR(
        "no NNAPI device matches accelerator_name='%s' accelerator_type='%s' "
        "disallow_nnapi_cpu=%s; the devices are: %s",
        options_.accelerator_name.c_str(), options_.accelerator_type.c_str(),
        options_.disallow_nnapi_cpu ? "true" : "false",
        available.empty() ? "(none)" : available.c_str());
    return Error::DelegateInvalidCompatibility;
  }
  return Error::Ok;
}

Error CompiledModel::create_compilation() {
  const NnapiApi& nn = *api_;
  std::vector<const ANeuralNetworksDevice*> devices;
  if (options_.selects_devices()) {
    const Error err = select_devices(&devices);
    if (err != Error::Ok) {
      return err;
    }
  }
  int rc = ANEURALNETWORKS_NO_ERROR;
  if (devices.empty()) {
    rc = nn.ANeuralNetworksCompilation_create(model_, &compilation_);
  } else {
    // No CPU fallback: every operation must run on the chosen devices.
    rc = nn.ANeuralNetworksCompilation_createForDevices(
        model_, devices.data(), static_cast<uint32_t>(devices.size()),
        &compilation_);
  }
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    compilation_ = nullptr;
    NNAPI_LOG_ERROR("ANeuralNetworksCompilation_%s failed: %s",
                    devices.empty() ? "create" : "createForDevices",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  num_devices_ = devices.size();
  return Error::Ok;
}

// Preference, priority, caching and the compilation timeout, each only when
// set (drop_options_above_level already removed what the level lacks).
Error CompiledModel::configure_compilation(const Digest& model_digest,
                                           const std::vector<int64_t>& values) {
  const NnapiApi& nn = *api_;
  int rc = nn.ANeuralNetworksCompilation_setPreference(
      compilation_, options_.execution_preference);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksCompilation_setPreference(%d) failed: %s",
                    options_.execution_preference,
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  if (options_.priority != 0 && nn.ANeuralNetworksCompilation_setPriority != nullptr) {
    rc = nn.ANeuralNetworksCompilation_setPriority(compilation_, options_.priority);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksCompilation_setPriority(%d) failed: %s",
                      options_.priority, nnapi_describe_result(nn, rc).c_str());
      return build_error(rc);
    }
  }
  if (!options_.cache_dir.empty() && nn.ANeuralNetworksCompilation_setCaching != nullptr) {
    uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN];
    cache_token(model_digest, values, token);
    rc = nn.ANeuralNetworksCompilation_setCaching(
        compilation_, options_.cache_dir.c_str(), token);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksCompilation_setCaching('%s') failed: %s",
                      options_.cache_dir.c_str(),
                      nnapi_describe_result(nn, rc).c_str());
      return build_error(rc);
    }
  }
  if (options_.compilation_timeout_ms != 0 &&
      nn.ANeuralNetworksCompilation_setTimeout != nullptr) {
    if (num_devices_ != 1) {
      // NNAPI accepts a timeout only for a compilation on exactly one device.
      NNAPI_LOG_WARNING("option 'compilation_timeout_ms' skipped: NNAPI takes "
                        "a timeout only when exactly one device is selected "
                        "(set accelerator_name)");
    } else {
      rc = nn.ANeuralNetworksCompilation_setTimeout(
          compilation_, static_cast<uint64_t>(options_.compilation_timeout_ms) * 1000000u);
      if (rc != ANEURALNETWORKS_NO_ERROR) {
        NNAPI_LOG_ERROR("ANeuralNetworksCompilation_setTimeout failed: %s",
                        nnapi_describe_result(nn, rc).c_str());
        return build_error(rc);
      }
    }
  }
  return Error::Ok;
}

Error CompiledModel::compile(const Digest& model_digest,
                             const std::vector<int64_t>& values) {
  const NnapiApi& nn = *api_;
  Error err = create_compilation();
  if (err == Error::Ok) {
    err = configure_compilation(model_digest, values);
  }
  if (err != Error::Ok) {
    return err;
  }
  const auto start = std::chrono::steady_clock::now();
  const int rc = nn.ANeuralNetworksCompilation_finish(compilation_);
  compilation_ns_ = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now() - start)
          .count());
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksCompilation_finish failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return build_error(rc);
  }
  return Error::Ok;
}

// The dims and byte sizes of the delegate's tensors for these sizes.
Error CompiledModel::size_arguments(const LoadedBlob& blob,
                                    const std::vector<int64_t>& values) {
  const struct {
    const std::vector<ArgumentInfo>* args;
    std::vector<std::vector<uint32_t>>* dims;
    std::vector<std::vector<int64_t>>* tensor_dims;
    std::vector<size_t>* bytes;
  } sides[] = {
      {&blob.inputs(), &input_dims_, &input_tensor_dims_, &input_bytes_},
      {&blob.outputs(), &output_dims_, &output_tensor_dims_, &output_bytes_},
  };
  std::string error;
  for (const auto& side : sides) {
    side.dims->resize(side.args->size());
    side.tensor_dims->resize(side.args->size());
    side.bytes->resize(side.args->size(), 0);
    for (size_t a = 0; a < side.args->size(); ++a) {
      const ArgumentInfo& arg = (*side.args)[a];
      if (!arg.is_tensor) {
        continue;
      }
      if (!blob.operand_dims(arg.operand, values, &(*side.dims)[a], &error) ||
          !blob.tensor_dims(arg, values, &(*side.tensor_dims)[a], &error)) {
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
  extra_output_dims_.resize(extra_outputs_.size());
  extra_output_bytes_.resize(extra_outputs_.size(), 0);
  for (size_t k = 0; k < extra_outputs_.size(); ++k) {
    if (!blob.operand_dims(extra_outputs_[k], values, &extra_output_dims_[k],
                           &error) ||
        !blob.byte_size(extra_outputs_[k], extra_output_dims_[k],
                        &extra_output_bytes_[k])) {
      NNAPI_LOG_ERROR("cannot size the debug output %s: %s",
                      blob.describe_operand(extra_outputs_[k]).c_str(),
                      error.c_str());
      return Error::InvalidArgument;
    }
  }
  return Error::Ok;
}

Error CompiledModel::execute(const LoadedBlob& blob,
                             const std::vector<const void*>& inputs,
                             const std::vector<void*>& outputs,
                             ExecutionProbe* probe) {
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
  if (options_.execution_timeout_ms != 0 &&
      nn.ANeuralNetworksExecution_setTimeout != nullptr) {
    if (num_devices_ != 1) {
      NNAPI_LOG_WARNING("option 'execution_timeout_ms' skipped: NNAPI takes a "
                        "timeout only when exactly one device is selected "
                        "(set accelerator_name)");
    } else {
      rc = nn.ANeuralNetworksExecution_setTimeout(
          guard.execution,
          static_cast<uint64_t>(options_.execution_timeout_ms) * 1000000u);
      if (rc != ANEURALNETWORKS_NO_ERROR) {
        NNAPI_LOG_ERROR("ANeuralNetworksExecution_setTimeout failed: %s",
                        nnapi_describe_result(nn, rc).c_str());
        return Error::Internal;
      }
    }
  }
  if (probe == nullptr) {
    return run(guard.execution, &guard.event);
  }
  Error err = bind_extra_outputs(guard.execution,
                                 list_size(blob.root()->model_outputs()), *probe);
  if (err != Error::Ok) {
    return err;
  }
  if (probe->measure_timing) {
    if (nn.ANeuralNetworksExecution_setMeasureTiming == nullptr ||
        num_devices_ != 1) {
      NNAPI_LOG_WARNING("option 'measure_timing' skipped: NNAPI times an "
                        "execution only at feature level 29+ with exactly one "
                        "device selected (set accelerator_name)");
      probe->measure_timing = false;
    } else if ((rc = nn.ANeuralNetworksExecution_setMeasureTiming(
                    guard.execution, true)) != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_setMeasureTiming failed: %s",
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
  }
  err = run(guard.execution, &guard.event);
  if (err == Error::Ok) {
    read_timing(guard.execution, probe);
  }
  return err;
}

Error CompiledModel::bind_extra_outputs(ANeuralNetworksExecution* execution,
                                        size_t first_index,
                                        const ExecutionProbe& probe) {
  if (probe.extra_buffers.size() != extra_outputs_.size()) {
    NNAPI_LOG_ERROR("%zu buffers for %zu debug outputs",
                    probe.extra_buffers.size(), extra_outputs_.size());
    return Error::InvalidArgument;
  }
  for (size_t k = 0; k < extra_outputs_.size(); ++k) {
    const int rc = api_->ANeuralNetworksExecution_setOutput(
        execution, static_cast<int32_t>(first_index + k), nullptr,
        probe.extra_buffers[k], extra_output_bytes_[k]);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_setOutput failed for debug "
                      "output %zu (operand %u): %s",
                      k, extra_outputs_[k],
                      nnapi_describe_result(*api_, rc).c_str());
      return Error::Internal;
    }
  }
  return Error::Ok;
}

// After a computation: NNAPI's own durations (when asked) and, from the host
// shim, each operation's.
void CompiledModel::read_timing(ANeuralNetworksExecution* execution,
                                ExecutionProbe* probe) const {
  const NnapiApi& nn = *api_;
  if (probe->measure_timing) {
    nn.ANeuralNetworksExecution_getDuration(
        execution, ANEURALNETWORKS_DURATION_ON_HARDWARE, &probe->on_hardware_ns);
    nn.ANeuralNetworksExecution_getDuration(
        execution, ANEURALNETWORKS_DURATION_IN_DRIVER, &probe->in_driver_ns);
  }
  probe->operation_ns.clear();
  if (nn.executorch_nnapi_host_operation_durations == nullptr) {
    return;
  }
  uint32_t count = 0;
  if (nn.executorch_nnapi_host_operation_durations(execution, nullptr, 0,
                                                   &count) !=
      ANEURALNETWORKS_NO_ERROR) {
    return;
  }
  probe->operation_ns.resize(count);
  if (nn.executorch_nnapi_host_operation_durations(
          execution, probe->operation_ns.data(), count, &count) !=
      ANEURALNETWORKS_NO_ERROR) {
    probe->operation_ns.clear();
  }
}

// Computes one execution: through the burst (created on first use) when
// asked, else synchronously (API 29) or with startCompute + wait (API 27).
Error CompiledModel::run(ANeuralNetworksExecution* execution,
                         ANeuralNetworksEvent** event) {
  const NnapiApi& nn = *api_;
  int rc = ANEURALNETWORKS_NO_ERROR;
  if (options_.use_burst && nn.ANeuralNetworksBurst_create != nullptr &&
      nn.ANeuralNetworksExecution_burstCompute != nullptr) {
    if (burst_ == nullptr) {
      rc = nn.ANeuralNetworksBurst_create(compilation_, &burst_);
      if (rc != ANEURALNETWORKS_NO_ERROR) {
        burst_ = nullptr;
        NNAPI_LOG_ERROR("ANeuralNetworksBurst_create failed: %s",
                        nnapi_describe_result(nn, rc).c_str());
        return Error::Internal;
      }
    }
    rc = nn.ANeuralNetworksExecution_burstCompute(execution, burst_);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_burstCompute failed: %s",
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
    return Error::Ok;
  }
  if (nn.feature_level >= ANEURALNETWORKS_FEATURE_LEVEL_3 &&
      nn.ANeuralNetworksExecution_compute != nullptr) {
    rc = nn.ANeuralNetworksExecution_compute(execution);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_compute failed: %s",
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
    }
    return Error::Ok;
  }
  rc = nn.ANeuralNetworksExecution_startCompute(execution, event);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    *event = nullptr;
    NNAPI_LOG_ERROR("ANeuralNetworksExecution_startCompute failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return Error::Internal;
  }
  rc = nn.ANeuralNetworksEvent_wait(*event);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_ERROR("ANeuralNetworksEvent_wait failed: %s",
                    nnapi_describe_result(nn, rc).c_str());
    return Error::Internal;
  }
  return Error::Ok;
}

}  // namespace executorch_nnapi
