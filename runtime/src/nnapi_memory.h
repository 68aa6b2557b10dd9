// NNAPI memory objects the runtime makes from file descriptors
// (ANeuralNetworksMemory_createFromFd, feature level 27): shared memory it
// owns (the delegate's state) and, for constants, the file a loaded program's
// bytes are mapped from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <executorch/runtime/core/error.h>

#include "nnapi_api.h"

namespace executorch_nnapi {

/// Anonymous shared memory (memfd, or ashmem through libandroid where memfd
/// is refused), mapped read-write in this process and wrapped in one NNAPI
/// memory object. Its bytes start zeroed.
class SharedRegion {
 public:
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  /// Creates a region of at least `bytes` bytes (named `name` where the
  /// system shows names). Fails (logged) when no shared memory can be made,
  /// mapped, or given to NNAPI.
  static executorch::runtime::Error create(std::shared_ptr<const NnapiApi> api,
                                           size_t bytes, const char* name,
                                           std::unique_ptr<SharedRegion>* out);

  uint8_t* data() const { return static_cast<uint8_t*>(mapping_); }
  size_t size() const { return size_; }
  const ANeuralNetworksMemory* memory() const { return memory_; }

 private:
  SharedRegion() = default;

  std::shared_ptr<const NnapiApi> api_;
  void* mapping_ = nullptr;
  size_t size_ = 0;
  ANeuralNetworksMemory* memory_ = nullptr;
};

/// A file descriptor for `bytes` bytes of anonymous shared memory, or -1
/// with the reason in *error.
int create_shared_memory_fd(const char* name, size_t bytes, std::string* error);

}  // namespace executorch_nnapi
