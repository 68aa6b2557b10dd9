// The NNAPI C API, reached only through dlopen + dlsym.
//
// No NDK header is used: the handle types, structs, constants and signatures
// come from nnapi_c_api.h (shared with the host shim), transcribed from the
// NNAPI specification, so the backend builds for the host (where our shim
// library stands in for NNAPI) and for any Android API level. A function the
// loaded library does not export (an older Android) leaves its pointer null;
// callers check before use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "nnapi_c_api.h"

namespace executorch_nnapi {

/// The NNAPI function table: one pointer per C function, exact signatures.
/// A pointer is null when the loaded library does not export the symbol.
struct NnapiApi {
#define NNAPI_DECLARE_POINTER(ret, name, params, args) name##_fn name;
  NNAPI_ALL_FUNCTIONS(NNAPI_DECLARE_POINTER)
#undef NNAPI_DECLARE_POINTER

  // Optional, exported only by our host shim: the driver's message for the
  // last failed call (NNAPI itself has no such function).
  executorch_nnapi_host_last_error_fn executorch_nnapi_host_last_error;
  // The host shim's per-operation durations (null on a device).
  executorch_nnapi_host_operation_durations_fn executorch_nnapi_host_operation_durations;

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

/// True when NNAPI can run models here: the library loads, is at feature
/// level 27 or newer, and (where the device API exists, level 29+) reports at
/// least one device. Otherwise false with the reason in *error, in words a
/// user can act on.
bool nnapi_usable(std::string* error);

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
