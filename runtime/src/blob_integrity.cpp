// Stages 1-3 of load_blob: is this our blob, intact? The envelope (size,
// file identifier), an aligned copy when needed, FlatBuffer verification,
// the schema version and the CRC-32.
#include <cstring>
#include <new>
#include <string>

#include "blob_reader.h"
#include "error_log.h"
#include "load_stages.h"

namespace executorch_nnapi {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;

namespace {

// FlatBuffers and NNAPI both want naturally aligned scalars; the schema's
// force_align(16) on constant data needs the buffer itself 16-aligned.
constexpr uintptr_t kBlobAlignment = 16;

struct Crc32Table {
  uint32_t entries[256];
  Crc32Table() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) {
        // 0xEDB88320 = the reflected zlib/IEEE 802.3 polynomial.
        c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
      }
      entries[i] = c;
    }
  }
};

std::string printable_identifier(const uint8_t* p) {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    const char c = static_cast<char>(p[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += c;
    } else {
      out += format_message("\\x%02x", p[i]);
    }
  }
  return out;
}

}  // namespace

bool blob_crc(const uint8_t* data, size_t size, uint32_t* stored,
              uint32_t* computed) {
  const uint8_t* crc_field =
      flatbuffers::GetRoot<flatbuffers::Table>(data)->GetAddressOf(
          blob::Blob::VT_CRC32);
  if (crc_field == nullptr) {
    return false;
  }
  const size_t offset = static_cast<size_t>(crc_field - data);
  static const uint8_t kZeros[4] = {0, 0, 0, 0};
  *stored = flatbuffers::ReadScalar<uint32_t>(crc_field);
  *computed = crc32_update(0, data, offset);
  *computed = crc32_update(*computed, kZeros, 4);
  *computed = crc32_update(*computed, data + offset + 4, size - offset - 4);
  return true;
}

uint32_t crc32_update(uint32_t crc, const uint8_t* data, size_t size) {
  static const Crc32Table table;
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) {
    crc = table.entries[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
  }
  return ~crc;
}

// Stage 1: the processed data exists and looks like our blob. Cheap checks
// first, because they give the clearest messages.
Error check_envelope(FreeableBuffer* processed, const uint8_t** data_out,
                     size_t* size_out) {
  if (processed == nullptr) {
    return reject(Error::InvalidArgument, "no delegate data was given");
  }
  auto data_result = processed->data_safe();
  if (!data_result.ok()) {
    return reject(Error::InvalidProgram,
                  "the delegate data is not addressable from this core");
  }
  const uint8_t* data = static_cast<const uint8_t*>(data_result.get());
  const size_t size = processed->size();
  if (data == nullptr || size < 8) {
    return reject(
        Error::InvalidProgram,
        format_message("the blob is truncated or empty (%zu bytes; an NNAPI "
                       "delegate blob has at least 8): re-export the model",
                       size));
  }
  if (std::memcmp(data + 4, blob::BlobIdentifier(), 4) != 0) {
    return reject(
        Error::InvalidProgram,
        format_message(
            "not an NNAPI delegate blob: its file identifier is '%s', "
            "expected '%s' (the blob is corrupted or was made for another "
            "backend)",
            printable_identifier(data + 4).c_str(), blob::BlobIdentifier()));
  }
  if (size >= static_cast<size_t>(FLATBUFFERS_MAX_BUFFER_SIZE)) {
    return reject(Error::InvalidProgram,
                  format_message("the blob is too large (%zu bytes)", size));
  }
  *data_out = data;
  *size_out = size;
  return Error::Ok;
}

// Stage 2: a copy into aligned storage when the data is not 16-byte aligned
// (the verifier and NNAPI need aligned scalars). The copy lives as long as
// the blob, like the processed data would.
Error LoadedBlob::align_data(const uint8_t** data, size_t size) {
  if (reinterpret_cast<uintptr_t>(*data) % kBlobAlignment == 0) {
    return Error::Ok;
  }
  copy_storage_.reset(new (std::nothrow) uint8_t[size + kBlobAlignment]);
  if (copy_storage_ == nullptr) {
    return reject(Error::MemoryAllocationFailed,
                  format_message("out of memory copying the %zu-byte blob "
                                 "into aligned storage",
                                 size));
  }
  uint8_t* raw = copy_storage_.get();
  uint8_t* aligned = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(raw) + kBlobAlignment - 1) &
      ~(kBlobAlignment - 1));
  std::memcpy(aligned, *data, size);
  *data = aligned;
  return Error::Ok;
}

// Stage 3: structure (FlatBuffer verification), version, integrity (CRC).
Error verify_blob(const uint8_t* data, size_t size, const blob::Blob** root) {
  flatbuffers::Verifier::Options options;
  options.max_tables = 1u << 26;  // Large models: many operands/operations.
  options.max_depth = 64;
  flatbuffers::Verifier verifier(data, size, options);
  if (!blob::VerifyBlobBuffer(verifier)) {
    return reject(Error::InvalidProgram,
                  "the blob is corrupted: it is not a well-formed FlatBuffer "
                  "(verification failed); re-export the model");
  }
  uint32_t stored_crc = 0;
  uint32_t computed_crc = 0;
  const bool has_crc = blob_crc(data, size, &stored_crc, &computed_crc);
  const bool crc_ok = has_crc && stored_crc == computed_crc;

  // The version is checked before the CRC so a future blob is reported as
  // such (its integrity rules may differ); but a corrupted version field must
  // not pass for a "newer" blob, hence the hint when the CRC disagrees too.
  const uint32_t version = blob::GetBlob(data)->schema_version();
  if (version > kSupportedSchemaVersion) {
    std::string reason = format_message(
        "blob schema version %u is newer than this runtime understands "
        "(%u): update executorch-nnapi",
        version, kSupportedSchemaVersion);
    if (!crc_ok) {
      reason +=
          " (or, if it was made by this version, the blob is corrupted: its "
          "CRC does not match)";
    }
    return reject(Error::DelegateInvalidCompatibility, reason);
  }
  if (!has_crc) {
    return reject(Error::InvalidProgram,
                  "the blob has no crc32 field; it is corrupted or was not "
                  "made by the executorch-nnapi serializer");
  }
  if (!crc_ok) {
    return reject(Error::InvalidProgram,
                  format_message("blob is corrupted (CRC mismatch: stored "
                                 "0x%08x, computed 0x%08x); re-export the "
                                 "model or check how the .pte was copied",
                                 stored_crc, computed_crc));
  }
  *root = blob::GetBlob(data);
  return Error::Ok;
}

}  // namespace executorch_nnapi
