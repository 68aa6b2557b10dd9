#include "checking_nnapi.h"

#include <cstring>

namespace executorch_nnapi_checks {
namespace {

// What a model or compilation handle points at.
struct Handle {
  uint32_t kind;
};
constexpr uint32_t kModel = 1;
constexpr uint32_t kCompilation = 2;

// Reads `size` bytes at `data` (ASan checks each read).
void touch(const void* data, size_t size) {
  static volatile uint8_t sink = 0;
  const auto* bytes = static_cast<const uint8_t*>(data);
  uint8_t sum = 0;
  for (size_t i = 0; i < size; ++i) {
    sum = static_cast<uint8_t>(sum + bytes[i]);
  }
  sink = sum;
}

// A handle of `kind`: reading its kind fails under ASan if it was freed.
bool valid(const void* handle, uint32_t kind) {
  return handle != nullptr && static_cast<const Handle*>(handle)->kind == kind;
}

int model_create(ANeuralNetworksModel** model) {
  *model = reinterpret_cast<ANeuralNetworksModel*>(new Handle{kModel});
  return ANEURALNETWORKS_NO_ERROR;
}

void model_free(ANeuralNetworksModel* model) {
  delete reinterpret_cast<Handle*>(model);
}

int model_finish(ANeuralNetworksModel* model) {
  return valid(model, kModel) ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_BAD_STATE;
}

int add_operand(ANeuralNetworksModel* model, const ANeuralNetworksOperandType* type) {
  touch(type, sizeof(*type));
  if (type->dimensionCount > 0) {
    touch(type->dimensions, sizeof(uint32_t) * type->dimensionCount);
  }
  return model_finish(model);
}

int set_operand_value(ANeuralNetworksModel* model, int32_t, const void* buffer, size_t length) {
  if (buffer != nullptr) {
    touch(buffer, length);
  }
  return model_finish(model);
}

int set_per_channel(ANeuralNetworksModel* model, int32_t,
                    const ANeuralNetworksSymmPerChannelQuantParams* params) {
  touch(params, sizeof(*params));
  touch(params->scales, sizeof(float) * params->scaleCount);
  return model_finish(model);
}

int set_value_from_model(ANeuralNetworksModel* model, int32_t, const ANeuralNetworksModel* value) {
  return valid(value, kModel) ? model_finish(model) : ANEURALNETWORKS_BAD_DATA;
}

int add_operation(ANeuralNetworksModel* model, ANeuralNetworksOperationType, uint32_t input_count,
                  const uint32_t* inputs, uint32_t output_count, const uint32_t* outputs) {
  touch(inputs, sizeof(uint32_t) * input_count);
  touch(outputs, sizeof(uint32_t) * output_count);
  return model_finish(model);
}

int identify_inputs_and_outputs(ANeuralNetworksModel* model, uint32_t input_count,
                                const uint32_t* inputs, uint32_t output_count,
                                const uint32_t* outputs) {
  return add_operation(model, 0, input_count, inputs, output_count, outputs);
}

int relax(ANeuralNetworksModel* model, bool) { return model_finish(model); }

int compilation_create(ANeuralNetworksModel* model, ANeuralNetworksCompilation** compilation) {
  if (!valid(model, kModel)) {
    return ANEURALNETWORKS_BAD_DATA;
  }
  *compilation = reinterpret_cast<ANeuralNetworksCompilation*>(new Handle{kCompilation});
  return ANEURALNETWORKS_NO_ERROR;
}

void compilation_free(ANeuralNetworksCompilation* compilation) {
  delete reinterpret_cast<Handle*>(compilation);
}

int compilation_finish(ANeuralNetworksCompilation* compilation) {
  return valid(compilation, kCompilation) ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_BAD_STATE;
}

int set_preference(ANeuralNetworksCompilation* compilation, int32_t) {
  return compilation_finish(compilation);
}

int set_priority(ANeuralNetworksCompilation* compilation, int) {
  return compilation_finish(compilation);
}

int set_caching(ANeuralNetworksCompilation* compilation, const char* cache_dir, const uint8_t* token) {
  touch(cache_dir, std::strlen(cache_dir) + 1);
  touch(token, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN);
  return compilation_finish(compilation);
}

}  // namespace

std::shared_ptr<const executorch_nnapi::NnapiApi> checking_nnapi(int64_t feature_level) {
  auto api = std::make_shared<executorch_nnapi::NnapiApi>();  // every pointer null
  api->ANeuralNetworksModel_create = model_create;
  api->ANeuralNetworksModel_free = model_free;
  api->ANeuralNetworksModel_finish = model_finish;
  api->ANeuralNetworksModel_addOperand = add_operand;
  api->ANeuralNetworksModel_setOperandValue = set_operand_value;
  api->ANeuralNetworksModel_setOperandSymmPerChannelQuantParams = set_per_channel;
  api->ANeuralNetworksModel_setOperandValueFromModel = set_value_from_model;
  api->ANeuralNetworksModel_addOperation = add_operation;
  api->ANeuralNetworksModel_identifyInputsAndOutputs = identify_inputs_and_outputs;
  api->ANeuralNetworksModel_relaxComputationFloat32toFloat16 = relax;
  api->ANeuralNetworksCompilation_create = compilation_create;
  api->ANeuralNetworksCompilation_free = compilation_free;
  api->ANeuralNetworksCompilation_finish = compilation_finish;
  api->ANeuralNetworksCompilation_setPreference = set_preference;
  api->ANeuralNetworksCompilation_setPriority = set_priority;
  api->ANeuralNetworksCompilation_setCaching = set_caching;
  api->library_path = "(the blob fuzzer's checking NNAPI)";
  api->library_handle = nullptr;
  api->feature_level = feature_level;
  return api;
}

}  // namespace executorch_nnapi_checks
