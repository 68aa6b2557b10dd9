// Constants handed to NNAPI from memory that maps the program's file
// (docs/architecture.md, "Weights without a copy").
//
// A constant longer than NNAPI's 128-byte immediate limit given with
// setOperandValue is only referenced by the call, and NNAPI's runtime copies
// all of them into shared memory when the model is finished, so a model holds
// a second copy of its weights. When the program was loaded from a file that
// is mapped into this process (ExecuTorch's MmapDataLoader), each such
// constant's bytes are a range of that file: the runtime makes one NNAPI
// memory of the file (ANeuralNetworksMemory_createFromFd, feature level 27)
// and hands the constant as (memory, offset) with
// setOperandValueFromMemory, which the driver maps rather than copies. A
// constant in memory no file backs (a program loaded from a buffer) is still
// handed by pointer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <executorch/runtime/core/error.h>

#include "blob_reader.h"
#include "nnapi_api.h"

namespace executorch_nnapi {

/// Constants larger than this are referenced, not copied, by setOperandValue
/// (ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES).
constexpr size_t kMaxImmediateValueBytes = 128;

/// One file mapping of this process (a line of /proc/self/maps).
struct FileMapping;

class ConstantMemory {
 public:
  ~ConstantMemory();
  ConstantMemory(const ConstantMemory&) = delete;
  ConstantMemory& operator=(const ConstantMemory&) = delete;

  /// Finds the file behind each constant of `blob` (any model) longer than
  /// kMaxImmediateValueBytes and makes one NNAPI memory per file. A constant
  /// without a file, or whose file NNAPI cannot map (logged), or any
  /// constant when this NNAPI lacks the memory functions, stays by pointer;
  /// fails only for want of host memory.
  static executorch::runtime::Error create(std::shared_ptr<const NnapiApi> api,
                                           const LoadedBlob& blob,
                                           std::unique_ptr<ConstantMemory>* out);

  /// Where the constant whose bytes are at `value` is in NNAPI memory; false
  /// when it is handed by pointer.
  bool find(const void* value, const ANeuralNetworksMemory** memory,
            size_t* offset) const;

  /// Bytes of constants found in files, and of those left by pointer.
  size_t mapped_bytes() const { return mapped_bytes_; }
  size_t pointer_bytes() const { return pointer_bytes_; }

 private:
  struct Location {
    size_t file;
    size_t offset;
  };

  ConstantMemory() = default;
  executorch::runtime::Error add(const OperandInfo& info,
                                 const std::vector<FileMapping>& maps);
  bool memory_of(const FileMapping& mapping, int fd, uint64_t file_size,
                 size_t* file);

  std::shared_ptr<const NnapiApi> api_;
  // One NNAPI memory per mapped file (its whole length, read-only).
  std::vector<ANeuralNetworksMemory*> memories_;
  std::vector<std::pair<uint64_t, uint64_t>> file_ids_;  // (device, inode)
  std::map<const void*, Location> locations_;
  size_t mapped_bytes_ = 0;
  size_t pointer_bytes_ = 0;
};

}  // namespace executorch_nnapi
