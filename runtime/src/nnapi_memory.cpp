#include "nnapi_memory.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <new>

#include "error_log.h"

namespace executorch_nnapi {

using executorch::runtime::Error;

namespace {

// memfd_create through the system call: glibc before 2.27 and bionic before
// API 30 have no wrapper, every kernel since 3.17 has the call.
int memfd(const char* name) {
#ifdef SYS_memfd_create
  constexpr unsigned kCloseOnExec = 1;  // MFD_CLOEXEC
  return static_cast<int>(syscall(SYS_memfd_create, name, kCloseOnExec));
#else
  (void)name;
  errno = ENOSYS;
  return -1;
#endif
}

// ASharedMemory_create (libandroid, API 26): ashmem, what NNAPI's own runtime
// uses, for devices whose kernel or policy refuses memfd.
int android_shared_memory(const char* name, size_t bytes) {
  using CreateFn = int (*)(const char*, size_t);
  static CreateFn create = [] {
    void* library = dlopen("libandroid.so", RTLD_NOW | RTLD_LOCAL);
    return library != nullptr
               ? reinterpret_cast<CreateFn>(dlsym(library, "ASharedMemory_create"))
               : nullptr;
  }();
  return create != nullptr ? create(name, bytes) : -1;
}

}  // namespace

int create_shared_memory_fd(const char* name, size_t bytes, std::string* error) {
  int fd = memfd(name);
  if (fd >= 0) {
    if (ftruncate(fd, static_cast<off_t>(bytes)) == 0) {
      return fd;
    }
    *error = format_message("ftruncate of a memfd to %zu bytes failed: %s",
                            bytes, std::strerror(errno));
    close(fd);
    return -1;
  }
  const std::string memfd_error = std::strerror(errno);
  fd = android_shared_memory(name, bytes);
  if (fd < 0) {
    *error = format_message("memfd_create failed (%s) and there is no "
                            "ASharedMemory_create", memfd_error.c_str());
  }
  return fd;
}

SharedRegion::~SharedRegion() {
  if (memory_ != nullptr) {
    api_->ANeuralNetworksMemory_free(memory_);
  }
  if (mapping_ != nullptr) {
    munmap(mapping_, size_);
  }
}

Error SharedRegion::create(std::shared_ptr<const NnapiApi> api, size_t bytes,
                           const char* name, std::unique_ptr<SharedRegion>* out) {
  std::unique_ptr<SharedRegion> region(new (std::nothrow) SharedRegion());
  if (region == nullptr) {
    NNAPI_LOG_ERROR("out of memory creating shared memory for %s", name);
    return Error::MemoryAllocationFailed;
  }
  region->api_ = std::move(api);
  // NNAPI maps whole pages; a region of 0 bytes cannot be mapped.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  region->size_ = ((bytes > 0 ? bytes : 1) + page - 1) / page * page;
  std::string error;
  const int fd = create_shared_memory_fd(name, region->size_, &error);
  if (fd < 0) {
    NNAPI_LOG_ERROR("cannot create %zu bytes of shared memory for %s: %s",
                    region->size_, name, error.c_str());
    return Error::MemoryAllocationFailed;
  }
  void* mapping = mmap(nullptr, region->size_, PROT_READ | PROT_WRITE,
                       MAP_SHARED, fd, 0);
  if (mapping == MAP_FAILED) {
    NNAPI_LOG_ERROR("cannot map %zu bytes of shared memory for %s: %s",
                    region->size_, name, std::strerror(errno));
    close(fd);
    return Error::MemoryAllocationFailed;
  }
  region->mapping_ = mapping;
  // NNAPI duplicates the descriptor; the mapping keeps the memory for us.
  const int rc = region->api_->ANeuralNetworksMemory_createFromFd(
      region->size_, PROT_READ | PROT_WRITE, fd, 0, &region->memory_);
  close(fd);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    region->memory_ = nullptr;
    NNAPI_LOG_ERROR("ANeuralNetworksMemory_createFromFd failed for %s (%zu "
                    "bytes): %s",
                    name, region->size_,
                    nnapi_describe_result(*region->api_, rc).c_str());
    return rc == ANEURALNETWORKS_OUT_OF_MEMORY ? Error::MemoryAllocationFailed
                                               : Error::Internal;
  }
  *out = std::move(region);
  return Error::Ok;
}

}  // namespace executorch_nnapi
