#include "blob_reader.h"

#include <cinttypes>
#include <cstring>
#include <limits>
#include <new>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include "error_log.h"
#include "nnapi_api.h"

namespace executorch_nnapi {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;

namespace {

// FlatBuffers and NNAPI both want naturally aligned scalars; the schema's
// force_align(16) on constant data needs the buffer itself 16-aligned.
constexpr uintptr_t kBlobAlignment = 16;
// NNAPI sizes are 32-bit.
constexpr uint64_t kMaxNnapiBytes = 0xFFFFFFFFull;

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

// Element size and tensor-ness of an NNAPI operand type; false if the
// runtime cannot handle the type.
bool nnapi_type_info(int32_t type, uint32_t* element_size, bool* is_tensor) {
  switch (type) {
    case ANEURALNETWORKS_FLOAT32:
    case ANEURALNETWORKS_INT32:
    case ANEURALNETWORKS_UINT32:
      *element_size = 4;
      *is_tensor = false;
      return true;
    case ANEURALNETWORKS_BOOL:
      *element_size = 1;
      *is_tensor = false;
      return true;
    case ANEURALNETWORKS_FLOAT16:
      *element_size = 2;
      *is_tensor = false;
      return true;
    case ANEURALNETWORKS_TENSOR_FLOAT32:
    case ANEURALNETWORKS_TENSOR_INT32:
      *element_size = 4;
      *is_tensor = true;
      return true;
    case ANEURALNETWORKS_TENSOR_QUANT16_SYMM:
    case ANEURALNETWORKS_TENSOR_FLOAT16:
    case ANEURALNETWORKS_TENSOR_QUANT16_ASYMM:
      *element_size = 2;
      *is_tensor = true;
      return true;
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM:
    case ANEURALNETWORKS_TENSOR_BOOL8:
    case ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case ANEURALNETWORKS_TENSOR_QUANT8_SYMM:
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED:
      *element_size = 1;
      *is_tensor = true;
      return true;
    default:
      // MODEL (control flow) and vendor/OEM types are not supported.
      return false;
  }
}

bool checked_byte_size(uint32_t element_size, const uint32_t* dims,
                       size_t rank, size_t* size) {
  uint64_t total = element_size;
  for (size_t i = 0; i < rank; ++i) {
    total *= dims[i];
    if (total > kMaxNnapiBytes) {
      return false;
    }
  }
  *size = static_cast<size_t>(total);
  return true;
}

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

// Logs "NnapiBackend: cannot load the delegate blob: <reason>".
Error reject(Error code, const std::string& reason) {
  NNAPI_LOG_ERROR("cannot load the delegate blob: %s", reason.c_str());
  return code;
}

template <typename T>
flatbuffers::uoffset_t vsize(const flatbuffers::Vector<T>* v) {
  return v != nullptr ? v->size() : 0;
}

}  // namespace

uint32_t crc32_update(uint32_t crc, const uint8_t* data, size_t size) {
  static const Crc32Table table;
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) {
    crc = table.entries[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
  }
  return ~crc;
}

std::string LoadedBlob::describe_operand(uint32_t index) const {
  std::string out = format_message("operand %u", index);
  const blob::Operand* op = root_->operands()->Get(index);
  if (op->debug_name() != nullptr && op->debug_name()->size() > 0) {
    out += " (" + op->debug_name()->str() + ")";
  }
  return out;
}

bool LoadedBlob::operand_dims(uint32_t index,
                              const std::vector<int64_t>& values,
                              std::vector<uint32_t>* dims,
                              std::string* error) const {
  const blob::Operand* op = root_->operands()->Get(index);
  const auto* static_dims = op->dims();
  const auto* exprs = op->dim_exprs();
  const size_t rank = vsize(static_dims);
  dims->resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int32_t e = (exprs != nullptr && exprs->size() > 0)
                          ? exprs->Get(static_cast<flatbuffers::uoffset_t>(d))
                          : -1;
    if (e < 0) {
      (*dims)[d] = static_dims->Get(static_cast<flatbuffers::uoffset_t>(d));
      continue;
    }
    const int64_t v = values[static_cast<size_t>(e)];
    if (v < 1 || v > static_cast<int64_t>(0xFFFFFFFFll)) {
      *error = format_message(
          "%s dimension %zu = %s evaluates to %" PRId64
          " for these input sizes; NNAPI needs a size in [1, 4294967295] "
          "(empty tensors cannot be represented)",
          describe_operand(index).c_str(), d,
          shape_program_.expression_text(static_cast<size_t>(e)).c_str(), v);
      return false;
    }
    (*dims)[d] = static_cast<uint32_t>(v);
  }
  return true;
}

bool LoadedBlob::tensor_dims(const ArgumentInfo& arg,
                             const std::vector<int64_t>& values,
                             std::vector<int64_t>* dims,
                             std::string* error) const {
  if (arg.merged_dims.empty()) {
    std::vector<uint32_t> operand;
    if (!operand_dims(arg.operand, values, &operand, error)) {
      return false;
    }
    dims->assign(operand.size(), 0);
    for (size_t d = 0; d < operand.size(); ++d) {
      (*dims)[arg.dim_order.empty() ? d : arg.dim_order[d]] = operand[d];
    }
    return true;
  }
  *dims = arg.tensor_dims;
  for (size_t d = 0; d < dims->size(); ++d) {
    const int32_t e = arg.tensor_dim_exprs.empty() ? -1 : arg.tensor_dim_exprs[d];
    if (e < 0) {
      continue;
    }
    const int64_t v = values[static_cast<size_t>(e)];
    if (v < 1 || v > static_cast<int64_t>(0xFFFFFFFFll)) {
      *error = format_message(
          "tensor of %s dimension %zu = %s evaluates to %" PRId64
          " for these input sizes; NNAPI needs a size in [1, 4294967295]",
          describe_operand(arg.operand).c_str(), d,
          shape_program_.expression_text(static_cast<size_t>(e)).c_str(), v);
      return false;
    }
    (*dims)[d] = v;
  }
  return true;
}

bool LoadedBlob::byte_size(uint32_t index, const std::vector<uint32_t>& dims,
                           size_t* size) const {
  return checked_byte_size(operands_[index].element_size, dims.data(),
                           dims.size(), size);
}

InputDims LoadedBlob::exported_input_dims() const {
  InputDims out(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!inputs_[i].is_tensor) {
      continue;
    }
    if (!inputs_[i].merged_dims.empty()) {
      out[i] = inputs_[i].tensor_dims;  // 0 where dynamic, as for operands.
      continue;
    }
    const auto* dims = root_->operands()->Get(inputs_[i].operand)->dims();
    for (flatbuffers::uoffset_t d = 0; d < vsize(dims); ++d) {
      out[i].push_back(dims->Get(d));
    }
  }
  return out;
}

namespace {

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

// The stored and the recomputed CRC-32 of the blob. The CRC field is located
// through the root table's vtable; its own four bytes count as zero. Returns
// false when the blob has no CRC field.
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

uint32_t num_shape_expressions(const blob::Blob* root) {
  return root->shape_program() != nullptr
             ? vsize(root->shape_program()->expressions())
             : 0;
}

// What an operand's dims say about its size.
struct OperandShape {
  uint32_t rank = 0;
  // Every dim static and known: the operand has a size at load time.
  bool fully_static = false;
  // That size, when fully_static.
  size_t static_bytes = 0;
};

// An operand's type and dims: a supported type, no dims on scalars, dim
// expressions that exist, and a static size within NNAPI's limit.
Error load_operand_shape(const LoadedBlob& loaded, uint32_t i,
                         OperandInfo* info, OperandShape* shape) {
  const blob::Operand* op = loaded.root()->operands()->Get(i);
  const uint32_t num_expressions = num_shape_expressions(loaded.root());
  info->type = op->type();
  if (!nnapi_type_info(info->type, &info->element_size, &info->is_tensor)) {
    return reject(Error::InvalidProgram,
                  format_message("%s has NNAPI operand type %d, which this "
                                 "runtime does not support",
                                 loaded.describe_operand(i).c_str(),
                                 info->type));
  }
  const uint32_t rank = vsize(op->dims());
  if (!info->is_tensor && rank != 0) {
    return reject(Error::InvalidProgram,
                  format_message("%s is a scalar but has %u dimensions",
                                 loaded.describe_operand(i).c_str(), rank));
  }
  const uint32_t num_dim_exprs = vsize(op->dim_exprs());
  if (num_dim_exprs != 0 && num_dim_exprs != rank) {
    return reject(
        Error::InvalidProgram,
        format_message("%s has %u dimensions but %u dimension expressions",
                       loaded.describe_operand(i).c_str(), rank,
                       num_dim_exprs));
  }
  bool all_known = true;
  for (uint32_t d = 0; d < rank; ++d) {
    const int32_t e = num_dim_exprs != 0 ? op->dim_exprs()->Get(d) : -1;
    if (e >= 0) {
      if (static_cast<uint32_t>(e) >= num_expressions) {
        return reject(
            Error::InvalidProgram,
            format_message("%s dimension %u uses shape expression %d, but "
                           "there are %u",
                           loaded.describe_operand(i).c_str(), d, e,
                           num_expressions));
      }
      info->has_dynamic_dims = true;
    } else if (e != -1) {
      return reject(Error::InvalidProgram,
                    format_message("%s dimension %u has expression index "
                                   "%d (must be -1 or an index)",
                                   loaded.describe_operand(i).c_str(), d, e));
    } else if (op->dims()->Get(d) == 0) {
      all_known = false;  // NNAPI "unknown" size (a temporary).
    }
  }
  shape->rank = rank;
  shape->fully_static = all_known && !info->has_dynamic_dims;
  if (shape->fully_static &&
      !checked_byte_size(info->element_size,
                         rank != 0 ? op->dims()->data() : nullptr, rank,
                         &shape->static_bytes)) {
    return reject(Error::InvalidProgram,
                  format_message("%s is larger than NNAPI's 4 GiB limit",
                                 loaded.describe_operand(i).c_str()));
  }
  return Error::Ok;
}

// Per-channel quantization parameters, if any: only on the per-channel type,
// with a channel dim inside the rank and (when static) one scale a channel.
Error check_per_channel(const LoadedBlob& loaded, uint32_t i,
                        const OperandInfo& info, uint32_t rank) {
  const blob::Operand* op = loaded.root()->operands()->Get(i);
  const blob::PerChannelQuant* pc = op->per_channel();
  if (pc == nullptr) {
    return Error::Ok;
  }
  if (info.type != ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    return reject(Error::InvalidProgram,
                  format_message(
                      "%s has per-channel parameters but type %d (needs %d)",
                      loaded.describe_operand(i).c_str(), info.type,
                      ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL));
  }
  if (pc->scales() == nullptr || pc->channel_dim() >= rank) {
    return reject(Error::InvalidProgram,
                  format_message("%s has per-channel parameters with no "
                                 "scales or channel_dim %u outside its "
                                 "rank %u",
                                 loaded.describe_operand(i).c_str(),
                                 pc->channel_dim(), rank));
  }
  const bool channel_static = vsize(op->dim_exprs()) == 0 ||
                              op->dim_exprs()->Get(pc->channel_dim()) < 0;
  if (channel_static &&
      pc->scales()->size() != op->dims()->Get(pc->channel_dim())) {
    return reject(Error::InvalidProgram,
                  format_message("%s has %u per-channel scales for %u "
                                 "channels",
                                 loaded.describe_operand(i).c_str(),
                                 pc->scales()->size(),
                                 op->dims()->Get(pc->channel_dim())));
  }
  return Error::Ok;
}

// An INLINE value: present, and of the operand's size when that is static.
Error load_inline_value(const LoadedBlob& loaded, uint32_t i,
                        const OperandShape& shape, OperandInfo* info) {
  const blob::Operand* op = loaded.root()->operands()->Get(i);
  if (op->data() == nullptr) {
    return reject(Error::InvalidProgram,
                  format_message("%s is INLINE but has no data",
                                 loaded.describe_operand(i).c_str()));
  }
  if (shape.fully_static && op->data()->size() != shape.static_bytes) {
    return reject(Error::InvalidProgram,
                  format_message("%s holds %u bytes of data but its type needs "
                                 "%zu",
                                 loaded.describe_operand(i).c_str(),
                                 op->data()->size(), shape.static_bytes));
  }
  info->value = op->data()->data();
  info->value_size = op->data()->size();
  return Error::Ok;
}

// A NAMED_DATA value: looked up in the program's named data, checked like an
// inline one, and its buffer appended to *buffers (which keeps it alive).
Error load_named_value(const LoadedBlob& loaded, uint32_t i,
                       const OperandShape& shape,
                       const NamedDataMap* named_data, OperandInfo* info,
                       std::vector<FreeableBuffer>* buffers) {
  const blob::Operand* op = loaded.root()->operands()->Get(i);
  if (op->named_data_key() == nullptr || op->named_data_key()->size() == 0) {
    return reject(Error::InvalidProgram,
                  format_message("%s is NAMED_DATA but has no key",
                                 loaded.describe_operand(i).c_str()));
  }
  const std::string key = op->named_data_key()->str();
  if (named_data == nullptr) {
    return reject(Error::InvalidProgram,
                  format_message("%s needs the named data '%s', but the "
                                 "program provides no named data map (load "
                                 "the .ptd file with the program)",
                                 loaded.describe_operand(i).c_str(),
                                 key.c_str()));
  }
  auto buffer = named_data->get_data(key);
  if (!buffer.ok()) {
    return reject(Error::InvalidProgram,
                  format_message("%s needs the named data '%s', which is not "
                                 "in the program's named data (error 0x%x); "
                                 "was the matching .ptd file loaded?",
                                 loaded.describe_operand(i).c_str(),
                                 key.c_str(),
                                 static_cast<unsigned>(buffer.error())));
  }
  auto bytes = buffer->data_safe();
  if (!bytes.ok()) {
    return reject(Error::InvalidProgram,
                  format_message("named data '%s' is not addressable",
                                 key.c_str()));
  }
  if (shape.fully_static && buffer->size() != shape.static_bytes) {
    return reject(Error::InvalidProgram,
                  format_message("%s: named data '%s' has %zu bytes but the "
                                 "operand's type needs %zu",
                                 loaded.describe_operand(i).c_str(),
                                 key.c_str(), buffer->size(),
                                 shape.static_bytes));
  }
  info->value = bytes.get();
  info->value_size = buffer->size();
  buffers->push_back(std::move(buffer.get()));
  return Error::Ok;
}

// SHAPE_EXPRESSIONS values (evaluated at build time): an INT32 type, one
// expression an element of a static shape, every index in range.
Error check_value_expressions(const LoadedBlob& loaded, uint32_t i,
                              const OperandShape& shape,
                              const OperandInfo& info) {
  const blob::Operand* op = loaded.root()->operands()->Get(i);
  const uint32_t num_expressions = num_shape_expressions(loaded.root());
  const uint32_t count = vsize(op->value_exprs());
  if (info.type != ANEURALNETWORKS_INT32 &&
      info.type != ANEURALNETWORKS_TENSOR_INT32) {
    return reject(Error::InvalidProgram,
                  format_message("%s has SHAPE_EXPRESSIONS values but type "
                                 "%d (must be INT32 or TENSOR_INT32)",
                                 loaded.describe_operand(i).c_str(),
                                 info.type));
  }
  const size_t elements =
      shape.fully_static ? shape.static_bytes / info.element_size : 0;
  if (!shape.fully_static || (info.is_tensor && shape.rank == 0) ||
      count != elements) {
    return reject(Error::InvalidProgram,
                  format_message("%s has %u value expressions but static "
                                 "shape with %zu elements is required",
                                 loaded.describe_operand(i).c_str(), count,
                                 elements));
  }
  for (uint32_t k = 0; k < count; ++k) {
    const int32_t e = op->value_exprs()->Get(k);
    if (e < 0 || static_cast<uint32_t>(e) >= num_expressions) {
      return reject(Error::InvalidProgram,
                    format_message("%s value %u uses shape expression %d, "
                                   "but there are %u",
                                   loaded.describe_operand(i).c_str(), k, e,
                                   num_expressions));
    }
  }
  return Error::Ok;
}

// An operand's value, by its source.
Error load_operand_value(const LoadedBlob& loaded, uint32_t i,
                         const OperandShape& shape,
                         const NamedDataMap* named_data, OperandInfo* info,
                         std::vector<FreeableBuffer>* buffers) {
  const blob::Operand* op = loaded.root()->operands()->Get(i);
  switch (op->source()) {
    case blob::ValueSource::NONE:
    case blob::ValueSource::OMITTED:
      return Error::Ok;
    case blob::ValueSource::INLINE:
      return load_inline_value(loaded, i, shape, info);
    case blob::ValueSource::NAMED_DATA:
      return load_named_value(loaded, i, shape, named_data, info, buffers);
    case blob::ValueSource::SHAPE_EXPRESSIONS:
      return check_value_expressions(loaded, i, shape, *info);
    default:
      return reject(Error::InvalidProgram,
                    format_message("%s has unknown value source %d",
                                   loaded.describe_operand(i).c_str(),
                                   static_cast<int>(op->source())));
  }
}

// Stage 5: every operation refers to existing operands.
Error check_operations(const blob::Blob* root) {
  const uint32_t num_operands = vsize(root->operands());
  const uint32_t num_operations = vsize(root->operations());
  for (uint32_t i = 0; i < num_operations; ++i) {
    const blob::Operation* op = root->operations()->Get(i);
    for (const auto* list : {op->inputs(), op->outputs()}) {
      for (uint32_t k = 0; k < vsize(list); ++k) {
        if (list->Get(k) >= num_operands) {
          return reject(Error::InvalidProgram,
                        format_message("operation %u (type %d%s%s) refers to "
                                       "operand %u, but there are %u",
                                       i, op->type(),
                                       op->debug_name() ? ", " : "",
                                       op->debug_name()
                                           ? op->debug_name()->c_str()
                                           : "",
                                       list->Get(k), num_operands));
        }
      }
    }
  }
  return Error::Ok;
}

// Stage 6: the model has inputs and outputs, all existing operands.
Error check_model_io(const blob::Blob* root) {
  const uint32_t num_operands = vsize(root->operands());
  const auto* model_inputs = root->model_inputs();
  const auto* model_outputs = root->model_outputs();
  if (vsize(model_inputs) == 0 || vsize(model_outputs) == 0) {
    return reject(Error::InvalidProgram,
                  "the model has no inputs or no outputs");
  }
  for (const auto* list : {model_inputs, model_outputs}) {
    for (uint32_t k = 0; k < list->size(); ++k) {
      if (list->Get(k) >= num_operands) {
        return reject(Error::InvalidProgram,
                      format_message("model %s %u is operand %u, but there "
                                     "are %u",
                                     list == model_inputs ? "input" : "output",
                                     k, list->Get(k), num_operands));
      }
    }
  }
  return Error::Ok;
}

// One side (inputs or outputs) of the delegate's arguments.
struct ArgumentSide {
  const flatbuffers::Vector<flatbuffers::Offset<blob::Argument>>* args;
  // The model inputs (or outputs) the arguments bind.
  const flatbuffers::Vector<uint32_t>* io;
  const char* name;
};

// Marks the model input/output that operand `operand` is as bound to
// argument `a`, and returns its position in *io_index.
Error bind_model_io(const ArgumentSide& side, uint32_t a, uint32_t operand,
                    std::vector<bool>* bound, uint32_t* io_index) {
  for (uint32_t k = 0; k < side.io->size(); ++k) {
    if (side.io->Get(k) != operand) {
      continue;
    }
    if ((*bound)[k]) {
      return reject(Error::InvalidProgram,
                    format_message("model %s %u (operand %u) is bound to "
                                   "more than one argument",
                                   side.name, k, operand));
    }
    (*bound)[k] = true;
    *io_index = k;
    return Error::Ok;
  }
  return reject(Error::InvalidProgram,
                format_message("%s argument %u is bound to operand %u, "
                               "which is not a model %s",
                               side.name, a, operand, side.name));
}

// A tensor argument's operand must have every dim static or given by a
// shape expression (an unknown dim cannot size the ExecuTorch tensor).
Error check_argument_dims(const LoadedBlob& loaded, const ArgumentSide& side,
                          uint32_t a, uint32_t operand) {
  const blob::Operand* op = loaded.root()->operands()->Get(operand);
  const uint32_t rank = vsize(op->dims());
  bool dims_known = loaded.operands()[operand].is_tensor && rank > 0;
  for (uint32_t d = 0; dims_known && d < rank; ++d) {
    const bool dynamic =
        vsize(op->dim_exprs()) != 0 && op->dim_exprs()->Get(d) >= 0;
    dims_known = dynamic || op->dims()->Get(d) != 0;
  }
  if (!dims_known) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u (%s) must be a tensor whose "
                                 "every dimension is static or given by a "
                                 "shape expression",
                                 side.name, a,
                                 loaded.describe_operand(operand).c_str()));
  }
  return Error::Ok;
}

// The argument's dim_order, if any: a permutation of the operand's `rank`
// dims. Kept in *dim_order only when it is not the identity.
Error load_dim_order(const ArgumentSide& side, uint32_t a, uint32_t rank,
                     std::vector<uint8_t>* dim_order) {
  const auto* order = side.args->Get(a)->dim_order();
  if (vsize(order) == 0) {
    return Error::Ok;
  }
  std::vector<bool> seen(rank, false);
  bool valid = order->size() == rank;
  for (uint32_t d = 0; valid && d < rank; ++d) {
    const uint8_t src = order->Get(d);
    valid = src < rank && !seen[src];
    if (valid) {
      seen[src] = true;
    }
  }
  if (!valid) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has a dim_order that is not "
                                 "a permutation of its %u dimensions",
                                 side.name, a, rank));
  }
  bool identity = true;
  for (uint32_t d = 0; d < rank; ++d) {
    identity = identity && order->Get(d) == d;
  }
  if (!identity) {
    dim_order->assign(order->begin(), order->end());
  }
  return Error::Ok;
}

// The tensor's dims of a merged argument: a rank in [1, kMaxTensorRank],
// static sizes > 0, expression indices in range.
Error load_tensor_dims(const LoadedBlob& loaded, const ArgumentSide& side,
                       uint32_t a, ArgumentInfo* info) {
  constexpr uint32_t kMaxTensorRank = 16;  // ExecuTorch's limit.
  const blob::Argument* arg = side.args->Get(a);
  const uint32_t rank = vsize(arg->tensor_dims());
  const uint32_t num_exprs = vsize(arg->tensor_dim_exprs());
  const blob::ShapeProgram* program = loaded.root()->shape_program();
  const uint32_t available =
      program != nullptr ? vsize(program->expressions()) : 0;
  if (rank == 0 || rank > kMaxTensorRank || (num_exprs != 0 && num_exprs != rank)) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has merged_dims but %u "
                                 "tensor_dims (must be 1 to %u) and %u "
                                 "tensor_dim_exprs (must be 0 or as many)",
                                 side.name, a, rank, kMaxTensorRank, num_exprs));
  }
  for (uint32_t d = 0; d < rank; ++d) {
    const int32_t e = num_exprs != 0 ? arg->tensor_dim_exprs()->Get(d) : -1;
    const uint32_t size = arg->tensor_dims()->Get(d);
    if (e >= static_cast<int64_t>(available) || (e < 0 && size == 0)) {
      return reject(Error::InvalidProgram,
                    format_message("%s argument %u tensor dimension %u is "
                                   "neither a static size > 0 nor one of the "
                                   "%u shape expressions",
                                   side.name, a, d, available));
    }
    info->tensor_dims.push_back(size);
    info->tensor_dim_exprs.push_back(e < 0 ? -1 : e);
  }
  return Error::Ok;
}

// A merged argument's merged_dims: one entry per operand dim, together
// spanning the tensor's dims; where both sides are static the sizes agree.
Error load_merged_dims(const LoadedBlob& loaded, const ArgumentSide& side,
                       uint32_t a, uint32_t operand_rank, ArgumentInfo* info) {
  const blob::Argument* arg = side.args->Get(a);
  if (vsize(arg->merged_dims()) == 0) {
    if (vsize(arg->tensor_dims()) != 0 || vsize(arg->tensor_dim_exprs()) != 0) {
      return reject(Error::InvalidProgram,
                    format_message("%s argument %u has tensor_dims without "
                                   "merged_dims", side.name, a));
    }
    return Error::Ok;
  }
  Error err = load_tensor_dims(loaded, side, a, info);
  if (err != Error::Ok) {
    return err;
  }
  if (vsize(arg->dim_order()) != 0 || vsize(arg->merged_dims()) != operand_rank) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has %u merged_dims for an "
                                 "operand of rank %u (and must have no "
                                 "dim_order)",
                                 side.name, a, vsize(arg->merged_dims()),
                                 operand_rank));
  }
  const blob::Operand* op = loaded.root()->operands()->Get(info->operand);
  size_t next = 0;
  for (uint32_t i = 0; i < operand_rank; ++i) {
    const uint8_t span = arg->merged_dims()->Get(i);
    bool known = vsize(op->dim_exprs()) == 0 || op->dim_exprs()->Get(i) < 0;
    uint64_t product = 1;
    for (uint8_t k = 0; k < span && next + k < info->tensor_dims.size(); ++k) {
      known = known && info->tensor_dim_exprs[next + k] < 0;
      product *= static_cast<uint64_t>(info->tensor_dims[next + k]);
    }
    next += span;
    if (next > info->tensor_dims.size() ||
        (known && product != op->dims()->Get(i))) {
      return reject(Error::InvalidProgram,
                    format_message("%s argument %u: merged_dims do not map "
                                   "its %zu tensor dims onto %s",
                                   side.name, a, info->tensor_dims.size(),
                                   loaded.describe_operand(info->operand).c_str()));
    }
    info->merged_dims.push_back(span);
  }
  if (next != info->tensor_dims.size()) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u: merged_dims span %zu of its "
                                 "%zu tensor dims",
                                 side.name, a, next, info->tensor_dims.size()));
  }
  return Error::Ok;
}

// Argument `a` of `side`: an IGNORED one, an INT input, or a TENSOR of a
// valid scalar type bound to one model input/output. Its rank goes to *rank
// (-1 if ignored, 1 for an INT: the shape program reads its value as a size).
Error load_argument(const LoadedBlob& loaded, const ArgumentSide& side,
                    uint32_t a, std::vector<bool>* bound, ArgumentInfo* info,
                    int* rank) {
  const blob::Argument* arg = side.args->Get(a);
  *rank = -1;
  if (arg->kind() == blob::ArgKind::IGNORED) {
    return Error::Ok;
  }
  if (arg->kind() == blob::ArgKind::INT) {
    if (std::strcmp(side.name, "input") != 0) {
      return reject(Error::InvalidProgram,
                    format_message("%s argument %u is an INT, which only "
                                   "inputs may be",
                                   side.name, a));
    }
    info->is_int = true;
    *rank = 1;
    return Error::Ok;
  }
  if (arg->kind() != blob::ArgKind::TENSOR) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has unknown kind %d",
                                 side.name, a, static_cast<int>(arg->kind())));
  }
  info->is_tensor = true;
  info->operand = arg->operand();
  info->scalar_type = arg->scalar_type();
  if (!executorch::runtime::isValid(
          static_cast<executorch::aten::ScalarType>(info->scalar_type))) {
    return reject(Error::InvalidProgram,
                  format_message("%s argument %u has invalid scalar type %d",
                                 side.name, a, info->scalar_type));
  }
  Error err = bind_model_io(side, a, info->operand, bound, &info->io_index);
  if (err != Error::Ok) {
    return err;
  }
  // Bound to a model input/output, so the operand index is in range.
  err = check_argument_dims(loaded, side, a, info->operand);
  if (err != Error::Ok) {
    return err;
  }
  const blob::Operand* operand = loaded.root()->operands()->Get(info->operand);
  info->int64_as_int32 =
      info->scalar_type ==
          static_cast<int8_t>(executorch::aten::ScalarType::Long) &&
      operand->type() == ANEURALNETWORKS_TENSOR_INT32;
  const uint32_t operand_rank = vsize(operand->dims());
  err = load_merged_dims(loaded, side, a, operand_rank, info);
  if (err != Error::Ok) {
    return err;
  }
  *rank = static_cast<int>(info->merged_dims.empty() ? operand_rank
                                                     : info->tensor_dims.size());
  return load_dim_order(side, a, operand_rank, &info->dim_order);
}

}  // namespace

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

// Stage 4: each operand's type, dims, quantization and value, in index order.
Error LoadedBlob::load_operands(const NamedDataMap* named_data) {
  const uint32_t num_operands = vsize(root_->operands());
  operands_.resize(num_operands);
  for (uint32_t i = 0; i < num_operands; ++i) {
    OperandInfo& info = operands_[i];
    OperandShape shape;
    Error err = load_operand_shape(*this, i, &info, &shape);
    if (err == Error::Ok) {
      err = check_per_channel(*this, i, info, shape.rank);
    }
    if (err == Error::Ok) {
      err = load_operand_value(*this, i, shape, named_data, &info,
                               &named_data_);
    }
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

// Stage 7: each tensor argument binds one model input/output, and every
// model input/output is bound exactly once (NNAPI needs them all set).
// *input_ranks gets each input argument's rank (-1 if ignored), for the
// shape program.
Error LoadedBlob::load_arguments(std::vector<int>* input_ranks) {
  const ArgumentSide sides[] = {
      {root_->inputs(), root_->model_inputs(), "input"},
      {root_->outputs(), root_->model_outputs(), "output"},
  };
  for (const ArgumentSide& side : sides) {
    const bool is_input = &side == &sides[0];
    std::vector<ArgumentInfo>& infos = is_input ? inputs_ : outputs_;
    std::vector<bool> bound(side.io->size(), false);
    for (uint32_t a = 0; a < vsize(side.args); ++a) {
      ArgumentInfo info;
      int rank = -1;
      const Error err = load_argument(*this, side, a, &bound, &info, &rank);
      if (err != Error::Ok) {
        return err;
      }
      if (is_input) {
        input_ranks->push_back(rank);
      }
      infos.push_back(std::move(info));
    }
    for (uint32_t k = 0; k < side.io->size(); ++k) {
      if (!bound[k]) {
        return reject(Error::InvalidProgram,
                      format_message("model %s %u (operand %u) is not bound "
                                     "to any delegate argument",
                                     side.name, k, side.io->Get(k)));
      }
    }
  }
  return Error::Ok;
}

Error load_blob(FreeableBuffer* processed, const NamedDataMap* named_data,
                std::unique_ptr<LoadedBlob>* out) {
  const uint8_t* data = nullptr;
  size_t size = 0;
  Error err = check_envelope(processed, &data, &size);
  if (err != Error::Ok) {
    return err;
  }
  std::unique_ptr<LoadedBlob> loaded(new (std::nothrow) LoadedBlob());
  if (loaded == nullptr) {
    return reject(Error::MemoryAllocationFailed, "out of memory");
  }
  err = loaded->align_data(&data, size);
  if (err == Error::Ok) {
    err = verify_blob(data, size, &loaded->root_);
  }
  // From here on the blob is well-formed; the stages check its semantics.
  if (err == Error::Ok) {
    err = loaded->load_operands(named_data);
  }
  if (err == Error::Ok) {
    err = check_operations(loaded->root_);
  }
  if (err == Error::Ok) {
    err = check_model_io(loaded->root_);
  }
  std::vector<int> input_ranks;
  if (err == Error::Ok) {
    err = loaded->load_arguments(&input_ranks);
  }
  if (err != Error::Ok) {
    return err;
  }
  std::string error;
  if (!loaded->shape_program_.init(loaded->root_->shape_program(),
                                   input_ranks, &error)) {
    return reject(Error::InvalidProgram, error);
  }
  *out = std::move(loaded);
  return Error::Ok;
}

}  // namespace executorch_nnapi
