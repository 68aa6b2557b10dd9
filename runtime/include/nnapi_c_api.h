/*
 * The NNAPI C API as executorch-nnapi uses it: handle types, structs,
 * constants and the signature of every function, in plain C.
 *
 * One header for both sides of the dlopen boundary: the C++ backend
 * (nnapi_api.h) builds its function table from it, and the host shim
 * (nnapi_host_shim.c) exports the same functions with these signatures, so
 * the two cannot disagree. No NDK header is needed: the layouts and values
 * are those of the NNAPI specification (see docs/nnapi_facts.md §4); only what
 * the runtime needs is declared. Nothing here is defined or linked: callers
 * reach the functions through dlsym.
 */
#ifndef EXECUTORCH_NNAPI_NNAPI_C_API_H
#define EXECUTORCH_NNAPI_NNAPI_C_API_H

#include <assert.h> /* static_assert in C11 */
#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles (API 27 unless noted). */
typedef struct ANeuralNetworksMemory ANeuralNetworksMemory;
typedef struct ANeuralNetworksModel ANeuralNetworksModel;
typedef struct ANeuralNetworksCompilation ANeuralNetworksCompilation;
typedef struct ANeuralNetworksExecution ANeuralNetworksExecution;
typedef struct ANeuralNetworksEvent ANeuralNetworksEvent;
typedef struct ANeuralNetworksBurst ANeuralNetworksBurst;           /* 29 */
typedef struct ANeuralNetworksDevice ANeuralNetworksDevice;         /* 29 */
typedef struct ANeuralNetworksMemoryDesc ANeuralNetworksMemoryDesc; /* 30 */
/* From <android/hardware_buffer.h>; only ever passed through as a pointer. */
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

/* The layouts are part of the NNAPI ABI (AOSP asserts the same). */
static_assert(sizeof(ANeuralNetworksOperandType) == 16 + sizeof(void*),
              "ANeuralNetworksOperandType layout");
static_assert(sizeof(ANeuralNetworksSymmPerChannelQuantParams) == 8 + sizeof(void*),
              "ANeuralNetworksSymmPerChannelQuantParams layout");

/* ResultCode. */
enum {
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
  ANEURALNETWORKS_DEAD_OBJECT = 14
};

/* OperandCode. */
enum {
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
  ANEURALNETWORKS_MODEL = 15
};

/* PreferenceCode. */
enum {
  ANEURALNETWORKS_PREFER_LOW_POWER = 0,
  ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER = 1,
  ANEURALNETWORKS_PREFER_SUSTAINED_SPEED = 2
};

/* PriorityCode (API 30). */
enum {
  ANEURALNETWORKS_PRIORITY_LOW = 90,
  ANEURALNETWORKS_PRIORITY_MEDIUM = 100,
  ANEURALNETWORKS_PRIORITY_HIGH = 110,
  ANEURALNETWORKS_PRIORITY_DEFAULT = ANEURALNETWORKS_PRIORITY_MEDIUM
};

/* DeviceTypeCode (API 29). */
enum {
  ANEURALNETWORKS_DEVICE_UNKNOWN = 0,
  ANEURALNETWORKS_DEVICE_OTHER = 1,
  ANEURALNETWORKS_DEVICE_CPU = 2,
  ANEURALNETWORKS_DEVICE_GPU = 3,
  ANEURALNETWORKS_DEVICE_ACCELERATOR = 4
};

/* DurationCode of ANeuralNetworksExecution_getDuration (API 29). */
enum {
  ANEURALNETWORKS_DURATION_ON_HARDWARE = 0,
  ANEURALNETWORKS_DURATION_IN_DRIVER = 1
};

/* Size of the token passed to ANeuralNetworksCompilation_setCaching (API 29). */
enum { ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN = 32 };

/* FeatureLevelCode (up to level 5 the value is the Android API level). */
enum {
  ANEURALNETWORKS_FEATURE_LEVEL_1 = 27,
  ANEURALNETWORKS_FEATURE_LEVEL_2 = 28,
  ANEURALNETWORKS_FEATURE_LEVEL_3 = 29,
  ANEURALNETWORKS_FEATURE_LEVEL_4 = 30,
  ANEURALNETWORKS_FEATURE_LEVEL_5 = 31,
  ANEURALNETWORKS_FEATURE_LEVEL_6 = 1000006,
  ANEURALNETWORKS_FEATURE_LEVEL_7 = 1000007,
  ANEURALNETWORKS_FEATURE_LEVEL_8 = 1000008
};

/*
 * The functions, as X-macro lists so that the backend's function table and
 * dlsym calls and the shim's exported definitions are all generated from the
 * one signature: X(return type, name, (parameters), (argument names)).
 * Grouped by what the return value is, since a caller of a missing function
 * (or the shim without a driver) has to make one up.
 */

/* Functions returning an NNAPI result code (ANEURALNETWORKS_NO_ERROR, ...). */
#define NNAPI_RESULT_FUNCTIONS(X)                                                                   \
  /* Memory */                                                                                      \
  X(int, ANeuralNetworksMemory_createFromFd,                                                        \
    (size_t size, int protect, int fd, size_t offset, ANeuralNetworksMemory** memory),              \
    (size, protect, fd, offset, memory))                                                            \
  X(int, ANeuralNetworksMemory_createFromAHardwareBuffer,                                           \
    (const AHardwareBuffer* ahwb, ANeuralNetworksMemory** memory), (ahwb, memory))                  \
  X(int, ANeuralNetworksMemoryDesc_create, (ANeuralNetworksMemoryDesc** desc), (desc))              \
  X(int, ANeuralNetworksMemoryDesc_addInputRole,                                                    \
    (ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* compilation,                \
     uint32_t index, float frequency),                                                              \
    (desc, compilation, index, frequency))                                                          \
  X(int, ANeuralNetworksMemoryDesc_addOutputRole,                                                   \
    (ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* compilation,                \
     uint32_t index, float frequency),                                                              \
    (desc, compilation, index, frequency))                                                          \
  X(int, ANeuralNetworksMemoryDesc_setDimensions,                                                   \
    (ANeuralNetworksMemoryDesc* desc, uint32_t rank, const uint32_t* dimensions),                   \
    (desc, rank, dimensions))                                                                       \
  X(int, ANeuralNetworksMemoryDesc_finish, (ANeuralNetworksMemoryDesc* desc), (desc))               \
  X(int, ANeuralNetworksMemory_createFromDesc,                                                      \
    (const ANeuralNetworksMemoryDesc* desc, ANeuralNetworksMemory** memory), (desc, memory))        \
  X(int, ANeuralNetworksMemory_copy,                                                                \
    (const ANeuralNetworksMemory* src, const ANeuralNetworksMemory* dst), (src, dst))               \
  /* Model */                                                                                       \
  X(int, ANeuralNetworksModel_create, (ANeuralNetworksModel** model), (model))                      \
  X(int, ANeuralNetworksModel_finish, (ANeuralNetworksModel* model), (model))                       \
  X(int, ANeuralNetworksModel_addOperand,                                                           \
    (ANeuralNetworksModel* model, const ANeuralNetworksOperandType* type), (model, type))           \
  X(int, ANeuralNetworksModel_setOperandValue,                                                      \
    (ANeuralNetworksModel* model, int32_t index, const void* buffer, size_t length),                \
    (model, index, buffer, length))                                                                 \
  X(int, ANeuralNetworksModel_setOperandSymmPerChannelQuantParams,                                  \
    (ANeuralNetworksModel* model, int32_t index,                                                    \
     const ANeuralNetworksSymmPerChannelQuantParams* channelQuant),                                 \
    (model, index, channelQuant))                                                                   \
  X(int, ANeuralNetworksModel_setOperandValueFromMemory,                                            \
    (ANeuralNetworksModel* model, int32_t index, const ANeuralNetworksMemory* memory,               \
     size_t offset, size_t length),                                                                 \
    (model, index, memory, offset, length))                                                         \
  X(int, ANeuralNetworksModel_setOperandValueFromModel,                                             \
    (ANeuralNetworksModel* model, int32_t index, const ANeuralNetworksModel* value),                \
    (model, index, value))                                                                          \
  X(int, ANeuralNetworksModel_addOperation,                                                         \
    (ANeuralNetworksModel* model, ANeuralNetworksOperationType type, uint32_t inputCount,           \
     const uint32_t* inputs, uint32_t outputCount, const uint32_t* outputs),                        \
    (model, type, inputCount, inputs, outputCount, outputs))                                        \
  X(int, ANeuralNetworksModel_identifyInputsAndOutputs,                                             \
    (ANeuralNetworksModel* model, uint32_t inputCount, const uint32_t* inputs,                      \
     uint32_t outputCount, const uint32_t* outputs),                                                \
    (model, inputCount, inputs, outputCount, outputs))                                              \
  X(int, ANeuralNetworksModel_relaxComputationFloat32toFloat16,                                     \
    (ANeuralNetworksModel* model, bool allow), (model, allow))                                      \
  X(int, ANeuralNetworksModel_getSupportedOperationsForDevices,                                     \
    (const ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,                \
     uint32_t numDevices, bool* supportedOps),                                                      \
    (model, devices, numDevices, supportedOps))                                                     \
  /* Vendor extensions (NeuralNetworksExtensions.h) */                                              \
  X(int, ANeuralNetworksDevice_getExtensionSupport,                                                 \
    (const ANeuralNetworksDevice* device, const char* extensionName, bool* isExtensionSupported),   \
    (device, extensionName, isExtensionSupported))                                                  \
  X(int, ANeuralNetworksModel_getExtensionOperandType,                                              \
    (ANeuralNetworksModel* model, const char* extensionName, uint16_t operandCodeWithinExtension,   \
     int32_t* type),                                                                                \
    (model, extensionName, operandCodeWithinExtension, type))                                       \
  X(int, ANeuralNetworksModel_getExtensionOperationType,                                            \
    (ANeuralNetworksModel* model, const char* extensionName,                                        \
     uint16_t operationCodeWithinExtension, ANeuralNetworksOperationType* type),                    \
    (model, extensionName, operationCodeWithinExtension, type))                                     \
  X(int, ANeuralNetworksModel_setOperandExtensionData,                                              \
    (ANeuralNetworksModel* model, int32_t index, const void* data, size_t length),                  \
    (model, index, data, length))                                                                   \
  /* Compilation */                                                                                 \
  X(int, ANeuralNetworksCompilation_create,                                                         \
    (ANeuralNetworksModel* model, ANeuralNetworksCompilation** compilation), (model, compilation))  \
  X(int, ANeuralNetworksCompilation_createForDevices,                                               \
    (ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,                      \
     uint32_t numDevices, ANeuralNetworksCompilation** compilation),                                \
    (model, devices, numDevices, compilation))                                                      \
  X(int, ANeuralNetworksCompilation_setPreference,                                                  \
    (ANeuralNetworksCompilation* compilation, int32_t preference), (compilation, preference))       \
  X(int, ANeuralNetworksCompilation_setCaching,                                                     \
    (ANeuralNetworksCompilation* compilation, const char* cacheDir, const uint8_t* token),          \
    (compilation, cacheDir, token))                                                                 \
  X(int, ANeuralNetworksCompilation_setPriority,                                                    \
    (ANeuralNetworksCompilation* compilation, int priority), (compilation, priority))               \
  X(int, ANeuralNetworksCompilation_setTimeout,                                                     \
    (ANeuralNetworksCompilation* compilation, uint64_t duration), (compilation, duration))          \
  X(int, ANeuralNetworksCompilation_finish,                                                         \
    (ANeuralNetworksCompilation* compilation), (compilation))                                       \
  X(int, ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput,                            \
    (const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment),           \
    (compilation, index, alignment))                                                                \
  X(int, ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput,                              \
    (const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding),             \
    (compilation, index, padding))                                                                  \
  X(int, ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput,                           \
    (const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment),           \
    (compilation, index, alignment))                                                                \
  X(int, ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput,                             \
    (const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding),             \
    (compilation, index, padding))                                                                  \
  /* Execution */                                                                                   \
  X(int, ANeuralNetworksExecution_create,                                                           \
    (ANeuralNetworksCompilation* compilation, ANeuralNetworksExecution** execution),                \
    (compilation, execution))                                                                       \
  X(int, ANeuralNetworksExecution_setInput,                                                         \
    (ANeuralNetworksExecution* execution, int32_t index, const ANeuralNetworksOperandType* type,    \
     const void* buffer, size_t length),                                                            \
    (execution, index, type, buffer, length))                                                       \
  X(int, ANeuralNetworksExecution_setInputFromMemory,                                               \
    (ANeuralNetworksExecution* execution, int32_t index, const ANeuralNetworksOperandType* type,    \
     const ANeuralNetworksMemory* memory, size_t offset, size_t length),                            \
    (execution, index, type, memory, offset, length))                                               \
  X(int, ANeuralNetworksExecution_setOutput,                                                        \
    (ANeuralNetworksExecution* execution, int32_t index, const ANeuralNetworksOperandType* type,    \
     void* buffer, size_t length),                                                                  \
    (execution, index, type, buffer, length))                                                       \
  X(int, ANeuralNetworksExecution_setOutputFromMemory,                                              \
    (ANeuralNetworksExecution* execution, int32_t index, const ANeuralNetworksOperandType* type,    \
     const ANeuralNetworksMemory* memory, size_t offset, size_t length),                            \
    (execution, index, type, memory, offset, length))                                               \
  X(int, ANeuralNetworksExecution_startCompute,                                                     \
    (ANeuralNetworksExecution* execution, ANeuralNetworksEvent** event), (execution, event))        \
  X(int, ANeuralNetworksExecution_compute, (ANeuralNetworksExecution* execution), (execution))      \
  X(int, ANeuralNetworksExecution_burstCompute,                                                     \
    (ANeuralNetworksExecution* execution, ANeuralNetworksBurst* burst), (execution, burst))         \
  X(int, ANeuralNetworksExecution_getOutputOperandRank,                                             \
    (ANeuralNetworksExecution* execution, int32_t index, uint32_t* rank),                           \
    (execution, index, rank))                                                                       \
  X(int, ANeuralNetworksExecution_getOutputOperandDimensions,                                       \
    (ANeuralNetworksExecution* execution, int32_t index, uint32_t* dimensions),                     \
    (execution, index, dimensions))                                                                 \
  X(int, ANeuralNetworksExecution_setMeasureTiming,                                                 \
    (ANeuralNetworksExecution* execution, bool measure), (execution, measure))                      \
  X(int, ANeuralNetworksExecution_getDuration,                                                      \
    (const ANeuralNetworksExecution* execution, int32_t durationCode, uint64_t* duration),          \
    (execution, durationCode, duration))                                                            \
  X(int, ANeuralNetworksExecution_setTimeout,                                                       \
    (ANeuralNetworksExecution* execution, uint64_t duration), (execution, duration))                \
  X(int, ANeuralNetworksExecution_setLoopTimeout,                                                   \
    (ANeuralNetworksExecution* execution, uint64_t duration), (execution, duration))                \
  X(int, ANeuralNetworksExecution_startComputeWithDependencies,                                     \
    (ANeuralNetworksExecution* execution, const ANeuralNetworksEvent* const* dependencies,          \
     uint32_t num_dependencies, uint64_t duration, ANeuralNetworksEvent** event),                   \
    (execution, dependencies, num_dependencies, duration, event))                                   \
  X(int, ANeuralNetworksExecution_enableInputAndOutputPadding,                                      \
    (ANeuralNetworksExecution* execution, bool enable), (execution, enable))                        \
  X(int, ANeuralNetworksExecution_setReusable,                                                      \
    (ANeuralNetworksExecution* execution, bool reusable), (execution, reusable))                    \
  /* Burst, Event, Device, global */                                                                \
  X(int, ANeuralNetworksBurst_create,                                                               \
    (ANeuralNetworksCompilation* compilation, ANeuralNetworksBurst** burst), (compilation, burst))  \
  X(int, ANeuralNetworksEvent_wait, (ANeuralNetworksEvent* event), (event))                         \
  X(int, ANeuralNetworksEvent_createFromSyncFenceFd,                                                \
    (int sync_fence_fd, ANeuralNetworksEvent** event), (sync_fence_fd, event))                      \
  X(int, ANeuralNetworksEvent_getSyncFenceFd,                                                       \
    (const ANeuralNetworksEvent* event, int* sync_fence_fd), (event, sync_fence_fd))                \
  X(int, ANeuralNetworks_getDeviceCount, (uint32_t* numDevices), (numDevices))                      \
  X(int, ANeuralNetworks_getDevice,                                                                 \
    (uint32_t devIndex, ANeuralNetworksDevice** device), (devIndex, device))                        \
  X(int, ANeuralNetworksDevice_getName,                                                             \
    (const ANeuralNetworksDevice* device, const char** name), (device, name))                       \
  X(int, ANeuralNetworksDevice_getType,                                                             \
    (const ANeuralNetworksDevice* device, int32_t* type), (device, type))                           \
  X(int, ANeuralNetworksDevice_getVersion,                                                          \
    (const ANeuralNetworksDevice* device, const char** version), (device, version))                 \
  X(int, ANeuralNetworksDevice_getFeatureLevel,                                                     \
    (const ANeuralNetworksDevice* device, int64_t* featureLevel), (device, featureLevel))           \
  X(int, ANeuralNetworksDevice_wait, (const ANeuralNetworksDevice* device), (device))

/* Functions returning a plain value (a duration or a feature level). */
#define NNAPI_VALUE_FUNCTIONS(X)                                                                    \
  X(uint64_t, ANeuralNetworks_getDefaultLoopTimeout, (void), ())                                    \
  X(uint64_t, ANeuralNetworks_getMaximumLoopTimeout, (void), ())                                    \
  X(int64_t, ANeuralNetworks_getRuntimeFeatureLevel, (void), ())


/* Functions returning nothing: the frees. */
#define NNAPI_VOID_FUNCTIONS(X)                                                                     \
  X(void, ANeuralNetworksMemory_free, (ANeuralNetworksMemory* memory), (memory))                    \
  X(void, ANeuralNetworksMemoryDesc_free, (ANeuralNetworksMemoryDesc* desc), (desc))                \
  X(void, ANeuralNetworksModel_free, (ANeuralNetworksModel* model), (model))                        \
  X(void, ANeuralNetworksCompilation_free, (ANeuralNetworksCompilation* compilation),               \
    (compilation))                                                                                  \
  X(void, ANeuralNetworksExecution_free, (ANeuralNetworksExecution* execution), (execution))        \
  X(void, ANeuralNetworksBurst_free, (ANeuralNetworksBurst* burst), (burst))                        \
  X(void, ANeuralNetworksEvent_free, (ANeuralNetworksEvent* event), (event))

#define NNAPI_ALL_FUNCTIONS(X) \
  NNAPI_RESULT_FUNCTIONS(X)    \
  NNAPI_VALUE_FUNCTIONS(X)     \
  NNAPI_VOID_FUNCTIONS(X)

/* A pointer type per function: ANeuralNetworksModel_create_fn, ... */
#define NNAPI_DECLARE_FUNCTION_POINTER_TYPE(ret, name, params, args) typedef ret(*name##_fn) params;
NNAPI_ALL_FUNCTIONS(NNAPI_DECLARE_FUNCTION_POINTER_TYPE)
#undef NNAPI_DECLARE_FUNCTION_POINTER_TYPE

/*
 * Not NNAPI: exported only by our host shim. Copies the host driver's message
 * for the last failed call into buf (NUL-terminated, truncated to len) and
 * returns the message length.
 */
typedef int (*executorch_nnapi_host_last_error_fn)(char* buf, size_t len);

/*
 * Not NNAPI: exported only by our host shim (profiling, docs/debugging.md).
 * After a completed computation of `execution`, writes the nanoseconds each
 * operation took (by operation index, at most `capacity`) into `durations`
 * and the model's operation count into `count`. Returns an NNAPI result code.
 * Absent on a device, so the backend looks it up with dlsym and goes without.
 */
typedef int (*executorch_nnapi_host_operation_durations_fn)(
    const ANeuralNetworksExecution* execution, uint64_t* durations,
    uint32_t capacity, uint32_t* count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EXECUTORCH_NNAPI_NNAPI_C_API_H */
