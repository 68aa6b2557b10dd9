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

std::vector<std::string> split_for_log(const std::string& message) {
  // ET_LOG's buffer is 256 bytes and its line prefix (level, time, file:line)
  // takes up to ~60; continuation lines are marked so they read as one.
  constexpr size_t kPiece = 180;
  static const std::string kMore = "NnapiBackend: ... ";
  std::vector<std::string> lines;
  size_t start = 0;
  while (message.size() - start > kPiece) {
    size_t cut = message.rfind(' ', start + kPiece);
    if (cut == std::string::npos || cut <= start) {
      cut = start + kPiece;  // One word longer than a piece: cut inside it.
    }
    lines.push_back((lines.empty() ? "" : kMore) +
                    message.substr(start, cut - start));
    start = message[cut] == ' ' ? cut + 1 : cut;
  }
  lines.push_back((lines.empty() ? "" : kMore) + message.substr(start));
  return lines;
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
