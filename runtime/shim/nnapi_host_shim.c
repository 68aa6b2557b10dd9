/*
 * Host stand-in for libneuralnetworks.so.
 *
 * Exports the NNAPI C functions with their exact signatures and forwards each
 * call to a function pointer `executorch_nnapi_host_impl_<Name>` that the
 * Python host driver (executorch_nnapi.runtime.host_driver) fills in through
 * ctypes. The C++ backend dlopens this library exactly as it dlopens NNAPI on
 * a phone, so every host test runs the device code path.
 *
 * While a pointer is NULL (no driver installed) a function returning a result
 * code returns ANEURALNETWORKS_OP_FAILED, a void function does nothing and the
 * int64/uint64 functions return 0.
 *
 * The declarations (handles, structs, constants, every signature) come from
 * nnapi_c_api.h, the header the C++ backend builds its function table from.
 */
#include "nnapi_c_api.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

/*
 * Each function reads its pointer once, so a driver installed or replaced from
 * another thread is seen either whole or not at all.
 */
#define DEFINE_FUNCTION_RETURNING(fallback, ret, name, params, args)              \
  SHIM_EXPORT name##_fn volatile executorch_nnapi_host_impl_##name = NULL;        \
  SHIM_EXPORT ret name params {                                                   \
    name##_fn impl = executorch_nnapi_host_impl_##name;                           \
    return impl != NULL ? impl args : (ret)(fallback);                            \
  }
#define DEFINE_RESULT_FUNCTION(ret, name, params, args) \
  DEFINE_FUNCTION_RETURNING(ANEURALNETWORKS_OP_FAILED, ret, name, params, args)
#define DEFINE_VALUE_FUNCTION(ret, name, params, args) \
  DEFINE_FUNCTION_RETURNING(0, ret, name, params, args)

#define DEFINE_VOID_FUNCTION(ret, name, params, args)                             \
  SHIM_EXPORT name##_fn volatile executorch_nnapi_host_impl_##name = NULL;        \
  SHIM_EXPORT ret name params {                                                   \
    name##_fn impl = executorch_nnapi_host_impl_##name;                           \
    if (impl != NULL) {                                                           \
      impl args;                                                                  \
    }                                                                             \
  }

NNAPI_RESULT_FUNCTIONS(DEFINE_RESULT_FUNCTION)
NNAPI_VALUE_FUNCTIONS(DEFINE_VALUE_FUNCTION)
NNAPI_VOID_FUNCTIONS(DEFINE_VOID_FUNCTION)

/* Ours, declared with the NNAPI functions; without a driver: no message. */
SHIM_EXPORT executorch_nnapi_host_last_error_fn volatile
    executorch_nnapi_host_impl_executorch_nnapi_host_last_error = NULL;
SHIM_EXPORT int executorch_nnapi_host_last_error(char* buf, size_t len) {
  executorch_nnapi_host_last_error_fn impl =
      executorch_nnapi_host_impl_executorch_nnapi_host_last_error;
  if (impl != NULL) {
    return impl(buf, len);
  }
  if (buf != NULL && len > 0) {
    buf[0] = '\0';
  }
  return 0;
}
