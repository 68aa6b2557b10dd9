/*
 * Host stand-in for libneuralnetworks.so.
 *
 * Exports the NNAPI C functions with their exact signatures and forwards each
 * call to a function pointer `executorch_nnapi_host_impl_<Name>` that the
 * Python host driver (executorch_nnapi.runtime.host_driver) fills in through
 * ctypes. The C++ backend dlopens this library exactly as it dlopens NNAPI on
 * a phone, so every host test runs the device code path.
 *
 * While a pointer is NULL (no driver installed) an int function returns
 * ANEURALNETWORKS_OP_FAILED, a void function does nothing and the int64/uint64
 * functions return 0.
 *
 * No NDK header: the opaque handles and the two structs are declared here from
 * the NNAPI specification (their layout is part of the NNAPI ABI).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHIM_EXPORT __attribute__((visibility("default")))

typedef struct ANeuralNetworksMemory ANeuralNetworksMemory;
typedef struct ANeuralNetworksModel ANeuralNetworksModel;
typedef struct ANeuralNetworksCompilation ANeuralNetworksCompilation;
typedef struct ANeuralNetworksExecution ANeuralNetworksExecution;
typedef struct ANeuralNetworksEvent ANeuralNetworksEvent;
typedef struct ANeuralNetworksBurst ANeuralNetworksBurst;
typedef struct ANeuralNetworksDevice ANeuralNetworksDevice;
typedef struct ANeuralNetworksMemoryDesc ANeuralNetworksMemoryDesc;
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

_Static_assert(sizeof(ANeuralNetworksOperandType) == 16 + sizeof(void*),
               "ANeuralNetworksOperandType layout");
_Static_assert(sizeof(ANeuralNetworksSymmPerChannelQuantParams) == 8 + sizeof(void*),
               "ANeuralNetworksSymmPerChannelQuantParams layout");

enum { ANEURALNETWORKS_OP_FAILED = 5 };

/*
 * Functions returning a value: X(return type, name, (parameters), (arguments),
 * value returned when no driver is installed).
 */
#define NNAPI_VALUE_FUNCTIONS(X)                                                                  \
  /* Memory */                                                                                    \
  X(int, ANeuralNetworksMemory_createFromFd,                                                      \
    (size_t size, int protect, int fd, size_t offset, ANeuralNetworksMemory** memory),            \
    (size, protect, fd, offset, memory), ANEURALNETWORKS_OP_FAILED)                               \
  X(int, ANeuralNetworksMemory_createFromAHardwareBuffer,                                         \
    (const AHardwareBuffer* ahwb, ANeuralNetworksMemory** memory), (ahwb, memory),                \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksMemoryDesc_create, (ANeuralNetworksMemoryDesc** desc), (desc),            \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksMemoryDesc_addInputRole,                                                  \
    (ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* compilation,              \
     uint32_t index, float frequency),                                                            \
    (desc, compilation, index, frequency), ANEURALNETWORKS_OP_FAILED)                             \
  X(int, ANeuralNetworksMemoryDesc_addOutputRole,                                                 \
    (ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* compilation,              \
     uint32_t index, float frequency),                                                            \
    (desc, compilation, index, frequency), ANEURALNETWORKS_OP_FAILED)                             \
  X(int, ANeuralNetworksMemoryDesc_setDimensions,                                                 \
    (ANeuralNetworksMemoryDesc* desc, uint32_t rank, const uint32_t* dimensions),                 \
    (desc, rank, dimensions), ANEURALNETWORKS_OP_FAILED)                                          \
  X(int, ANeuralNetworksMemoryDesc_finish, (ANeuralNetworksMemoryDesc* desc), (desc),             \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksMemory_createFromDesc,                                                    \
    (const ANeuralNetworksMemoryDesc* desc, ANeuralNetworksMemory** memory), (desc, memory),      \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksMemory_copy,                                                              \
    (const ANeuralNetworksMemory* src, const ANeuralNetworksMemory* dst), (src, dst),             \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  /* Model */                                                                                     \
  X(int, ANeuralNetworksModel_create, (ANeuralNetworksModel** model), (model),                    \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksModel_finish, (ANeuralNetworksModel* model), (model),                     \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksModel_addOperand,                                                         \
    (ANeuralNetworksModel* model, const ANeuralNetworksOperandType* type), (model, type),         \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksModel_setOperandValue,                                                    \
    (ANeuralNetworksModel* model, int32_t index, const void* buffer, size_t length),              \
    (model, index, buffer, length), ANEURALNETWORKS_OP_FAILED)                                    \
  X(int, ANeuralNetworksModel_setOperandSymmPerChannelQuantParams,                                \
    (ANeuralNetworksModel* model, int32_t index,                                                  \
     const ANeuralNetworksSymmPerChannelQuantParams* channelQuant),                               \
    (model, index, channelQuant), ANEURALNETWORKS_OP_FAILED)                                      \
  X(int, ANeuralNetworksModel_setOperandValueFromMemory,                                          \
    (ANeuralNetworksModel* model, int32_t index, const ANeuralNetworksMemory* memory,             \
     size_t offset, size_t length),                                                               \
    (model, index, memory, offset, length), ANEURALNETWORKS_OP_FAILED)                            \
  X(int, ANeuralNetworksModel_setOperandValueFromModel,                                           \
    (ANeuralNetworksModel* model, int32_t index, const ANeuralNetworksModel* value),              \
    (model, index, value), ANEURALNETWORKS_OP_FAILED)                                             \
  X(int, ANeuralNetworksModel_addOperation,                                                       \
    (ANeuralNetworksModel* model, ANeuralNetworksOperationType type, uint32_t inputCount,         \
     const uint32_t* inputs, uint32_t outputCount, const uint32_t* outputs),                      \
    (model, type, inputCount, inputs, outputCount, outputs), ANEURALNETWORKS_OP_FAILED)           \
  X(int, ANeuralNetworksModel_identifyInputsAndOutputs,                                           \
    (ANeuralNetworksModel* model, uint32_t inputCount, const uint32_t* inputs,                    \
     uint32_t outputCount, const uint32_t* outputs),                                              \
    (model, inputCount, inputs, outputCount, outputs), ANEURALNETWORKS_OP_FAILED)                 \
  X(int, ANeuralNetworksModel_relaxComputationFloat32toFloat16,                                   \
    (ANeuralNetworksModel* model, bool allow), (model, allow), ANEURALNETWORKS_OP_FAILED)         \
  X(int, ANeuralNetworksModel_getSupportedOperationsForDevices,                                   \
    (const ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,              \
     uint32_t numDevices, bool* supportedOps),                                                    \
    (model, devices, numDevices, supportedOps), ANEURALNETWORKS_OP_FAILED)                        \
  /* Vendor extensions (NeuralNetworksExtensions.h) */                                            \
  X(int, ANeuralNetworksDevice_getExtensionSupport,                                               \
    (const ANeuralNetworksDevice* device, const char* extensionName,                              \
     bool* isExtensionSupported),                                                                 \
    (device, extensionName, isExtensionSupported), ANEURALNETWORKS_OP_FAILED)                     \
  X(int, ANeuralNetworksModel_getExtensionOperandType,                                            \
    (ANeuralNetworksModel* model, const char* extensionName,                                      \
     uint16_t operandCodeWithinExtension, int32_t* type),                                         \
    (model, extensionName, operandCodeWithinExtension, type), ANEURALNETWORKS_OP_FAILED)          \
  X(int, ANeuralNetworksModel_getExtensionOperationType,                                          \
    (ANeuralNetworksModel* model, const char* extensionName,                                      \
     uint16_t operationCodeWithinExtension, ANeuralNetworksOperationType* type),                  \
    (model, extensionName, operationCodeWithinExtension, type), ANEURALNETWORKS_OP_FAILED)        \
  X(int, ANeuralNetworksModel_setOperandExtensionData,                                            \
    (ANeuralNetworksModel* model, int32_t index, const void* data, size_t length),                \
    (model, index, data, length), ANEURALNETWORKS_OP_FAILED)                                      \
  /* Compilation */                                                                               \
  X(int, ANeuralNetworksCompilation_create,                                                       \
    (ANeuralNetworksModel* model, ANeuralNetworksCompilation** compilation),                      \
    (model, compilation), ANEURALNETWORKS_OP_FAILED)                                              \
  X(int, ANeuralNetworksCompilation_createForDevices,                                             \
    (ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,                    \
     uint32_t numDevices, ANeuralNetworksCompilation** compilation),                              \
    (model, devices, numDevices, compilation), ANEURALNETWORKS_OP_FAILED)                         \
  X(int, ANeuralNetworksCompilation_setPreference,                                                \
    (ANeuralNetworksCompilation* compilation, int32_t preference), (compilation, preference),     \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksCompilation_setCaching,                                                   \
    (ANeuralNetworksCompilation* compilation, const char* cacheDir, const uint8_t* token),        \
    (compilation, cacheDir, token), ANEURALNETWORKS_OP_FAILED)                                    \
  X(int, ANeuralNetworksCompilation_setPriority,                                                  \
    (ANeuralNetworksCompilation* compilation, int priority), (compilation, priority),             \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksCompilation_setTimeout,                                                   \
    (ANeuralNetworksCompilation* compilation, uint64_t duration), (compilation, duration),        \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksCompilation_finish, (ANeuralNetworksCompilation* compilation),            \
    (compilation), ANEURALNETWORKS_OP_FAILED)                                                     \
  X(int, ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput,                          \
    (const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment),         \
    (compilation, index, alignment), ANEURALNETWORKS_OP_FAILED)                                   \
  X(int, ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput,                            \
    (const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding),           \
    (compilation, index, padding), ANEURALNETWORKS_OP_FAILED)                                     \
  X(int, ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput,                         \
    (const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment),         \
    (compilation, index, alignment), ANEURALNETWORKS_OP_FAILED)                                   \
  X(int, ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput,                           \
    (const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding),           \
    (compilation, index, padding), ANEURALNETWORKS_OP_FAILED)                                     \
  /* Execution */                                                                                 \
  X(int, ANeuralNetworksExecution_create,                                                         \
    (ANeuralNetworksCompilation* compilation, ANeuralNetworksExecution** execution),              \
    (compilation, execution), ANEURALNETWORKS_OP_FAILED)                                          \
  X(int, ANeuralNetworksExecution_setInput,                                                       \
    (ANeuralNetworksExecution* execution, int32_t index, const ANeuralNetworksOperandType* type,  \
     const void* buffer, size_t length),                                                          \
    (execution, index, type, buffer, length), ANEURALNETWORKS_OP_FAILED)                          \
  X(int, ANeuralNetworksExecution_setInputFromMemory,                                             \
    (ANeuralNetworksExecution* execution, int32_t index, const ANeuralNetworksOperandType* type,  \
     const ANeuralNetworksMemory* memory, size_t offset, size_t length),                          \
    (execution, index, type, memory, offset, length), ANEURALNETWORKS_OP_FAILED)                  \
  X(int, ANeuralNetworksExecution_setOutput,                                                      \
    (ANeuralNetworksExecution* execution, int32_t index, const ANeuralNetworksOperandType* type,  \
     void* buffer, size_t length),                                                                \
    (execution, index, type, buffer, length), ANEURALNETWORKS_OP_FAILED)                          \
  X(int, ANeuralNetworksExecution_setOutputFromMemory,                                            \
    (ANeuralNetworksExecution* execution, int32_t index, const ANeuralNetworksOperandType* type,  \
     const ANeuralNetworksMemory* memory, size_t offset, size_t length),                          \
    (execution, index, type, memory, offset, length), ANEURALNETWORKS_OP_FAILED)                  \
  X(int, ANeuralNetworksExecution_startCompute,                                                   \
    (ANeuralNetworksExecution* execution, ANeuralNetworksEvent** event), (execution, event),      \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksExecution_compute, (ANeuralNetworksExecution* execution), (execution),    \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksExecution_burstCompute,                                                   \
    (ANeuralNetworksExecution* execution, ANeuralNetworksBurst* burst), (execution, burst),       \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksExecution_getOutputOperandRank,                                           \
    (ANeuralNetworksExecution* execution, int32_t index, uint32_t* rank),                         \
    (execution, index, rank), ANEURALNETWORKS_OP_FAILED)                                          \
  X(int, ANeuralNetworksExecution_getOutputOperandDimensions,                                     \
    (ANeuralNetworksExecution* execution, int32_t index, uint32_t* dimensions),                   \
    (execution, index, dimensions), ANEURALNETWORKS_OP_FAILED)                                    \
  X(int, ANeuralNetworksExecution_setMeasureTiming,                                               \
    (ANeuralNetworksExecution* execution, bool measure), (execution, measure),                    \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksExecution_getDuration,                                                    \
    (const ANeuralNetworksExecution* execution, int32_t durationCode, uint64_t* duration),        \
    (execution, durationCode, duration), ANEURALNETWORKS_OP_FAILED)                               \
  X(int, ANeuralNetworksExecution_setTimeout,                                                     \
    (ANeuralNetworksExecution* execution, uint64_t duration), (execution, duration),              \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksExecution_setLoopTimeout,                                                 \
    (ANeuralNetworksExecution* execution, uint64_t duration), (execution, duration),              \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksExecution_startComputeWithDependencies,                                   \
    (ANeuralNetworksExecution* execution, const ANeuralNetworksEvent* const* dependencies,        \
     uint32_t num_dependencies, uint64_t duration, ANeuralNetworksEvent** event),                 \
    (execution, dependencies, num_dependencies, duration, event), ANEURALNETWORKS_OP_FAILED)      \
  X(int, ANeuralNetworksExecution_enableInputAndOutputPadding,                                    \
    (ANeuralNetworksExecution* execution, bool enable), (execution, enable),                      \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksExecution_setReusable,                                                    \
    (ANeuralNetworksExecution* execution, bool reusable), (execution, reusable),                  \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  /* Burst, Event, Device, global */                                                              \
  X(int, ANeuralNetworksBurst_create,                                                             \
    (ANeuralNetworksCompilation* compilation, ANeuralNetworksBurst** burst),                      \
    (compilation, burst), ANEURALNETWORKS_OP_FAILED)                                              \
  X(int, ANeuralNetworksEvent_wait, (ANeuralNetworksEvent* event), (event),                       \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksEvent_createFromSyncFenceFd,                                              \
    (int sync_fence_fd, ANeuralNetworksEvent** event), (sync_fence_fd, event),                    \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksEvent_getSyncFenceFd,                                                     \
    (const ANeuralNetworksEvent* event, int* sync_fence_fd), (event, sync_fence_fd),              \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworks_getDeviceCount, (uint32_t* numDevices), (numDevices),                    \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworks_getDevice, (uint32_t devIndex, ANeuralNetworksDevice** device),          \
    (devIndex, device), ANEURALNETWORKS_OP_FAILED)                                                \
  X(int, ANeuralNetworksDevice_getName,                                                           \
    (const ANeuralNetworksDevice* device, const char** name), (device, name),                     \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksDevice_getType, (const ANeuralNetworksDevice* device, int32_t* type),     \
    (device, type), ANEURALNETWORKS_OP_FAILED)                                                    \
  X(int, ANeuralNetworksDevice_getVersion,                                                        \
    (const ANeuralNetworksDevice* device, const char** version), (device, version),               \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksDevice_getFeatureLevel,                                                   \
    (const ANeuralNetworksDevice* device, int64_t* featureLevel), (device, featureLevel),         \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(int, ANeuralNetworksDevice_wait, (const ANeuralNetworksDevice* device), (device),             \
    ANEURALNETWORKS_OP_FAILED)                                                                    \
  X(uint64_t, ANeuralNetworks_getDefaultLoopTimeout, (void), (), 0)                               \
  X(uint64_t, ANeuralNetworks_getMaximumLoopTimeout, (void), (), 0)                               \
  X(int64_t, ANeuralNetworks_getRuntimeFeatureLevel, (void), (), 0)

/* Functions returning void: X(name, (parameters), (arguments)). */
#define NNAPI_VOID_FUNCTIONS(X)                                                         \
  X(ANeuralNetworksMemory_free, (ANeuralNetworksMemory * memory), (memory))             \
  X(ANeuralNetworksMemoryDesc_free, (ANeuralNetworksMemoryDesc * desc), (desc))         \
  X(ANeuralNetworksModel_free, (ANeuralNetworksModel * model), (model))                 \
  X(ANeuralNetworksCompilation_free, (ANeuralNetworksCompilation * compilation),        \
    (compilation))                                                                      \
  X(ANeuralNetworksExecution_free, (ANeuralNetworksExecution * execution), (execution)) \
  X(ANeuralNetworksBurst_free, (ANeuralNetworksBurst * burst), (burst))                 \
  X(ANeuralNetworksEvent_free, (ANeuralNetworksEvent * event), (event))

/*
 * Each function reads its pointer once, so a driver installed or replaced from
 * another thread is seen either whole or not at all.
 */
#define DEFINE_VALUE_FUNCTION(ret, name, params, args, fallback)                  \
  SHIM_EXPORT ret(*volatile executorch_nnapi_host_impl_##name) params = NULL;    \
  SHIM_EXPORT ret name params {                                                   \
    ret(*impl) params = executorch_nnapi_host_impl_##name;                        \
    return impl != NULL ? impl args : (ret)(fallback);                            \
  }

#define DEFINE_VOID_FUNCTION(name, params, args)                                  \
  SHIM_EXPORT void(*volatile executorch_nnapi_host_impl_##name) params = NULL;   \
  SHIM_EXPORT void name params {                                                  \
    void(*impl) params = executorch_nnapi_host_impl_##name;                       \
    if (impl != NULL) {                                                           \
      impl args;                                                                  \
    }                                                                             \
  }

NNAPI_VALUE_FUNCTIONS(DEFINE_VALUE_FUNCTION)
NNAPI_VOID_FUNCTIONS(DEFINE_VOID_FUNCTION)

/*
 * Ours: copies the driver's message for the last failed call into buf
 * (NUL-terminated, truncated to len) and returns the message length.
 */
SHIM_EXPORT int (*volatile executorch_nnapi_host_impl_executorch_nnapi_host_last_error)(
    char* buf, size_t len) = NULL;
SHIM_EXPORT int executorch_nnapi_host_last_error(char* buf, size_t len) {
  int (*impl)(char*, size_t) = executorch_nnapi_host_impl_executorch_nnapi_host_last_error;
  if (impl != NULL) {
    return impl(buf, len);
  }
  if (buf != NULL && len > 0) {
    buf[0] = '\0';
  }
  return 0;
}
