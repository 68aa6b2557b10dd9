// The forwarded NNAPI functions of the runtime, devices, models and compilations (the
// executions, bursts and events are in forwarding_executions.cpp). Each builds its Request
// (nnapi_forwarding.fbs) and returns the server's result.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "forwarding_calls.h"

namespace executorch_nnapi {
namespace forwarding {

bool operand_type(const char* function, flatbuffers::FlatBufferBuilder& fbb,
                  const ANeuralNetworksOperandType* type,
                  flatbuffers::Offset<protocol::OperandType>* out, int* rc) {
  *out = 0;
  if (type == nullptr) {
    return true;
  }
  if (type->dimensionCount > 0 && type->dimensions == nullptr) {
    *rc = connection().fail(ANEURALNETWORKS_BAD_DATA,
                            std::string(function) + ": dimensionCount is " +
                                std::to_string(type->dimensionCount) + " but dimensions is NULL");
    return false;
  }
  flatbuffers::Offset<flatbuffers::Vector<uint32_t>> dims = 0;
  if (type->dimensions != nullptr) {
    dims = fbb.CreateVector(type->dimensions, type->dimensionCount);
  }
  *out = protocol::CreateOperandType(fbb, type->type, dims, type->scale, type->zeroPoint);
  return true;
}

namespace {

// Device names live as long as the process: NNAPI hands out `const char*` that stay valid.
std::mutex device_names_mutex;
std::map<uint64_t, std::unique_ptr<std::string>>& device_names() {
  static auto* names = new std::map<uint64_t, std::unique_ptr<std::string>>();
  return *names;
}

flatbuffers::Offset<flatbuffers::Vector<uint32_t>> indexes(flatbuffers::FlatBufferBuilder& fbb,
                                                            const uint32_t* values, uint32_t count) {
  return fbb.CreateVector(values, values != nullptr ? count : 0);
}

}  // namespace
}  // namespace forwarding
}  // namespace executorch_nnapi

using namespace executorch_nnapi::forwarding;  // NOLINT: the C functions below use it throughout

// -- The runtime and its devices ----------------------------------------------------------------

FORWARDING_EXPORT int64_t ANeuralNetworks_getRuntimeFeatureLevel(void) {
  flatbuffers::FlatBufferBuilder fbb;
  ReplyMessage reply;
  if (connection().call(__func__, fbb, protocol::CreateGetRuntimeFeatureLevel(fbb), &reply) !=
      ANEURALNETWORKS_NO_ERROR) {
    // 0 tells the backend that NNAPI is unusable here; say why on the terminal.
    std::fprintf(stderr, "executorch-nnapi forwarding NNAPI: %s\n", connection().last_error().c_str());
    return 0;
  }
  return reply.reply()->number();
}

FORWARDING_EXPORT int ANeuralNetworks_getDeviceCount(uint32_t* numDevices) {
  if (numDevices == nullptr) return unexpected_null(__func__, "numDevices");
  flatbuffers::FlatBufferBuilder fbb;
  ReplyMessage reply;
  const int rc = connection().call(__func__, fbb, protocol::CreateGetDeviceCount(fbb), &reply);
  if (rc == ANEURALNETWORKS_NO_ERROR) {
    *numDevices = static_cast<uint32_t>(reply.reply()->number());
  }
  return rc;
}

FORWARDING_EXPORT int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice** device) {
  if (device == nullptr) return unexpected_null(__func__, "device");
  flatbuffers::FlatBufferBuilder fbb;
  return forward_create(__func__, fbb, protocol::CreateGetDevice(fbb, devIndex), device);
}

FORWARDING_EXPORT int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice* device,
                                                    const char** name) {
  if (name == nullptr) return unexpected_null(__func__, "name");
  flatbuffers::FlatBufferBuilder fbb;
  ReplyMessage reply;
  const int rc = connection().call(
      __func__, fbb, protocol::CreateDeviceGetName(fbb, handle_of(device)), &reply);
  if (rc == ANEURALNETWORKS_NO_ERROR) {
    const auto* text = reply.reply()->text();
    std::lock_guard<std::mutex> lock(device_names_mutex);
    auto& stored = device_names()[handle_of(device)];
    if (stored == nullptr) {
      stored = std::make_unique<std::string>(text != nullptr ? text->str() : std::string());
    }
    *name = stored->c_str();
  }
  return rc;
}

FORWARDING_EXPORT int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice* device,
                                                    int32_t* type) {
  if (type == nullptr) return unexpected_null(__func__, "type");
  flatbuffers::FlatBufferBuilder fbb;
  ReplyMessage reply;
  const int rc = connection().call(
      __func__, fbb, protocol::CreateDeviceGetType(fbb, handle_of(device)), &reply);
  if (rc == ANEURALNETWORKS_NO_ERROR) {
    *type = static_cast<int32_t>(reply.reply()->number());
  }
  return rc;
}

// -- Models -------------------------------------------------------------------------------------

FORWARDING_EXPORT int ANeuralNetworksModel_create(ANeuralNetworksModel** model) {
  if (model == nullptr) return unexpected_null(__func__, "model");
  flatbuffers::FlatBufferBuilder fbb;
  return forward_create(__func__, fbb, protocol::CreateModelCreate(fbb), model);
}

FORWARDING_EXPORT void ANeuralNetworksModel_free(ANeuralNetworksModel* model) {
  if (model == nullptr) return;
  flatbuffers::FlatBufferBuilder fbb;
  forward_free(__func__, fbb, protocol::CreateModelFree(fbb, handle_of(model)));
}

FORWARDING_EXPORT int ANeuralNetworksModel_finish(ANeuralNetworksModel* model) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(__func__, fbb, protocol::CreateModelFinish(fbb, handle_of(model)));
}

FORWARDING_EXPORT int ANeuralNetworksModel_addOperand(ANeuralNetworksModel* model,
                                                      const ANeuralNetworksOperandType* type) {
  if (type == nullptr) return unexpected_null(__func__, "type");
  flatbuffers::FlatBufferBuilder fbb;
  flatbuffers::Offset<protocol::OperandType> operand;
  int rc = ANEURALNETWORKS_NO_ERROR;
  if (!operand_type(__func__, fbb, type, &operand, &rc)) return rc;
  return forward_status(__func__, fbb,
                        protocol::CreateModelAddOperand(fbb, handle_of(model), operand));
}

FORWARDING_EXPORT int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel* model,
                                                           int32_t index, const void* buffer,
                                                           size_t length) {
  if (buffer == nullptr && length != 0) return unexpected_null(__func__, "buffer");
  flatbuffers::FlatBufferBuilder fbb(length + 256);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> value = 0;
  if (buffer != nullptr) {
    value = fbb.CreateVector(static_cast<const uint8_t*>(buffer), length);
  }
  return forward_status(__func__, fbb,
                        protocol::CreateModelSetOperandValue(fbb, handle_of(model), index, value));
}

FORWARDING_EXPORT int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
    ANeuralNetworksModel* model, int32_t index,
    const ANeuralNetworksSymmPerChannelQuantParams* channelQuant) {
  if (channelQuant == nullptr) return unexpected_null(__func__, "channelQuant");
  if (channelQuant->scales == nullptr && channelQuant->scaleCount != 0) {
    return unexpected_null(__func__, "channelQuant->scales");
  }
  flatbuffers::FlatBufferBuilder fbb;
  auto scales = fbb.CreateVector(channelQuant->scales,
                                 channelQuant->scales != nullptr ? channelQuant->scaleCount : 0);
  return forward_status(__func__, fbb,
                        protocol::CreateModelSetOperandSymmPerChannelQuantParams(
                            fbb, handle_of(model), index, channelQuant->channelDim, scales));
}

FORWARDING_EXPORT int ANeuralNetworksModel_setOperandValueFromModel(ANeuralNetworksModel* model,
                                                                    int32_t index,
                                                                    const ANeuralNetworksModel* value) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(__func__, fbb,
                        protocol::CreateModelSetOperandValueFromModel(fbb, handle_of(model), index,
                                                                      handle_of(value)));
}

FORWARDING_EXPORT int ANeuralNetworksModel_addOperation(ANeuralNetworksModel* model,
                                                        ANeuralNetworksOperationType type,
                                                        uint32_t inputCount, const uint32_t* inputs,
                                                        uint32_t outputCount,
                                                        const uint32_t* outputs) {
  if (inputs == nullptr && inputCount != 0) return unexpected_null(__func__, "inputs");
  if (outputs == nullptr && outputCount != 0) return unexpected_null(__func__, "outputs");
  flatbuffers::FlatBufferBuilder fbb;
  auto in = indexes(fbb, inputs, inputCount);
  auto out = indexes(fbb, outputs, outputCount);
  return forward_status(__func__, fbb,
                        protocol::CreateModelAddOperation(fbb, handle_of(model), type, in, out));
}

FORWARDING_EXPORT int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel* model,
                                                                    uint32_t inputCount,
                                                                    const uint32_t* inputs,
                                                                    uint32_t outputCount,
                                                                    const uint32_t* outputs) {
  if (inputs == nullptr && inputCount != 0) return unexpected_null(__func__, "inputs");
  if (outputs == nullptr && outputCount != 0) return unexpected_null(__func__, "outputs");
  flatbuffers::FlatBufferBuilder fbb;
  auto in = indexes(fbb, inputs, inputCount);
  auto out = indexes(fbb, outputs, outputCount);
  return forward_status(__func__, fbb,
                        protocol::CreateModelIdentifyInputsAndOutputs(fbb, handle_of(model), in, out));
}

FORWARDING_EXPORT int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel* model,
                                                                            bool allow) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(__func__, fbb,
                        protocol::CreateModelRelaxComputationFloat32toFloat16(fbb, handle_of(model),
                                                                              allow));
}

// -- Compilations -------------------------------------------------------------------------------

FORWARDING_EXPORT int ANeuralNetworksCompilation_create(ANeuralNetworksModel* model,
                                                        ANeuralNetworksCompilation** compilation) {
  if (compilation == nullptr) return unexpected_null(__func__, "compilation");
  flatbuffers::FlatBufferBuilder fbb;
  return forward_create(__func__, fbb, protocol::CreateCompilationCreate(fbb, handle_of(model)),
                        compilation);
}

FORWARDING_EXPORT int ANeuralNetworksCompilation_createForDevices(
    ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices, uint32_t numDevices,
    ANeuralNetworksCompilation** compilation) {
  if (compilation == nullptr) return unexpected_null(__func__, "compilation");
  if (devices == nullptr) return unexpected_null(__func__, "devices");
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<uint64_t> handles;
  for (uint32_t i = 0; i < numDevices; ++i) {
    handles.push_back(handle_of(devices[i]));
  }
  auto list = fbb.CreateVector(handles);
  return forward_create(
      __func__, fbb, protocol::CreateCompilationCreateForDevices(fbb, handle_of(model), list),
      compilation);
}

FORWARDING_EXPORT void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation* compilation) {
  if (compilation == nullptr) return;
  flatbuffers::FlatBufferBuilder fbb;
  forward_free(__func__, fbb, protocol::CreateCompilationFree(fbb, handle_of(compilation)));
}

FORWARDING_EXPORT int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation* compilation,
                                                               int32_t preference) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(
      __func__, fbb,
      protocol::CreateCompilationSetPreference(fbb, handle_of(compilation), preference));
}

FORWARDING_EXPORT int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation* compilation,
                                                            const char* cacheDir,
                                                            const uint8_t* token) {
  if (cacheDir == nullptr) return unexpected_null(__func__, "cacheDir");
  if (token == nullptr) return unexpected_null(__func__, "token");
  flatbuffers::FlatBufferBuilder fbb;
  auto directory = fbb.CreateString(cacheDir);
  auto bytes = fbb.CreateVector(token, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN);
  return forward_status(__func__, fbb,
                        protocol::CreateCompilationSetCaching(fbb, handle_of(compilation),
                                                              directory, bytes));
}

FORWARDING_EXPORT int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation* compilation,
                                                             int priority) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(
      __func__, fbb, protocol::CreateCompilationSetPriority(fbb, handle_of(compilation), priority));
}

FORWARDING_EXPORT int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation* compilation,
                                                            uint64_t duration) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(
      __func__, fbb, protocol::CreateCompilationSetTimeout(fbb, handle_of(compilation), duration));
}

FORWARDING_EXPORT int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation* compilation) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(__func__, fbb,
                        protocol::CreateCompilationFinish(fbb, handle_of(compilation)));
}

// -- Not NNAPI: the message of the last failed call (the backend adds it to its errors) ---------

FORWARDING_EXPORT int executorch_nnapi_host_last_error(char* buf, size_t len) {
  const std::string message = connection().last_error();
  if (buf != nullptr && len > 0) {
    const size_t n = std::min(message.size(), len - 1);
    std::memcpy(buf, message.data(), n);
    buf[n] = '\0';
  }
  return static_cast<int>(message.size());
}
