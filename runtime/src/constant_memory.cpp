#include "constant_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "error_log.h"

namespace executorch_nnapi {

using executorch::runtime::Error;

struct FileMapping {
  uintptr_t start = 0;
  uintptr_t end = 0;
  uint64_t file_offset = 0;
  uint64_t device = 0;
  uint64_t inode = 0;
  // A private writable mapping may hold pages that differ from the file.
  bool copy_on_write = false;
  std::string path;
};

namespace {

// The mappings of regular files in this process, from /proc/self/maps
// ("start-end perms offset major:minor inode path").
std::vector<FileMapping> file_mappings() {
  std::vector<FileMapping> out;
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) {
    return out;
  }
  char line[4096 + 256];
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    uintptr_t start = 0, end = 0;
    unsigned long long offset = 0, inode = 0;
    unsigned major = 0, minor = 0;
    char perms[8] = {0};
    int path_at = 0;
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %x:%x %llu %n", &start,
                    &end, perms, &offset, &major, &minor, &inode, &path_at) < 7 ||
        inode == 0 || line[path_at] != '/') {
      continue;
    }
    FileMapping m;
    m.start = start;
    m.end = end;
    m.file_offset = offset;
    m.device = makedev(major, minor);
    m.inode = inode;
    m.copy_on_write = perms[1] == 'w' && perms[3] == 'p';
    m.path.assign(line + path_at);
    m.path.erase(m.path.find_last_not_of("\n") + 1);
    if (m.path.size() > 10 && m.path.compare(m.path.size() - 10, 10, " (deleted)") == 0) {
      continue;  // no longer reachable by its path
    }
    // The kernel may show one mapping as several lines (a range mapped, or
    // locked, in parts): join lines that continue the file where the last
    // one ended.
    FileMapping* last = out.empty() ? nullptr : &out.back();
    if (last != nullptr && last->end == m.start && last->device == m.device &&
        last->inode == m.inode && last->copy_on_write == m.copy_on_write &&
        last->file_offset + (last->end - last->start) == m.file_offset) {
      last->end = m.end;
      continue;
    }
    out.push_back(std::move(m));
  }
  std::fclose(maps);
  return out;
}

// Whether the file's bytes at `offset` start and end as `value` does (the
// mapping was found by address; this guards against a file replaced since).
bool file_holds(int fd, uint64_t offset, const void* value, size_t size) {
  uint8_t probe[64];
  const size_t n = size < sizeof(probe) ? size : sizeof(probe);
  for (uint64_t at : {offset, offset + size - n}) {
    if (pread(fd, probe, n, static_cast<off_t>(at)) != static_cast<ssize_t>(n) ||
        std::memcmp(probe, static_cast<const uint8_t*>(value) + (at - offset), n) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

ConstantMemory::~ConstantMemory() {
  for (ANeuralNetworksMemory* memory : memories_) {
    if (memory != nullptr) {
      api_->ANeuralNetworksMemory_free(memory);
    }
  }
}

Error ConstantMemory::create(std::shared_ptr<const NnapiApi> api,
                             const LoadedBlob& blob,
                             std::unique_ptr<ConstantMemory>* out) {
  std::unique_ptr<ConstantMemory> constants(new (std::nothrow) ConstantMemory());
  if (constants == nullptr) {
    NNAPI_LOG_ERROR("out of memory finding the program's constants");
    return Error::MemoryAllocationFailed;
  }
  constants->api_ = std::move(api);
  std::vector<const std::vector<OperandInfo>*> models = {&blob.operands()};
  for (uint32_t k : blob.subgraph_build_order()) {
    models.push_back(&blob.operands_of(blob.subgraph(k)));
  }
  if (constants->api_->ANeuralNetworksMemory_createFromFd == nullptr ||
      constants->api_->ANeuralNetworksModel_setOperandValueFromMemory == nullptr) {
    *out = std::move(constants);  // this NNAPI takes constants by pointer only
    return Error::Ok;
  }
  const std::vector<FileMapping> maps = file_mappings();
  for (const std::vector<OperandInfo>* operands : models) {
    for (const OperandInfo& info : *operands) {
      if (info.value == nullptr || info.value_size <= kMaxImmediateValueBytes ||
          constants->locations_.count(info.value) != 0) {
        continue;
      }
      const Error err = constants->add(info, maps);
      if (err != Error::Ok) {
        return err;
      }
    }
  }
  *out = std::move(constants);
  return Error::Ok;
}

// Locates one constant in a file mapping, or counts it as by pointer.
Error ConstantMemory::add(const OperandInfo& info,
                          const std::vector<FileMapping>& maps) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(info.value);
  const FileMapping* found = nullptr;
  for (const FileMapping& m : maps) {
    if (m.start <= at && at + info.value_size <= m.end && !m.copy_on_write) {
      found = &m;
      break;
    }
  }
  const uint64_t offset = found != nullptr ? found->file_offset + (at - found->start) : 0;
  const int fd = found != nullptr ? open(found->path.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  struct stat st;
  // NNAPI reads an operand's data in memory at its element alignment.
  const bool usable = fd >= 0 && fstat(fd, &st) == 0 &&
                      static_cast<uint64_t>(st.st_dev) == found->device &&
                      static_cast<uint64_t>(st.st_ino) == found->inode &&
                      info.element_size > 0 && offset % info.element_size == 0 &&
                      file_holds(fd, offset, info.value, info.value_size);
  if (!usable) {
    if (fd >= 0) {
      close(fd);
    }
    pointer_bytes_ += info.value_size;
    return Error::Ok;
  }
  size_t file = 0;
  const bool made = memory_of(*found, fd, static_cast<uint64_t>(st.st_size), &file);
  close(fd);  // NNAPI keeps its own duplicate
  if (made) {
    locations_[info.value] = Location{file, static_cast<size_t>(offset)};
    mapped_bytes_ += info.value_size;
  } else {
    pointer_bytes_ += info.value_size;
  }
  return Error::Ok;
}

// The index of the NNAPI memory of the file `fd` (of `mapping`), made on
// first use over the whole file; false (logged once per file) when NNAPI
// cannot map it, and its constants go by pointer.
bool ConstantMemory::memory_of(const FileMapping& mapping, int fd,
                               uint64_t file_size, size_t* file) {
  const std::pair<uint64_t, uint64_t> id{mapping.device, mapping.inode};
  for (size_t k = 0; k < file_ids_.size(); ++k) {
    if (file_ids_[k] == id) {
      *file = k;
      return memories_[k] != nullptr;
    }
  }
  ANeuralNetworksMemory* memory = nullptr;
  const int rc = api_->ANeuralNetworksMemory_createFromFd(
      static_cast<size_t>(file_size), PROT_READ, fd, 0, &memory);
  if (rc != ANEURALNETWORKS_NO_ERROR) {
    NNAPI_LOG_WARNING("constants of the program file %s are given to NNAPI by "
                      "pointer: ANeuralNetworksMemory_createFromFd failed (%" PRIu64
                      " bytes): %s",
                      mapping.path.c_str(), file_size,
                      nnapi_describe_result(*api_, rc).c_str());
    memory = nullptr;
  }
  memories_.push_back(memory);
  file_ids_.push_back(id);
  *file = memories_.size() - 1;
  return memory != nullptr;
}

bool ConstantMemory::find(const void* value, const ANeuralNetworksMemory** memory,
                          size_t* offset) const {
  const auto it = locations_.find(value);
  if (it == locations_.end()) {
    return false;
  }
  *memory = memories_[it->second.file];
  *offset = it->second.offset;
  return true;
}

}  // namespace executorch_nnapi
