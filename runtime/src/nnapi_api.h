// The NNAPI C API, reached only through dlopen + dlsym.
//
// No NDK header is used: the handle types, structs and constants below are
// transcribed from the NNAPI specification (NeuralNetworks.h), so the backend
// builds for the host (where our shim library stands in for NNAPI) and for
// any Android API level. A function the loaded library does not export (an
// older Android) leaves its pointer null; callers check before use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

extern "C" {

// Opaque handles (API 27 unless noted).
typedef struct ANeuralNetworksMemory ANeuralNetworksMemory;
typedef struct ANeuralNetworksModel ANeuralNetworksModel;
typedef struct ANeuralNetworksCompilation ANeuralNetworksCompilation;
typedef struct ANeuralNetworksExecution ANeuralNetworksExecution;
typedef struct ANeuralNetworksEvent ANeuralNetworksEvent;
typedef struct ANeuralNetworksBurst ANeuralNetworksBurst;        // 29
typedef struct ANeuralNetworksDevice ANeuralNetworksDevice;      // 29
typedef struct ANeuralNetworksMemoryDesc ANeuralNetworksMemoryDesc;  // 30
// From <android/hardware_buffer.h>; only ever passed through as a pointer.
typedef struct AHardwareBuffer AHardwareBuffer;

typedef int32_t ANeuralNetworksOperationType;

typedef struct ANeuralNetworksOperandType {
  int32_t type;
  uint32_t dimensionCount;
  const uint32_t* dimensions;
  float scale;
  int32_t zeroPoint;
} ANeuralNetworksOperandType;

typedef struct ANeuralNetworksSymmPerChannelQuantParams {
  uint32_t channelDim;
  uint32_t scaleCount;
  const float* scales;
} ANeuralNetworksSymmPerChannelQuantParams;

}  // extern "C"

// The layout is fixed by the NNAPI ABI (AOSP static_asserts the same).
static_assert(sizeof(ANeuralNetworksOperandType) == 16 + sizeof(void*),
              "ANeuralNetworksOperandType layout");
static_assert(sizeof(ANeuralNetworksSymmPerChannelQuantParams) ==
                  8 + sizeof(void*),
              "ANeuralNetworksSymmPerChannelQuantParams layout");

namespace executorch_nnapi {

// ResultCode.
enum : int {
  ANEURALNETWORKS_NO_ERROR = 0,
  ANEURALNETWORKS_OUT_OF_MEMORY = 1,
  ANEURALNETWORKS_INCOMPLETE = 2,
  ANEURALNETWORKS_UNEXPECTED_NULL = 3,
  ANEURALNETWORKS_BAD_DATA = 4,
  ANEURALNETWORKS_OP_FAILED = 5,
  ANEURALNETWORKS_BAD_STATE = 6,
  ANEURALNETWORKS_UNMAPPABLE = 7,
  ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE = 8,
  ANEURALNETWORKS_UNAVAILABLE_DEVICE = 9,
  ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT = 10,
  ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT = 11,
  ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT = 12,
  ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT = 13,
  ANEURALNETWORKS_DEAD_OBJECT = 14,
};

// OperandCode.
enum : int32_t {
  ANEURALNETWORKS_FLOAT32 = 0,
  ANEURALNETWORKS_INT32 = 1,
  ANEURALNETWORKS_UINT32 = 2,
  ANEURALNETWORKS_TENSOR_FLOAT32 = 3,
  ANEURALNETWORKS_TENSOR_INT32 = 4,
  ANEURALNETWORKS_TENSOR_QUANT8_ASYMM = 5,
  ANEURALNETWORKS_BOOL = 6,
  ANEURALNETWORKS_TENSOR_QUANT16_SYMM = 7,
  ANEURALNETWORKS_TENSOR_FLOAT16 = 8,
  ANEURALNETWORKS_TENSOR_BOOL8 = 9,
  ANEURALNETWORKS_FLOAT16 = 10,
  ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  ANEURALNETWORKS_TENSOR_QUANT16_ASYMM = 12,
  ANEURALNETWORKS_TENSOR_QUANT8_SYMM = 13,
  ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED = 14,
  ANEURALNETWORKS_MODEL = 15,
};

// PreferenceCode.
enum : int32_t {
  ANEURALNETWORKS_PREFER_LOW_POWER = 0,
  ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER = 1,
  ANEURALNETWORKS_PREFER_SUSTAINED_SPEED = 2,
};

// FeatureLevelCode (values up to FL5 equal the Android API level).
enum : int64_t {
  ANEURALNETWORKS_FEATURE_LEVEL_1 = 27,
  ANEURALNETWORKS_FEATURE_LEVEL_2 = 28,
  ANEURALNETWORKS_FEATURE_LEVEL_3 = 29,
  ANEURALNETWORKS_FEATURE_LEVEL_4 = 30,
  ANEURALNETWORKS_FEATURE_LEVEL_5 = 31,
  ANEURALNETWORKS_FEATURE_LEVEL_6 = 1000006,
  ANEURALNETWORKS_FEATURE_LEVEL_7 = 1000007,
  ANEURALNETWORKS_FEATURE_LEVEL_8 = 1000008,
};

/// The NNAPI function table: one pointer per C function, exact signatures.
/// A pointer is null when the loaded library does not export the symbol.
struct NnapiApi {
  // Memory (4.2).
  int (*ANeuralNetworksMemory_createFromFd)(size_t size, int protect, int fd,
                                            size_t offset,
                                            ANeuralNetworksMemory** memory);
  int (*ANeuralNetworksMemory_createFromAHardwareBuffer)(
      const AHardwareBuffer* ahwb, ANeuralNetworksMemory** memory);
  void (*ANeuralNetworksMemory_free)(ANeuralNetworksMemory* memory);
  int (*ANeuralNetworksMemoryDesc_create)(ANeuralNetworksMemoryDesc** desc);
  void (*ANeuralNetworksMemoryDesc_free)(ANeuralNetworksMemoryDesc* desc);
  int (*ANeuralNetworksMemoryDesc_addInputRole)(
      ANeuralNetworksMemoryDesc* desc,
      const ANeuralNetworksCompilation* compilation, uint32_t index,
      float frequency);
  int (*ANeuralNetworksMemoryDesc_addOutputRole)(
      ANeuralNetworksMemoryDesc* desc,
      const ANeuralNetworksCompilation* compilation, uint32_t index,
      float frequency);
  int (*ANeuralNetworksMemoryDesc_setDimensions)(
      ANeuralNetworksMemoryDesc* desc, uint32_t rank,
      const uint32_t* dimensions);
  int (*ANeuralNetworksMemoryDesc_finish)(ANeuralNetworksMemoryDesc* desc);
  int (*ANeuralNetworksMemory_createFromDesc)(
      const ANeuralNetworksMemoryDesc* desc, ANeuralNetworksMemory** memory);
  int (*ANeuralNetworksMemory_copy)(const ANeuralNetworksMemory* src,
                                    const ANeuralNetworksMemory* dst);

  // Model (4.3).
  int (*ANeuralNetworksModel_create)(ANeuralNetworksModel** model);
  void (*ANeuralNetworksModel_free)(ANeuralNetworksModel* model);
  int (*ANeuralNetworksModel_finish)(ANeuralNetworksModel* model);
  int (*ANeuralNetworksModel_addOperand)(ANeuralNetworksModel* model,
                                         const ANeuralNetworksOperandType* type);
  int (*ANeuralNetworksModel_setOperandValue)(ANeuralNetworksModel* model,
                                              int32_t index, const void* buffer,
                                              size_t length);
  int (*ANeuralNetworksModel_setOperandSymmPerChannelQuantParams)(
      ANeuralNetworksModel* model, int32_t index,
      const ANeuralNetworksSymmPerChannelQuantParams* channelQuant);
  int (*ANeuralNetworksModel_setOperandValueFromMemory)(
      ANeuralNetworksModel* model, int32_t index,
      const ANeuralNetworksMemory* memory, size_t offset, size_t length);
  int (*ANeuralNetworksModel_setOperandValueFromModel)(
      ANeuralNetworksModel* model, int32_t index,
      const ANeuralNetworksModel* value);
  int (*ANeuralNetworksModel_addOperation)(ANeuralNetworksModel* model,
                                           ANeuralNetworksOperationType type,
                                           uint32_t inputCount,
                                           const uint32_t* inputs,
                                           uint32_t outputCount,
                                           const uint32_t* outputs);
  int (*ANeuralNetworksModel_identifyInputsAndOutputs)(
      ANeuralNetworksModel* model, uint32_t inputCount, const uint32_t* inputs,
      uint32_t outputCount, const uint32_t* outputs);
  int (*ANeuralNetworksModel_relaxComputationFloat32toFloat16)(
      ANeuralNetworksModel* model, bool allow);
  int (*ANeuralNetworksModel_getSupportedOperationsForDevices)(
      const ANeuralNetworksModel* model,
      const ANeuralNetworksDevice* const* devices, uint32_t numDevices,
      bool* supportedOps);
  // Vendor extensions (NeuralNetworksExtensions.h).
  int (*ANeuralNetworksDevice_getExtensionSupport)(
      const ANeuralNetworksDevice* device, const char* extensionName,
      bool* isExtensionSupported);
  int (*ANeuralNetworksModel_getExtensionOperandType)(
      ANeuralNetworksModel* model, const char* extensionName,
      uint16_t operandCodeWithinExtension, int32_t* type);
  int (*ANeuralNetworksModel_getExtensionOperationType)(
      ANeuralNetworksModel* model, const char* extensionName,
      uint16_t operationCodeWithinExtension,
      ANeuralNetworksOperationType* type);
  int (*ANeuralNetworksModel_setOperandExtensionData)(
      ANeuralNetworksModel* model, int32_t index, const void* data,
      size_t length);

  // Compilation (4.4).
  int (*ANeuralNetworksCompilation_create)(
      ANeuralNetworksModel* model, ANeuralNetworksCompilation** compilation);
  int (*ANeuralNetworksCompilation_createForDevices)(
      ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,
      uint32_t numDevices, ANeuralNetworksCompilation** compilation);
  void (*ANeuralNetworksCompilation_free)(
      ANeuralNetworksCompilation* compilation);
  int (*ANeuralNetworksCompilation_setPreference)(
      ANeuralNetworksCompilation* compilation, int32_t preference);
  int (*ANeuralNetworksCompilation_setCaching)(
      ANeuralNetworksCompilation* compilation, const char* cacheDir,
      const uint8_t* token);
  int (*ANeuralNetworksCompilation_setPriority)(
      ANeuralNetworksCompilation* compilation, int priority);
  int (*ANeuralNetworksCompilation_setTimeout)(
      ANeuralNetworksCompilation* compilation, uint64_t duration);
  int (*ANeuralNetworksCompilation_finish)(
      ANeuralNetworksCompilation* compilation);
  int (*ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput)(
      const ANeuralNetworksCompilation* compilation, uint32_t index,
      uint32_t* alignment);
  int (*ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput)(
      const ANeuralNetworksCompilation* compilation, uint32_t index,
      uint32_t* padding);
  int (*ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput)(
      const ANeuralNetworksCompilation* compilation, uint32_t index,
      uint32_t* alignment);
  int (*ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput)(
      const ANeuralNetworksCompilation* compilation, uint32_t index,
      uint32_t* padding);

  // Execution (4.5).
  int (*ANeuralNetworksExecution_create)(
      ANeuralNetworksCompilation* compilation,
      ANeuralNetworksExecution** execution);
  void (*ANeuralNetworksExecution_free)(ANeuralNetworksExecution* execution);
  int (*ANeuralNetworksExecution_setInput)(
      ANeuralNetworksExecution* execution, int32_t index,
      const ANeuralNetworksOperandType* type, const void* buffer,
      size_t length);
  int (*ANeuralNetworksExecution_setInputFromMemory)(
      ANeuralNetworksExecution* execution, int32_t index,
      const ANeuralNetworksOperandType* type,
      const ANeuralNetworksMemory* memory, size_t offset, size_t length);
  int (*ANeuralNetworksExecution_setOutput)(
      ANeuralNetworksExecution* execution, int32_t index,
      const ANeuralNetworksOperandType* type, void* buffer, size_t length);
  int (*ANeuralNetworksExecution_setOutputFromMemory)(
      ANeuralNetworksExecution* execution, int32_t index,
      const ANeuralNetworksOperandType* type,
      const ANeuralNetworksMemory* memory, size_t offset, size_t length);
  int (*ANeuralNetworksExecution_startCompute)(
      ANeuralNetworksExecution* execution, ANeuralNetworksEvent** event);
  int (*ANeuralNetworksExecution_compute)(ANeuralNetworksExecution* execution);
  int (*ANeuralNetworksExecution_burstCompute)(
      ANeuralNetworksExecution* execution, ANeuralNetworksBurst* burst);
  int (*ANeuralNetworksExecution_getOutputOperandRank)(
      ANeuralNetworksExecution* execution, int32_t index, uint32_t* rank);
  int (*ANeuralNetworksExecution_getOutputOperandDimensions)(
      ANeuralNetworksExecution* execution, int32_t index,
      uint32_t* dimensions);
  int (*ANeuralNetworksExecution_setMeasureTiming)(
      ANeuralNetworksExecution* execution, bool measure);
  int (*ANeuralNetworksExecution_getDuration)(
      const ANeuralNetworksExecution* execution, int32_t durationCode,
      uint64_t* duration);
  int (*ANeuralNetworksExecution_setTimeout)(
      ANeuralNetworksExecution* execution, uint64_t duration);
  int (*ANeuralNetworksExecution_setLoopTimeout)(
      ANeuralNetworksExecution* execution, uint64_t duration);
  int (*ANeuralNetworksExecution_startComputeWithDependencies)(
      ANeuralNetworksExecution* execution,
      const ANeuralNetworksEvent* const* dependencies,
      uint32_t num_dependencies, uint64_t duration,
      ANeuralNetworksEvent** event);
  int (*ANeuralNetworksExecution_enableInputAndOutputPadding)(
      ANeuralNetworksExecution* execution, bool enable);
  int (*ANeuralNetworksExecution_setReusable)(
      ANeuralNetworksExecution* execution, bool reusable);

  // Burst, event, device, global (4.6).
  int (*ANeuralNetworksBurst_create)(ANeuralNetworksCompilation* compilation,
                                     ANeuralNetworksBurst** burst);
  void (*ANeuralNetworksBurst_free)(ANeuralNetworksBurst* burst);
  int (*ANeuralNetworksEvent_wait)(ANeuralNetworksEvent* event);
  void (*ANeuralNetworksEvent_free)(ANeuralNetworksEvent* event);
  int (*ANeuralNetworksEvent_createFromSyncFenceFd)(
      int sync_fence_fd, ANeuralNetworksEvent** event);
  int (*ANeuralNetworksEvent_getSyncFenceFd)(const ANeuralNetworksEvent* event,
                                             int* sync_fence_fd);
  int (*ANeuralNetworks_getDeviceCount)(uint32_t* numDevices);
  int (*ANeuralNetworks_getDevice)(uint32_t devIndex,
                                   ANeuralNetworksDevice** device);
  int (*ANeuralNetworksDevice_getName)(const ANeuralNetworksDevice* device,
                                       const char** name);
  int (*ANeuralNetworksDevice_getType)(const ANeuralNetworksDevice* device,
                                       int32_t* type);
  int (*ANeuralNetworksDevice_getVersion)(const ANeuralNetworksDevice* device,
                                          const char** version);
  int (*ANeuralNetworksDevice_getFeatureLevel)(
      const ANeuralNetworksDevice* device, int64_t* featureLevel);
  int (*ANeuralNetworksDevice_wait)(const ANeuralNetworksDevice* device);
  uint64_t (*ANeuralNetworks_getDefaultLoopTimeout)();
  uint64_t (*ANeuralNetworks_getMaximumLoopTimeout)();
  int64_t (*ANeuralNetworks_getRuntimeFeatureLevel)();

  // Optional, exported only by our host shim: the driver's message for the
  // last failed call (NNAPI itself has no such function).
  int (*executorch_nnapi_host_last_error)(char* buf, size_t len);

  /// Path the library was loaded from.
  std::string library_path;
  /// dlopen handle (never dlclosed, see nnapi_api.cpp).
  void* library_handle;
  /// NNAPI feature level of the runtime (27, 28, ..., 31, 1000006, ...).
  int64_t feature_level;
};

/// Returns the NNAPI function table, loading the library on first use (or
/// after executorch_nnapi_set_library_path was called). The feature level is
/// re-read on each call. Returns null
/// and sets *error (if given) when the library cannot be loaded or lacks the
/// core API-27 functions. Thread-safe. The returned table stays valid for the
/// life of the process; holders of a shared_ptr keep using the table their
/// objects were created with even if the library path changes later.
std::shared_ptr<const NnapiApi> nnapi_api(std::string* error = nullptr);

/// The name of an NNAPI result code ("BAD_DATA", ...), or "UNKNOWN".
const char* nnapi_result_name(int code);

/// Describes a failed NNAPI call result: "BAD_DATA (4)" plus, when the library
/// is our host shim, ": <driver message>".
std::string nnapi_describe_result(const NnapiApi& api, int code);

/// Human-readable feature level, e.g. "29 (Android 10)" or "1000006 (NNAPI
/// feature level 6)".
std::string nnapi_feature_level_name(int64_t level);

}  // namespace executorch_nnapi

/// Sets the NNAPI library the backend dlopens (default "libneuralnetworks.so",
/// or $EXECUTORCH_NNAPI_LIBRARY). Call before loading a program; every call
/// makes the next program load re-open the library (so calling it again with
/// another path switches libraries; programs already loaded keep theirs).
/// Passing null or "" restores the default.
extern "C" __attribute__((visibility("default"))) void
executorch_nnapi_set_library_path(const char* path);
