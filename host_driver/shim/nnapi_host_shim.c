/*
 * Host stand-in for libneuralnetworks.so.
 *
 * Exports the NNAPI C functions with their exact signatures and forwards each
 * call to a function pointer `executorch_nnapi_host_impl_<Name>` that the
 * Python host driver (executorch_nnapi.host_driver) fills in through
 * ctypes. The C++ backend dlopens this library exactly as it dlopens NNAPI on
 * a phone, so every host test runs the device code path.
 *
 * In a Python process the driver is installed from Python (import
 * executorch_nnapi.runtime). In a process that did not start in Python (the
 * C++ runner, any C++ app on the host), the first call finds no driver and
 * the shim starts one itself: it dlopens libpython (the one the package was
 * built with, or $EXECUTORCH_NNAPI_LIBPYTHON), initializes an interpreter, and
 * runs host_driver.install() on this very library (see start_embedded_driver).
 * libpython is never linked, so the shim still loads into a Python process
 * (whose libpython it must not duplicate) and builds without Python headers.
 *
 * While a pointer is still NULL (no driver, and none could be started) a
 * function returning a result code returns ANEURALNETWORKS_OP_FAILED, a void
 * function does nothing and the int64/uint64 functions return 0.
 *
 * The declarations (handles, structs, constants, every signature) come from
 * nnapi_c_api.h, the header the C++ backend builds its function table from.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nnapi_c_api.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

#ifndef EXECUTORCH_NNAPI_LIBPYTHON
#define EXECUTORCH_NNAPI_LIBPYTHON "libpython3.so"
#endif

/* The few CPython entry points the bootstrap needs, by their C signatures. */
typedef int (*py_is_initialized_fn)(void);
typedef void (*py_initialize_ex_fn)(int);
typedef int (*py_run_simple_string_fn)(const char*);
typedef void* (*py_eval_save_thread_fn)(void);

static pthread_once_t embedded_driver_once = PTHREAD_ONCE_INIT;

/*
 * The Python that installs the driver into this library. %s: the directory
 * holding site-packages; %d: 1 to load torch with RTLD_DEEPBIND; %s: this
 * library's path. Only the host driver is imported (not
 * executorch_nnapi.runtime, which would load the backend library a second
 * time: the process already has it, it is what calls us).
 *
 * The package's site-packages goes before the base interpreter's (site only
 * appends it), so the modules imported are those a Python process of that
 * environment imports. RTLD_DEEPBIND: torch's libraries call their own
 * symbols first. Without it, in a process whose libraries export BLAS, cpuinfo
 * or pthreadpool functions (ExecuTorch's optimized kernels export sgemm_,
 * its threadpool cpuinfo_* and pthreadpool_*), torch's matrix products ran on
 * those and differed from a Python process's by a few ulps
 * (docs/runtime.md, "One answer per input").
 */
static const char kBootstrap[] =
    "import os, site, sys\n"
    "base = [p for p in sys.path if p in set(site.getsitepackages())]\n"
    "before = list(sys.path)\n"
    "site.addsitedir(%s)\n"
    "added = [p for p in sys.path if p not in before]\n"
    "at = before.index(base[0]) if base else len(before)\n"
    "sys.path[:] = before[:at] + added + before[at:]\n"
    "if %d:\n"
    "    flags = sys.getdlopenflags()\n"
    "    sys.setdlopenflags(flags | os.RTLD_DEEPBIND)\n"
    "    try:\n"
    "        import torch\n"
    "    finally:\n"
    "        sys.setdlopenflags(flags)\n"
    "from executorch_nnapi import host_driver\n"
    "host_driver.install(int(os.environ.get('EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL', '30')), shim_path=%s)\n";

/*
 * Sanitizer runtimes refuse RTLD_DEEPBIND (it would bypass their interceptors):
 * under one, torch loads as usual and may use the process's BLAS.
 */
static int deep_bind_allowed(void) {
  static const char* const kSanitizerEntries[] = {"__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"};
  for (size_t i = 0; i < sizeof(kSanitizerEntries) / sizeof(kSanitizerEntries[0]); ++i) {
    if (dlsym(RTLD_DEFAULT, kSanitizerEntries[i]) != NULL) return 0;
  }
  return 1;
}

/* Appends s as a Python string literal (single-quoted, escaped) to out. */
static void append_py_literal(char* out, size_t cap, const char* s) {
  size_t n = strlen(out);
  if (n + 2 >= cap) return;
  out[n++] = '\'';
  for (; *s != '\0' && n + 3 < cap; ++s) {
    if (*s == '\\' || *s == '\'') out[n++] = '\\';
    out[n++] = *s;
  }
  out[n++] = '\'';
  out[n] = '\0';
}

static void start_embedded_driver(void) {
  /* Inside a Python process the driver is Python's to install. */
  if (dlsym(RTLD_DEFAULT, "Py_IsInitialized") != NULL) {
    return;
  }
  Dl_info self;
  if (dladdr((void*)&start_embedded_driver, &self) == 0 || self.dli_fname == NULL) {
    fprintf(stderr, "executorch-nnapi host shim: cannot find its own path; no host driver\n");
    return;
  }
  const char* libpython = getenv("EXECUTORCH_NNAPI_LIBPYTHON");
  if (libpython == NULL || libpython[0] == '\0') libpython = EXECUTORCH_NNAPI_LIBPYTHON;
  /* RTLD_GLOBAL: extension modules (torch) resolve the C API from it. */
  void* py = dlopen(libpython, RTLD_NOW | RTLD_GLOBAL);
  if (py == NULL) {
    fprintf(stderr, "executorch-nnapi host shim: cannot load %s to start the host NNAPI driver (%s); "
            "set EXECUTORCH_NNAPI_LIBPYTHON\n", libpython, dlerror());
    return;
  }
  py_is_initialized_fn is_initialized = (py_is_initialized_fn)dlsym(py, "Py_IsInitialized");
  py_initialize_ex_fn initialize = (py_initialize_ex_fn)dlsym(py, "Py_InitializeEx");
  py_run_simple_string_fn run = (py_run_simple_string_fn)dlsym(py, "PyRun_SimpleString");
  py_eval_save_thread_fn save_thread = (py_eval_save_thread_fn)dlsym(py, "PyEval_SaveThread");
  if (!is_initialized || !initialize || !run || !save_thread) {
    fprintf(stderr, "executorch-nnapi host shim: %s is not a CPython library\n", libpython);
    return;
  }
  if (is_initialized()) return;
  /* site-packages is three levels up: site-packages/executorch_nnapi/host_driver/<shim>. */
  char site_dir[4096];
  snprintf(site_dir, sizeof(site_dir), "%s", self.dli_fname);
  for (int up = 0; up < 3; ++up) {
    char* slash = strrchr(site_dir, '/');
    if (slash == NULL) break;
    *slash = '\0';
  }
  char site_literal[4200] = "", shim_literal[4200] = "", script[sizeof(kBootstrap) + 8400];
  append_py_literal(site_literal, sizeof(site_literal), site_dir);
  append_py_literal(shim_literal, sizeof(shim_literal), self.dli_fname);
  snprintf(script, sizeof(script), kBootstrap, site_literal, deep_bind_allowed(), shim_literal);
  initialize(0); /* 0: leave the process's signal handlers alone */
  if (run(script) != 0) {
    fprintf(stderr, "executorch-nnapi host shim: starting the host NNAPI driver failed (traceback above)\n");
  }
  /* Release the GIL: the driver's ctypes callbacks take it on every call. */
  save_thread();
}

/* The driver's pointer for `name`, starting the embedded driver once if none is set. */
#define IMPL_OR_START(name)                                           \
  name##_fn impl = executorch_nnapi_host_impl_##name;                 \
  if (impl == NULL) {                                                 \
    pthread_once(&embedded_driver_once, start_embedded_driver);       \
    impl = executorch_nnapi_host_impl_##name;                         \
  }

/*
 * Each function reads its pointer once, so a driver installed or replaced from
 * another thread is seen either whole or not at all.
 */
#define DEFINE_FUNCTION_RETURNING(fallback, ret, name, params, args)              \
  SHIM_EXPORT name##_fn volatile executorch_nnapi_host_impl_##name = NULL;        \
  SHIM_EXPORT ret name params {                                                   \
    IMPL_OR_START(name)                                                           \
    return impl != NULL ? impl args : (ret)(fallback);                            \
  }
#define DEFINE_RESULT_FUNCTION(ret, name, params, args) \
  DEFINE_FUNCTION_RETURNING(ANEURALNETWORKS_OP_FAILED, ret, name, params, args)
#define DEFINE_VALUE_FUNCTION(ret, name, params, args) \
  DEFINE_FUNCTION_RETURNING(0, ret, name, params, args)

#define DEFINE_VOID_FUNCTION(ret, name, params, args)                             \
  SHIM_EXPORT name##_fn volatile executorch_nnapi_host_impl_##name = NULL;        \
  SHIM_EXPORT ret name params {                                                   \
    IMPL_OR_START(name)                                                           \
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

/* Ours too (profiling); without a driver: OP_FAILED, no durations. */
SHIM_EXPORT executorch_nnapi_host_operation_durations_fn volatile
    executorch_nnapi_host_impl_executorch_nnapi_host_operation_durations = NULL;
SHIM_EXPORT int executorch_nnapi_host_operation_durations(
    const ANeuralNetworksExecution* execution, uint64_t* durations,
    uint32_t capacity, uint32_t* count) {
  executorch_nnapi_host_operation_durations_fn impl =
      executorch_nnapi_host_impl_executorch_nnapi_host_operation_durations;
  return impl != NULL ? impl(execution, durations, capacity, count)
                      : ANEURALNETWORKS_OP_FAILED;
}
