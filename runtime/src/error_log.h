// Error reporting shared by the backend's parts: every failure is logged with
// ET_LOG and remembered as "the last error", which Python reads through
// executorch_nnapi_last_error() to put the reason into its exception text.
#pragma once

#include <string>
#include <vector>

#include <executorch/runtime/platform/log.h>

namespace executorch_nnapi {

/// printf-style formatting into a std::string.
std::string format_message(const char* fmt, ...)
    __attribute__((format(printf, 1, 2)));

/// Records `message` as the last error (see executorch_nnapi_last_error).
void record_last_error(const std::string& message);

/// `message` cut at spaces into pieces that fit ET_LOG's fixed buffer (256
/// bytes with its own prefix), so a long message (one naming a library path)
/// is logged whole, over several lines, instead of truncated.
std::vector<std::string> split_for_log(const std::string& message);

}  // namespace executorch_nnapi

/// Logs an error (prefixed "NnapiBackend: ") and records it as the last error.
/// A macro so that ET_LOG reports the caller's file and line.
#define NNAPI_LOG_ERROR(...)                                                 \
  do {                                                                       \
    const std::string _nnapi_msg =                                           \
        "NnapiBackend: " + ::executorch_nnapi::format_message(__VA_ARGS__);  \
    ::executorch_nnapi::record_last_error(_nnapi_msg);                       \
    for (const std::string& _nnapi_line :                                    \
         ::executorch_nnapi::split_for_log(_nnapi_msg)) {                    \
      ET_LOG(Error, "%s", _nnapi_line.c_str());                              \
    }                                                                        \
  } while (0)

/// Logs an error message that is already formatted.
#define NNAPI_LOG_ERROR_STR(message) NNAPI_LOG_ERROR("%s", (message).c_str())

/// Logs a warning (not recorded as the last error).
#define NNAPI_LOG_WARNING(...)                                               \
  do {                                                                       \
    const std::string _nnapi_msg =                                           \
        "NnapiBackend: " + ::executorch_nnapi::format_message(__VA_ARGS__);  \
    for (const std::string& _nnapi_line :                                    \
         ::executorch_nnapi::split_for_log(_nnapi_msg)) {                    \
      ET_LOG(Info, "%s", _nnapi_line.c_str());                               \
    }                                                                        \
  } while (0)

/// The last error message the backend logged ("" if none). The pointer stays
/// valid until the calling thread calls this function again.
extern "C" __attribute__((visibility("default"))) const char*
executorch_nnapi_last_error();

/// Forgets the last error message.
extern "C" __attribute__((visibility("default"))) void
executorch_nnapi_clear_last_error();
