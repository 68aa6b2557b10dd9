// libFuzzer target for the delegate blob reader (docs/sanitizers.md).
//
// The input is a delegate blob, as a .pte carries it for NnapiBackend. The
// target does what NnapiBackend::init does with it before its first NNAPI
// call: load_blob (envelope, alignment, FlatBuffer verification, version, CRC,
// operand validation, operations, model inputs / outputs, argument binding,
// the shape program), then what building the model for the exported sizes
// reads: the evaluated shape program, every operand's dims and byte size,
// every argument's tensor dims, the compiled-model key and the run-time
// values; then the build itself (CompiledModel::build, model building and
// compilation) against checking_nnapi.h, an in-process NNAPI table that reads
// every buffer it is given and runs nothing. Built with
// -fsanitize=fuzzer,address,undefined, so any read out of bounds, overflow or
// leak on the way is a crash.
//
// A mutated blob almost never keeps its CRC, and a blob whose CRC fails stops
// at stage 3; so each input is loaded twice: as it is (the integrity checks
// must refuse it), then re-sealed with its CRC recomputed, placed at an
// unaligned address (so the aligned-copy path runs too), which lets the
// mutations reach every later stage.
//
//   nnapi_blob_fuzzer [libFuzzer flags] CORPUS_DIR ...   (scripts/fuzz_blob.sh)
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/platform/platform.h>

#include "blob_reader.h"
#include "checking_nnapi.h"
#include "delegate_state.h"
#include "load_stages.h"
#include "nnapi_model.h"
#include "runtime_options.h"

namespace {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;
using executorch::runtime::Result;
using executorch::runtime::TensorLayout;
using executorch_nnapi::LoadedBlob;
namespace blob = executorch_nnapi::blob;

// Named data larger than this is answered "not found" (a blob may claim any
// size; the fuzzer must not allocate it).
constexpr size_t kMaxNamedBytes = 1 << 20;

// Every refused blob logs a line; at thousands of inputs a second the log
// would be all the fuzzer does.
void drop_log_message(et_timestamp_t, et_pal_log_level_t, const char*,
                      const char*, size_t, const char*, size_t) {}

// The size a static NAMED_DATA operand with this key takes, or 0.
size_t named_operand_bytes(const blob::Blob* model, std::string_view key) {
  for (uint32_t i = 0; i < executorch_nnapi::vsize(model->operands()); ++i) {
    const blob::Operand* op = model->operands()->Get(i);
    if (op->named_data_key() == nullptr || op->named_data_key()->string_view() != key) {
      continue;
    }
    uint32_t element_size = 0;
    bool is_tensor = false;
    size_t bytes = 0;
    const auto* dims = op->dims();
    if (executorch_nnapi::nnapi_type_info(op->type(), &element_size, &is_tensor) &&
        executorch_nnapi::checked_byte_size(
            element_size, dims != nullptr ? dims->data() : nullptr,
            executorch_nnapi::vsize(dims), &bytes)) {
      return bytes;
    }
  }
  return 0;
}

// The program's named data as the backend sees it: for each key a blob's
// operand asks for, zeros of the size that operand takes (so a blob of a real
// model, whose weights live in named data, gets past stage 4).
// It is only asked once the blob verified, so reading its root is safe then;
// it reads an aligned copy (FlatBuffers reads scalars in place).
class ZeroNamedData final : public NamedDataMap {
 public:
  ZeroNamedData(const uint8_t* data, size_t size) : blob_data_(new uint8_t[size]) {
    std::memcpy(blob_data_.get(), data, size);
  }

  Result<const TensorLayout> get_tensor_layout(std::string_view) const override {
    return Error::NotSupported;
  }
  Result<FreeableBuffer> get_data(std::string_view key) const override {
    const blob::Blob* root = blob::GetBlob(blob_data_.get());
    size_t bytes = named_operand_bytes(root, key);
    for (uint32_t k = 0; bytes == 0 && k < executorch_nnapi::vsize(root->subgraphs()); ++k) {
      bytes = named_operand_bytes(root->subgraphs()->Get(k), key);
    }
    if (bytes == 0 || bytes > kMaxNamedBytes) {
      return Error::NotFound;
    }
    static const std::vector<uint8_t> zeros(kMaxNamedBytes, 0);
    return FreeableBuffer(zeros.data(), bytes, nullptr);
  }
  Error load_data_into(std::string_view, void*, size_t) const override {
    return Error::NotSupported;
  }
  Result<uint32_t> get_num_keys() const override { return 0; }
  Result<const char*> get_key(uint32_t) const override { return Error::NotFound; }

 private:
  std::unique_ptr<uint8_t[]> blob_data_;
};

// What building a model for the evaluated sizes `values` reads from a loaded
// blob, piece by piece.
void read_like_model_building(const LoadedBlob& loaded, const std::vector<int64_t>& values) {
  std::string error;
  const blob::Blob* root = loaded.root();
  std::vector<const blob::Blob*> models = {root};
  for (uint32_t k = 0; k < executorch_nnapi::vsize(root->subgraphs()); ++k) {
    models.push_back(loaded.subgraph(k));
  }
  for (const blob::Blob* model : models) {
    for (uint32_t i = 0; i < executorch_nnapi::vsize(model->operands()); ++i) {
      std::vector<uint32_t> dims;
      size_t bytes = 0;
      (void)loaded.describe_operand(i, model);
      if (loaded.operand_dims(i, values, &dims, &error, model)) {
        (void)loaded.byte_size(i, dims, &bytes, model);
      }
    }
  }
  for (const auto* args : {&loaded.inputs(), &loaded.outputs()}) {
    for (const executorch_nnapi::ArgumentInfo& arg : *args) {
      std::vector<int64_t> dims;
      if (arg.is_tensor) {
        (void)loaded.tensor_dims(arg, values, &dims, &error);
      }
    }
  }
  (void)loaded.compiled_model_key(values);
  for (uint32_t operand : loaded.run_time_operands()) {
    std::vector<int32_t> run_time;
    (void)loaded.run_time_values(operand, values, &run_time, &error);
  }
}

// What init makes for a blob of static shapes (any blob, here): the
// delegate's state (its initial values, in ordinary memory: the checking
// NNAPI has no memory functions) and the compiled model, against the checking
// NNAPI at the newest feature level (init refuses a blob that needs a newer
// one). Constants are given by pointer.
void build_model(const LoadedBlob& loaded, const std::vector<int64_t>& values) {
  static const auto api = executorch_nnapi_checks::checking_nnapi(ANEURALNETWORKS_FEATURE_LEVEL_8);
  if (loaded.root()->min_feature_level() > api->feature_level) {
    return;
  }
  // A blob may declare a state of any size its dims allow (up to 4 GiB, twice:
  // the runtime ping-pongs it); past kMaxNamedBytes the fuzzer does not make it.
  size_t state_bytes = 0;
  for (const executorch_nnapi::StateInfo& info : loaded.states()) {
    state_bytes += info.bytes;
  }
  if (state_bytes > kMaxNamedBytes) {
    return;
  }
  std::unique_ptr<executorch_nnapi::DelegateState> state;
  if (executorch_nnapi::DelegateState::create(api, loaded, &state) != Error::Ok) {
    return;
  }
  std::unique_ptr<executorch_nnapi::CompiledModel> model;
  (void)executorch_nnapi::CompiledModel::build(api, loaded, values, executorch_nnapi::RuntimeOptions(),
                                               executorch_nnapi::Digest(), /*constants=*/nullptr, &model);
}

// load_blob on `size` bytes at `data`, with the named data its operands ask
// for; then what model building reads.
void load(const uint8_t* data, size_t size) {
  FreeableBuffer processed(data, size, nullptr);
  ZeroNamedData named_data(data, size);
  std::unique_ptr<LoadedBlob> loaded;
  if (executorch_nnapi::load_blob(&processed, &named_data, &loaded) != Error::Ok) {
    return;
  }
  std::vector<int64_t> values;
  std::string error;
  // No element values: a program that reads some (a position) fails here and is not built.
  const executorch_nnapi::InputValues no_values(loaded->inputs().size());
  if (loaded->shape_program().evaluate(loaded->exported_input_dims(), no_values, &values, &error)) {
    read_like_model_building(*loaded, values);
    build_model(*loaded, values);
  }
}

// Writes the recomputed CRC into a copy of `data` at offset 1 of *storage
// (unaligned); false when the bytes are no verifiable blob or the CRC was
// already right.
bool reseal(const uint8_t* data, size_t size, std::vector<uint8_t>* storage) {
  std::unique_ptr<uint8_t[]> aligned(new uint8_t[size]);
  std::memcpy(aligned.get(), data, size);
  flatbuffers::Verifier verifier(aligned.get(), size);
  if (size < 8 || !blob::VerifyBlobBuffer(verifier)) {
    return false;
  }
  uint32_t stored = 0;
  uint32_t computed = 0;
  if (!executorch_nnapi::blob_crc(aligned.get(), size, &stored, &computed) ||
      stored == computed) {
    return false;
  }
  uint8_t* field = const_cast<uint8_t*>(
      flatbuffers::GetRoot<flatbuffers::Table>(aligned.get())->GetAddressOf(blob::Blob::VT_CRC32));
  flatbuffers::WriteScalar<uint32_t>(field, computed);
  storage->assign(size + 1, 0);
  std::memcpy(storage->data() + 1, aligned.get(), size);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  executorch::runtime::register_pal(
      executorch::runtime::PalImpl::create(drop_log_message, __FILE__));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // libFuzzer's buffer is exactly `size` long, so ASan catches a read past it.
  load(data, size);
  std::vector<uint8_t> resealed;
  if (reseal(data, size, &resealed)) {
    load(resealed.data() + 1, size);
  }
  return 0;
}
