#include "nnapi_model.h"

#include <chrono>
#include <cinttypes>
#include <cstring>
#include <limits>
#include <new>

#include "error_log.h"
#include "model_building.h"

namespace executorch_nnapi {

using executorch::runtime::Error;

namespace {

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
  for (ANeuralNetworksModel* referenced : subgraph_models_) {
    if (referenced != nullptr) {
      api_->ANeuralNetworksModel_free(referenced);
    }
  }
}

// Number of SHAPE_EXPRESSIONS values among a model's operands.
static size_t count_shape_values(const blob::Blob* tables) {
  size_t total = 0;
  const uint32_t n = tables->operands() != nullptr ? tables->operands()->size() : 0;
  for (uint32_t i = 0; i < n; ++i) {
    const blob::Operand* op = tables->operands()->Get(i);
    if (op->source() == blob::ValueSource::SHAPE_EXPRESSIONS) {
      total += op->value_exprs()->size();
    }
  }
  return total;
}

Error CompiledModel::build(std::shared_ptr<const NnapiApi> api,
                           const LoadedBlob& blob,
                           const std::vector<int64_t>& values,
                           const RuntimeOptions& options,
                           const Digest& model_digest,
                           const ConstantMemory* constants,
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
  c->constants_ = constants;
  c->extra_outputs_ = extra_outputs;
  // Storage for every SHAPE_EXPRESSIONS value of every model, sized up front
  // so that it does not move afterwards (NNAPI keeps pointers to values over
  // 128 bytes).
  size_t total_shape_values = count_shape_values(blob.root());
  const auto& order = blob.subgraph_build_order();
  for (uint32_t k : order) {
    total_shape_values += count_shape_values(blob.subgraph(k));
  }
  c->shape_values_.resize(total_shape_values);
  // The referenced models first: a MODEL operand's value is a finished model.
  // On failure `c` frees whatever was created so far.
  c->subgraph_models_.assign(order.size(), nullptr);
  Error err = Error::Ok;
  for (size_t n = 0; n < order.size() && err == Error::Ok; ++n) {
    err = c->build_model(blob, blob.subgraph(order[n]), values,
                         &c->subgraph_models_[order[n]]);
  }
  if (err == Error::Ok) {
    err = c->build_model(blob, blob.root(), values, &c->model_);
  }
  if (err == Error::Ok) {
    // NNAPI's cache token: what the model depends on, not run-time values.
    err = c->compile(model_digest, blob.compiled_model_key(values));
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

Error CompiledModel::set_run_time_values(const LoadedBlob& blob,
                                         const std::vector<int64_t>& values) {
  const std::vector<uint32_t>& operands = blob.run_time_operands();
  run_time_inputs_.resize(operands.size());
  std::string error;
  for (size_t j = 0; j < operands.size(); ++j) {
    if (!blob.run_time_values(operands[j], values, &run_time_inputs_[j],
                              &error)) {
      NNAPI_LOG_ERROR_STR(error);
      return Error::InvalidArgument;
    }
  }
  return Error::Ok;
}

size_t CompiledModel::run_time_bytes() const {
  size_t total = 0;
  for (const std::vector<int32_t>& v : run_time_inputs_) {
    total += v.size() * sizeof(int32_t);
  }
  return total;
}

Error CompiledModel::execute(const LoadedBlob& blob,
                             const std::vector<const void*>& inputs,
                             const std::vector<void*>& outputs,
                             const DelegateState* state,
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
  const size_t first_run_time = list_size(blob.root()->model_inputs());
  for (size_t j = 0; j < run_time_inputs_.size(); ++j) {
    const std::vector<int32_t>& v = run_time_inputs_[j];
    rc = nn.ANeuralNetworksExecution_setInput(
        guard.execution, static_cast<int32_t>(first_run_time + j), nullptr,
        v.data(), v.size() * sizeof(int32_t));
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_setInput failed for the "
                      "run-time values of %s: %s",
                      blob.describe_operand(blob.run_time_operands()[j]).c_str(),
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
  if (state != nullptr) {
    const Error err = state->bind(guard.execution);
    if (err != Error::Ok) {
      return err;
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
  if (options_.loop_timeout_ms != 0 &&
      nn.ANeuralNetworksExecution_setLoopTimeout != nullptr) {
    rc = nn.ANeuralNetworksExecution_setLoopTimeout(
        guard.execution,
        static_cast<uint64_t>(options_.loop_timeout_ms) * 1000000u);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
      NNAPI_LOG_ERROR("ANeuralNetworksExecution_setLoopTimeout failed: %s",
                      nnapi_describe_result(nn, rc).c_str());
      return Error::Internal;
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
