#include "nnapi_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#ifdef __ANDROID__
#include <sys/system_properties.h>
#endif

#include "error_log.h"

namespace executorch_nnapi {
namespace {

constexpr const char* kDefaultLibrary = "libneuralnetworks.so";

struct LoaderState {
  std::mutex mutex;
  // Set by executorch_nnapi_set_library_path; empty = default.
  std::string requested_path;
  std::shared_ptr<const NnapiApi> api;
};

LoaderState& loader_state() {
  static LoaderState state;
  return state;
}

std::string effective_path(const LoaderState& state) {
  if (!state.requested_path.empty()) {
    return state.requested_path;
  }
  const char* env = std::getenv("EXECUTORCH_NNAPI_LIBRARY");
  if (env != nullptr && env[0] != '\0') {
    return env;
  }
  return kDefaultLibrary;
}

int64_t device_feature_level(const NnapiApi& api) {
  if (api.ANeuralNetworks_getRuntimeFeatureLevel != nullptr) {
    const int64_t level = api.ANeuralNetworks_getRuntimeFeatureLevel();
    if (level > 0) {
      return level;
    }
#ifndef __ANDROID__
    // Only a host shim with no driver behind it answers 0: not usable.
    return 0;
#endif
  }
#ifdef __ANDROID__
  // Before API 31 the NNAPI feature level is the device API level.
  char sdk[PROP_VALUE_MAX] = {0};
  if (__system_property_get("ro.build.version.sdk", sdk) > 0) {
    const long value = std::strtol(sdk, nullptr, 10);
    if (value > 0) {
      return value;
    }
  }
#endif
  return ANEURALNETWORKS_FEATURE_LEVEL_1;
}

std::shared_ptr<const NnapiApi> load_library(const std::string& path,
                                             std::string* error) {
  dlerror();  // Clear any stale message.
  // RTLD_LOCAL: the NNAPI symbols must not leak into the global namespace
  // where they could shadow another copy of the library.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = "cannot load the NNAPI library '" + path +
             "': " + (why != nullptr ? why : "unknown dlopen error");
    return nullptr;
  }
  // Value-initialization zero-fills the table: every pointer starts null.
  auto api = std::make_shared<NnapiApi>();
  api->library_path = path;
  api->library_handle = handle;

  // Missing symbols stay null: an older NNAPI simply lacks them.
#define NNAPI_LOAD(ret, name, params, args) \
  api->name = reinterpret_cast<name##_fn>(dlsym(handle, #name));
  NNAPI_ALL_FUNCTIONS(NNAPI_LOAD)
#undef NNAPI_LOAD
  api->executorch_nnapi_host_last_error =
      reinterpret_cast<executorch_nnapi_host_last_error_fn>(
          dlsym(handle, "executorch_nnapi_host_last_error"));
  api->executorch_nnapi_host_operation_durations =
      reinterpret_cast<executorch_nnapi_host_operation_durations_fn>(
          dlsym(handle, "executorch_nnapi_host_operation_durations"));

  // The API-27 core every model build and execution needs. Without it the
  // library is not (a usable) NNAPI.
  struct Required {
    const char* name;
    bool present;
  };
  const Required required[] = {
      {"ANeuralNetworksModel_create", api->ANeuralNetworksModel_create != nullptr},
      {"ANeuralNetworksModel_free", api->ANeuralNetworksModel_free != nullptr},
      {"ANeuralNetworksModel_finish", api->ANeuralNetworksModel_finish != nullptr},
      {"ANeuralNetworksModel_addOperand", api->ANeuralNetworksModel_addOperand != nullptr},
      {"ANeuralNetworksModel_setOperandValue",
       api->ANeuralNetworksModel_setOperandValue != nullptr},
      {"ANeuralNetworksModel_addOperation",
       api->ANeuralNetworksModel_addOperation != nullptr},
      {"ANeuralNetworksModel_identifyInputsAndOutputs",
       api->ANeuralNetworksModel_identifyInputsAndOutputs != nullptr},
      {"ANeuralNetworksCompilation_create",
       api->ANeuralNetworksCompilation_create != nullptr},
      {"ANeuralNetworksCompilation_free", api->ANeuralNetworksCompilation_free != nullptr},
      {"ANeuralNetworksCompilation_setPreference",
       api->ANeuralNetworksCompilation_setPreference != nullptr},
      {"ANeuralNetworksCompilation_finish",
       api->ANeuralNetworksCompilation_finish != nullptr},
      {"ANeuralNetworksExecution_create", api->ANeuralNetworksExecution_create != nullptr},
      {"ANeuralNetworksExecution_free", api->ANeuralNetworksExecution_free != nullptr},
      {"ANeuralNetworksExecution_setInput",
       api->ANeuralNetworksExecution_setInput != nullptr},
      {"ANeuralNetworksExecution_setOutput",
       api->ANeuralNetworksExecution_setOutput != nullptr},
      {"ANeuralNetworksExecution_startCompute",
       api->ANeuralNetworksExecution_startCompute != nullptr},
      {"ANeuralNetworksEvent_wait", api->ANeuralNetworksEvent_wait != nullptr},
      {"ANeuralNetworksEvent_free", api->ANeuralNetworksEvent_free != nullptr},
  };
  for (const Required& r : required) {
    if (!r.present) {
      // The handle is deliberately not dlclosed (see nnapi_api()).
      *error = "the library '" + path + "' does not export " + r.name +
               ", so it is not an NNAPI implementation";
      return nullptr;
    }
  }
  api->feature_level = device_feature_level(*api);
  return api;
}

}  // namespace

std::shared_ptr<const NnapiApi> nnapi_api(std::string* error) {
  // No call into the library happens under the mutex: on the host those
  // calls enter the Python driver, which must not wait on our lock.
  LoaderState& state = loader_state();
  std::string path;
  std::shared_ptr<const NnapiApi> cached;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    path = effective_path(state);
    if (state.api != nullptr && state.api->library_path == path) {
      cached = state.api;
    }
  }
  if (cached != nullptr) {
    // The level is re-read: a host driver can be installed into an already
    // loaded shim (which answers 0 until then). A change yields a new table,
    // so holders of the old one are unaffected.
    const int64_t level = device_feature_level(*cached);
    if (level == cached->feature_level) {
      return cached;
    }
    auto updated = std::make_shared<NnapiApi>(*cached);
    updated->feature_level = level;
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.api == cached) {
      state.api = updated;
    }
    return updated;
  }
  // A previous table (other path) is dropped from the cache but its library
  // is never dlclosed: models compiled with it may still be alive and hold
  // its function pointers, and unloading a driver that may have started
  // threads is unsafe. Failures are not cached, so a fixed path can be
  // retried. Two threads loading at once both dlopen the same (refcounted)
  // library; the last table stored wins, and both are valid.
  std::string why;
  std::shared_ptr<const NnapiApi> api = load_library(path, &why);
  if (api == nullptr) {
    if (error != nullptr) {
      *error = why;
    }
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(state.mutex);
  if (effective_path(state) == path) {
    state.api = api;
  }
  return api;
}

bool nnapi_usable(std::string* error) {
  std::shared_ptr<const NnapiApi> api = nnapi_api(error);
  if (api == nullptr) {
    *error += " (on Android NNAPI needs Android 8.1, API 27; on a Linux host "
              "the host driver's shim must be installed)";
    return false;
  }
  if (api->feature_level < ANEURALNETWORKS_FEATURE_LEVEL_1) {
    *error = format_message("'%s' is at feature level %s (a host shim with no "
                            "driver reports 0); NNAPI models need 27 (Android "
                            "8.1) or newer",
                            api->library_path.c_str(),
                            nnapi_feature_level_name(api->feature_level).c_str());
    return false;
  }
  if (api->feature_level >= ANEURALNETWORKS_FEATURE_LEVEL_3 &&
      api->ANeuralNetworks_getDeviceCount != nullptr) {
    uint32_t count = 0;
    const int rc = api->ANeuralNetworks_getDeviceCount(&count);
    if (rc != ANEURALNETWORKS_NO_ERROR || count == 0) {
      *error = format_message("'%s' reports no NNAPI device (%s)",
                              api->library_path.c_str(),
                              rc != ANEURALNETWORKS_NO_ERROR
                                  ? nnapi_describe_result(*api, rc).c_str()
                                  : "0 devices");
      return false;
    }
  }
  return true;
}

const char* nnapi_result_name(int code) {
  switch (code) {
    case ANEURALNETWORKS_NO_ERROR:
      return "NO_ERROR";
    case ANEURALNETWORKS_OUT_OF_MEMORY:
      return "OUT_OF_MEMORY";
    case ANEURALNETWORKS_INCOMPLETE:
      return "INCOMPLETE";
    case ANEURALNETWORKS_UNEXPECTED_NULL:
      return "UNEXPECTED_NULL";
    case ANEURALNETWORKS_BAD_DATA:
      return "BAD_DATA";
    case ANEURALNETWORKS_OP_FAILED:
      return "OP_FAILED";
    case ANEURALNETWORKS_BAD_STATE:
      return "BAD_STATE";
    case ANEURALNETWORKS_UNMAPPABLE:
      return "UNMAPPABLE";
    case ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE:
      return "OUTPUT_INSUFFICIENT_SIZE";
    case ANEURALNETWORKS_UNAVAILABLE_DEVICE:
      return "UNAVAILABLE_DEVICE";
    case ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT:
      return "MISSED_DEADLINE_TRANSIENT";
    case ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT:
      return "MISSED_DEADLINE_PERSISTENT";
    case ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT:
      return "RESOURCE_EXHAUSTED_TRANSIENT";
    case ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT:
      return "RESOURCE_EXHAUSTED_PERSISTENT";
    case ANEURALNETWORKS_DEAD_OBJECT:
      return "DEAD_OBJECT";
    default:
      return "UNKNOWN";
  }
}

std::string nnapi_describe_result(const NnapiApi& api, int code) {
  std::string out =
      format_message("%s (%d)", nnapi_result_name(code), code);
  if (api.executorch_nnapi_host_last_error != nullptr) {
    char buf[2048];
    buf[0] = '\0';
    const int n = api.executorch_nnapi_host_last_error(buf, sizeof(buf));
    buf[sizeof(buf) - 1] = '\0';
    if (n > 0 && buf[0] != '\0') {
      out += ": ";
      out += buf;
    }
  }
  return out;
}

std::string nnapi_feature_level_name(int64_t level) {
  if (level >= 27 && level <= 31) {
    static const char* const kRelease[] = {"8.1", "9", "10", "11", "12"};
    return format_message("%lld (Android %s)", static_cast<long long>(level),
                          kRelease[level - 27]);
  }
  if (level > 1000000 && level < 1000100) {
    // From Android 13 the NNAPI runtime reports feature level 8
    // (docs/feature_levels.md); levels 6 and 7 name no Android release.
    return format_message("%lld (NNAPI feature level %lld%s)",
                          static_cast<long long>(level),
                          static_cast<long long>(level - 1000000),
                          level == ANEURALNETWORKS_FEATURE_LEVEL_8
                              ? ", Android 13+"
                              : "");
  }
  return format_message("%lld", static_cast<long long>(level));
}

}  // namespace executorch_nnapi

extern "C" void executorch_nnapi_set_library_path(const char* path) {
  executorch_nnapi::LoaderState& state = executorch_nnapi::loader_state();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.requested_path = path != nullptr ? path : "";
  // The next nnapi_api() call loads the library afresh (dlopen of the same
  // path returns the same handle; the symbols and level are re-read).
  state.api.reset();
}
