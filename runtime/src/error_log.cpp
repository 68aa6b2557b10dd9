#include "error_log.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <vector>

namespace executorch_nnapi {
namespace {

// Global rather than thread-local: ExecuTorch may call init/execute on a
// thread other than the one Python asks from.
std::mutex& last_error_mutex() {
  static std::mutex m;
  return m;
}

std::string& last_error_storage() {
  static std::string s;
  return s;
}

}  // namespace

std::string format_message(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  char small[256];
  const int n = std::vsnprintf(small, sizeof(small), fmt, args);
  va_end(args);
  std::string out;
  if (n < 0) {
    out = fmt;  // Formatting failed: the format itself is the best we have.
  } else if (static_cast<size_t>(n) < sizeof(small)) {
    out.assign(small, static_cast<size_t>(n));
  } else {
    std::vector<char> big(static_cast<size_t>(n) + 1);
    std::vsnprintf(big.data(), big.size(), fmt, copy);
    out.assign(big.data(), static_cast<size_t>(n));
  }
  va_end(copy);
  return out;
}

void record_last_error(const std::string& message) {
  std::lock_guard<std::mutex> lock(last_error_mutex());
  last_error_storage() = message;
}

}  // namespace executorch_nnapi

extern "C" const char* executorch_nnapi_last_error() {
  // A per-thread copy, so the returned pointer is not invalidated by another
  // thread logging a new error.
  static thread_local std::string copy;
  std::lock_guard<std::mutex> lock(executorch_nnapi::last_error_mutex());
  copy = executorch_nnapi::last_error_storage();
  return copy.c_str();
}

extern "C" void executorch_nnapi_clear_last_error() {
  std::lock_guard<std::mutex> lock(executorch_nnapi::last_error_mutex());
  executorch_nnapi::last_error_storage().clear();
}
