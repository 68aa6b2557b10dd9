// The ExecuTorch backend "NnapiBackend": runs the NNAPI delegate blobs made
// by executorch_nnapi.lowering (docs/architecture.md). Registered when this library is
// loaded.
#include <cinttypes>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>

#include "backend_stats.h"
#include "blob_reader.h"
#include "constant_memory.h"
#include "debug_tracing.h"
#include "delegate_state.h"
#include "executorch_nnapi_backend.h"
#include "layout.h"
#include "error_log.h"
#include "nnapi_api.h"
#include "nnapi_model.h"
#include "runtime_options.h"
#include "shape_program.h"

namespace executorch_nnapi {
namespace {

namespace et = ::executorch::ET_RUNTIME_NAMESPACE;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::runtime::ArrayRef;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;

constexpr const char* kBackendName = "NnapiBackend";

/// One compiled model per set of concrete sizes.
struct CacheEntry {
  // The evaluated shape expressions (LoadedBlob::compiled_model_key): they
  // determine every operand's dims and every shape-valued constant, i.e. the
  // whole NNAPI model; values given to it at every execution are left out.
  std::vector<int64_t> key;
  std::unique_ptr<CompiledModel> model;
};

/// Per-delegate state returned by init.
struct NnapiHandle {
  // ExecuTorch may run the same method from several threads; NNAPI
  // compilations are thread-safe but our cache is not.
  std::mutex mutex;
  std::shared_ptr<const NnapiApi> api;
  std::unique_ptr<LoadedBlob> blob;
  // The mutated buffers the delegate keeps (null without any), and the NNAPI
  // memories of the program's file its constants are given from: declared
  // before the compiled models, which use them, so that they outlive them.
  std::unique_ptr<DelegateState> state;
  std::unique_ptr<ConstantMemory> constants;
  RuntimeOptions options;
  // Names the model in NNAPI's compilation cache (options.cache_dir only).
  Digest model_digest;
  // Most recently used first.
  std::list<CacheEntry> cache;
  // Scratch for arguments whose NNAPI layout differs from ExecuTorch's.
  std::vector<std::vector<uint8_t>> input_staging;
  std::vector<std::vector<uint8_t>> output_staging;
  // The debug variant (intermediates as extra outputs) for the sizes of the
  // last traced execution at the intermediate-output level.
  CacheEntry debug_variant;
};

std::string format_dims(const int64_t* dims, size_t rank) {
  std::string out = "[";
  for (size_t i = 0; i < rank; ++i) {
    out += format_message(i == 0 ? "%" PRId64 : ", %" PRId64, dims[i]);
  }
  return out + "]";
}

std::string format_dims(const Tensor& t) {
  std::vector<int64_t> wide;
  for (ssize_t i = 0; i < t.dim(); ++i) {
    wide.push_back(t.size(i));
  }
  return format_dims(wide.data(), wide.size());
}

const char* scalar_type_name(int8_t code) {
  const ScalarType st = static_cast<ScalarType>(code);
  return executorch::runtime::isValid(st) ? executorch::runtime::toString(st)
                                          : "invalid";
}

// NNAPI has no rank-0 tensors: a 0-d ExecuTorch tensor travels as shape [1].
bool is_scalar_as_vector(const Tensor& t, size_t operand_rank) {
  return t.dim() == 0 && operand_rank == 1;
}

// The digest naming a model in NNAPI's compilation cache: the blob's bytes
// and every constant it uses (weights live in ExecuTorch's named data, so a
// re-exported model with new weights but the same blob gets a new token).
Digest model_digest(const FreeableBuffer* processed, const LoadedBlob& blob) {
  Digest d;
  d.update(processed->data(), processed->size());
  for (const OperandInfo& op : blob.operands()) {
    if (op.value != nullptr) {
      d.update(op.value, op.value_size);
    }
  }
  return d;
}

// The physical dimension order of an ExecuTorch tensor (channels-last
// tensors have {0, 2, 3, 1}): the order its bytes are laid out in.
std::vector<uint8_t> storage_order(const Tensor& t) {
  const auto order = t.dim_order();
  return std::vector<uint8_t>(order.begin(), order.end());
}

// Whether a tensor stored in order `stored` must be permuted to be read in
// order `wanted`. A 0-d tensor is a [1] operand in NNAPI: one element, no
// permutation whatever the orders say.
bool needs_permute(const std::vector<uint8_t>& stored,
                   const std::vector<uint8_t>& wanted) {
  return stored.size() == wanted.size() && stored != wanted;
}

// Whether NNAPI produces output `arg` in another order than ExecuTorch's
// tensor `t` is stored in (then it is written to staging and permuted).
bool needs_output_permute(const ArgumentInfo& arg, const Tensor& t) {
  return needs_permute(storage_order(t), full_order(arg.dim_order, t.dim()));
}

// The bytes of the ExecuTorch tensor for an argument whose NNAPI operand
// has `nnapi_bytes`: twice as many for an int64 tensor held in TENSOR_INT32.
size_t program_bytes(const ArgumentInfo& arg, size_t nnapi_bytes) {
  return arg.int64_as_int32 ? 2 * nnapi_bytes : nnapi_bytes;
}

// Narrows int64 input `a` into `out` as int32 (NNAPI has no 64-bit
// integers); a value outside int32's range fails the execute, naming it.
Error narrow_input(size_t a, const Tensor& t, std::vector<uint8_t>* out) {
  const size_t count = static_cast<size_t>(t.numel());
  out->resize(count * sizeof(int32_t));
  size_t bad_index = 0;
  int64_t bad_value = 0;
  if (!narrow_int64_to_int32(t.const_data_ptr<int64_t>(), count,
                             reinterpret_cast<int32_t*>(out->data()),
                             &bad_index, &bad_value)) {
    NNAPI_LOG_ERROR("input %zu (int64, shape %s) holds %" PRId64
                    " at element %zu, outside the int32 range NNAPI "
                    "computes it in (NNAPI has no 64-bit integers)",
                    a, format_dims(t).c_str(), bad_value, bad_index);
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

// Brings output `arg`, which NNAPI wrote to `staging` (when it needed one:
// another dim order, or int32 for an int64 tensor), into ExecuTorch's `t`,
// whose sizes are `tensor_dims`.
void copy_output_out(const ArgumentInfo& arg,
                     const std::vector<int64_t>& tensor_dims,
                     const std::vector<uint8_t>& staging, Tensor& t) {
  const bool permute = needs_output_permute(arg, t);
  if (!permute && !arg.int64_as_int32) {
    return;  // NNAPI wrote the tensor's own memory.
  }
  const uint8_t* source = staging.data();
  std::vector<uint8_t> permuted;
  if (permute) {
    const std::vector<uint8_t> stored = storage_order(t);
    uint8_t* dst = static_cast<uint8_t*>(t.mutable_data_ptr());
    if (arg.int64_as_int32) {
      permuted.resize(staging.size());
      dst = permuted.data();
      source = dst;
    }
    const std::vector<uint8_t> written = full_order(arg.dim_order, stored.size());
    permute_copy(staging.data(), physical_dims(tensor_dims, written),
                 order_change(written, stored),
                 arg.int64_as_int32 ? sizeof(int32_t) : t.element_size(), dst);
  }
  if (arg.int64_as_int32) {
    widen_int32_to_int64(reinterpret_cast<const int32_t*>(source),
                         static_cast<size_t>(t.numel()),
                         t.mutable_data_ptr<int64_t>());
  }
}

// Finds or builds the compiled model for the evaluated sizes `values` (its
// cache key leaves out what is given to NNAPI at every execution).
Error lookup_or_build(NnapiHandle* h, const std::vector<int64_t>& values,
                      CompiledModel** out, et::EventTracer* tracer) {
  std::vector<int64_t> key = h->blob->compiled_model_key(values);
  for (auto it = h->cache.begin(); it != h->cache.end(); ++it) {
    if (it->key == key) {
      h->cache.splice(h->cache.begin(), h->cache, it);
      *out = h->cache.front().model.get();
      return Error::Ok;
    }
  }
  std::unique_ptr<CompiledModel> model;
  const et_timestamp_t start = tracer != nullptr ? tracer_now() : 0;
  const Error err = CompiledModel::build(h->api, *h->blob, values, h->options,
                                         h->model_digest, h->constants.get(),
                                         &model);
  if (err != Error::Ok) {
    return err;
  }
  if (tracer != nullptr) {
    log_named_event(tracer, "NNAPI compile", start, tracer_now());
  }
  record_compilation(model->compilation_ns());
  while (h->cache.size() >= static_cast<size_t>(h->options.max_cached_shapes)) {
    h->cache.pop_back();  // Least recently used.
  }
  h->cache.push_front(CacheEntry{std::move(key), std::move(model)});
  *out = h->cache.front().model.get();
  return Error::Ok;
}

// Step 5 of execute under an event tracer: the execution as one event (and
// one per operation when the NNAPI library can time them), then, at the
// intermediate-output level, the same inputs through the debug variant.
Error traced_execute(NnapiHandle* h, CompiledModel* model,
                     et::EventTracer* tracer,
                     const std::vector<int64_t>& values,
                     const std::vector<const void*>& inputs,
                     const std::vector<void*>& outputs) {
  ExecutionProbe probe;
  probe.measure_timing = h->options.measure_timing;
  const et_timestamp_t start = tracer_now();
  Error err = model->execute(*h->blob, inputs, outputs, h->state.get(), &probe);
  const et_timestamp_t end = tracer_now();
  if (err != Error::Ok) {
    return err;
  }
  log_named_event(tracer, "NNAPI execute", start, end);
  log_operation_times(tracer, *h->blob, start, probe);
  if (!wants_intermediates(tracer)) {
    return Error::Ok;
  }
  const std::vector<int64_t> key = h->blob->compiled_model_key(values);
  if (h->debug_variant.model == nullptr || h->debug_variant.key != key) {
    // Not cached by NNAPI: it would share the ordinary model's cache token.
    RuntimeOptions options = h->options;
    options.cache_dir.clear();
    std::unique_ptr<CompiledModel> variant;
    err = CompiledModel::build(h->api, *h->blob, values, options,
                               h->model_digest, h->constants.get(), &variant,
                               debug_output_operands(*h->blob));
    if (err != Error::Ok) {
      return err;
    }
    h->debug_variant = CacheEntry{key, std::move(variant)};
  }
  err = h->debug_variant.model->set_run_time_values(*h->blob, values);
  if (err != Error::Ok) {
    return err;
  }
  return log_intermediates(tracer, *h->blob, h->debug_variant.model.get(),
                           inputs, h->state.get());
}

// The elements of integer tensor input `a` as int64, for the shape program
// (a language model's position read with .item()).
Error read_input_values(size_t a, const Tensor& t, std::vector<int64_t>* out) {
  const size_t count = static_cast<size_t>(t.numel());
  out->resize(count);
  for (size_t i = 0; i < count; ++i) {
    switch (t.scalar_type()) {
      case ScalarType::Long:
        (*out)[i] = t.const_data_ptr<int64_t>()[i];
        break;
      case ScalarType::Int:
        (*out)[i] = t.const_data_ptr<int32_t>()[i];
        break;
      case ScalarType::Short:
        (*out)[i] = t.const_data_ptr<int16_t>()[i];
        break;
      case ScalarType::Char:
        (*out)[i] = t.const_data_ptr<int8_t>()[i];
        break;
      case ScalarType::Byte:
        (*out)[i] = t.const_data_ptr<uint8_t>()[i];
        break;
      default:
        NNAPI_LOG_ERROR("input %zu has dtype %s, whose elements cannot be "
                        "read as sizes",
                        a, executorch::runtime::toString(t.scalar_type()));
        return Error::InvalidArgument;
    }
  }
  return Error::Ok;
}

// The tensor of input argument `a`, of the exported dtype.
Error input_tensor(const ArgumentInfo& arg, size_t a, Span<EValue*> args,
                   const Tensor** out) {
  if (args[a] == nullptr || !args[a]->isTensor()) {
    NNAPI_LOG_ERROR("input %zu must be a tensor", a);
    return Error::InvalidArgument;
  }
  const Tensor& t = args[a]->toTensor();
  if (static_cast<int8_t>(t.scalar_type()) != arg.scalar_type) {
    NNAPI_LOG_ERROR("input %zu has dtype %s, but the model was exported "
                    "for %s",
                    a, executorch::runtime::toString(t.scalar_type()),
                    scalar_type_name(arg.scalar_type));
    return Error::InvalidArgument;
  }
  *out = &t;
  return Error::Ok;
}

// Step 1 of execute: each input's dtype and rank against the export, its
// sizes in *sizes for the shape program (an INT argument's value as its only
// size; a 0-d tensor as [1]) and, where the program reads them, its elements
// in *values.
Error collect_input_sizes(const LoadedBlob& blob, Span<EValue*> args,
                          InputDims* sizes, InputValues* values) {
  InputDims& dims = *sizes;
  for (size_t a = 0; a < blob.inputs().size(); ++a) {
    const ArgumentInfo& arg = blob.inputs()[a];
    if (arg.is_int) {
      // A SymInt the CPU computed (sym_size of the program's input): the
      // shape program reads its value as this argument's only size.
      if (args[a] == nullptr || !args[a]->isInt()) {
        NNAPI_LOG_ERROR("input %zu must be an integer (a symbolic size)", a);
        return Error::InvalidArgument;
      }
      dims[a].push_back(args[a]->toInt());
      continue;
    }
    if (!arg.is_tensor && !arg.is_values) {
      continue;  // A SymInt: implied by the tensor sizes.
    }
    const Tensor* tensor = nullptr;
    Error err = input_tensor(arg, a, args, &tensor);
    if (err != Error::Ok) {
      return err;
    }
    const Tensor& t = *tensor;
    if (blob.shape_program().reads_values(a)) {
      err = read_input_values(a, t, &(*values)[a]);
      if (err != Error::Ok) {
        return err;
      }
    }
    // A merged or VALUES argument's tensor has its own dims.
    const size_t rank = arg.merged_dims.empty() && !arg.is_values
                            ? blob.root()->operands()->Get(arg.operand)->dims()->size()
                            : arg.tensor_dims.size();
    if (arg.merged_dims.empty() && is_scalar_as_vector(t, rank)) {
      dims[a].push_back(1);
      continue;
    }
    if (static_cast<size_t>(t.dim()) != rank) {
      NNAPI_LOG_ERROR("input %zu has rank %zd (shape %s), but the model "
                      "was exported for rank %zu",
                      a, static_cast<ssize_t>(t.dim()),
                      format_dims(t).c_str(), rank);
      return Error::InvalidArgument;
    }
    for (size_t d = 0; d < rank; ++d) {
      dims[a].push_back(t.size(static_cast<ssize_t>(d)));
    }
  }
  return Error::Ok;
}

// Step 3 of execute: tensor input `a`, whose sizes (collected in step 1) are
// `dims`, as NNAPI reads it, in *ptr. Its sizes must be exactly the model's
// (this also catches a static dimension that differs from the export). An
// int64 input is narrowed and one stored in another dim order permuted, into
// the handle's staging.
Error bind_input(NnapiHandle* h, const CompiledModel& model, size_t a,
                 const Tensor& t, const std::vector<int64_t>& dims,
                 const void** ptr) {
  const LoadedBlob& blob = *h->blob;
  const ArgumentInfo& arg = blob.inputs()[a];
  const std::vector<int64_t>& want = model.input_tensor_dims(a);
  // A 0-d tensor travels as [1] (dims holds that 1).
  if (dims != want) {
    NNAPI_LOG_ERROR("input %zu has shape %s, but for these input sizes "
                    "the model needs %s",
                    a, format_dims(t).c_str(),
                    format_dims(want.data(), want.size()).c_str());
    return Error::InvalidArgument;
  }
  if (t.nbytes() != program_bytes(arg, model.input_bytes(a))) {
    NNAPI_LOG_ERROR("input %zu holds %zu bytes, but its NNAPI operand "
                    "(%s) needs %zu: the exported dtype does not match "
                    "the NNAPI type",
                    a, t.nbytes(),
                    blob.describe_operand(arg.operand).c_str(),
                    model.input_bytes(a));
    return Error::InvalidProgram;
  }
  *ptr = t.const_data_ptr();
  const uint8_t* source = static_cast<const uint8_t*>(t.const_data_ptr());
  size_t element_size = t.element_size();
  h->input_staging.resize(blob.inputs().size());
  std::vector<uint8_t> narrowed;
  if (arg.int64_as_int32) {
    const Error err = narrow_input(a, t, &narrowed);
    if (err != Error::Ok) {
      return err;
    }
    source = narrowed.data();
    element_size = sizeof(int32_t);
    *ptr = source;
  }
  const std::vector<uint8_t> stored = storage_order(t);
  const std::vector<uint8_t> wanted = full_order(arg.dim_order, stored.size());
  std::vector<uint8_t>& staging = h->input_staging[a];
  if (needs_permute(stored, wanted)) {
    // NNAPI reads this input in another dimension order than the tensor
    // is stored in (e.g. NHWC from an NCHW tensor): permute a copy. A
    // channels-last tensor read in NHWC is passed as it is.
    staging.resize(model.input_bytes(a));
    permute_copy(source, physical_dims(dims, stored),
                 order_change(stored, wanted), element_size,
                 staging.data());
    *ptr = staging.data();
  } else if (arg.int64_as_int32) {
    staging.swap(narrowed);  // Lives until the next execute.
    *ptr = staging.data();
  }
  return Error::Ok;
}

// Step 4 of execute: tensor output `o` (the argument `ev`) resized to the
// model's sizes for this execute, and the memory NNAPI writes it to in *ptr:
// the tensor's own, or the handle's staging when it must be permuted or
// widened afterwards (copy_output_out).
Error bind_output(NnapiHandle* h, const CompiledModel& model, size_t o,
                  EValue* ev, void** ptr) {
  const LoadedBlob& blob = *h->blob;
  const ArgumentInfo& arg = blob.outputs()[o];
  if (ev == nullptr || !ev->isTensor()) {
    NNAPI_LOG_ERROR("output %zu must be a tensor", o);
    return Error::InvalidArgument;
  }
  Tensor& t = ev->toTensor();
  if (static_cast<int8_t>(t.scalar_type()) != arg.scalar_type) {
    NNAPI_LOG_ERROR("output %zu has dtype %s, but the model was exported "
                    "for %s",
                    o, executorch::runtime::toString(t.scalar_type()),
                    scalar_type_name(arg.scalar_type));
    return Error::InvalidArgument;
  }
  const std::vector<int64_t>& want = model.output_tensor_dims(o);
  if (!(arg.merged_dims.empty() && is_scalar_as_vector(t, want.size()))) {
    if (static_cast<size_t>(t.dim()) != want.size()) {
      NNAPI_LOG_ERROR("output %zu has rank %zd, but the model produces "
                      "rank %zu",
                      o, static_cast<ssize_t>(t.dim()), want.size());
      return Error::InvalidArgument;
    }
    const std::vector<SizesType> new_sizes(want.begin(), want.end());
    const Error err = executorch::runtime::resize_tensor(
        t, ArrayRef<SizesType>(new_sizes.data(), new_sizes.size()));
    if (err != Error::Ok) {
      NNAPI_LOG_ERROR("cannot resize output %zu from %s to %s (error "
                      "0x%x): the output's planned memory is too small "
                      "or its shape is static",
                      o, format_dims(t).c_str(),
                      format_dims(want.data(), want.size()).c_str(),
                      static_cast<unsigned>(err));
      return err;
    }
  }
  if (t.nbytes() != program_bytes(arg, model.output_bytes(o))) {
    NNAPI_LOG_ERROR("output %zu holds %zu bytes, but its NNAPI operand "
                    "(%s) produces %zu: the exported dtype does not match "
                    "the NNAPI type",
                    o, t.nbytes(),
                    blob.describe_operand(arg.operand).c_str(),
                    model.output_bytes(o));
    return Error::InvalidProgram;
  }
  *ptr = t.mutable_data_ptr();
  if (needs_output_permute(arg, t) || arg.int64_as_int32) {
    h->output_staging.resize(blob.outputs().size());
    h->output_staging[o].resize(model.output_bytes(o));
    *ptr = h->output_staging[o].data();
  }
  return Error::Ok;
}

// Adds one execution's transfers to the counters (executorch_nnapi_transfer_stats):
// a buffer bound elsewhere than the tensor's own memory was staged.
void count_transfers(const NnapiHandle& h, const CompiledModel& model,
                     Span<EValue*> args, const std::vector<const void*>& inputs,
                     const std::vector<void*>& outputs) {
  const LoadedBlob& blob = *h.blob;
  uint64_t pointer = 0;
  uint64_t staged = 0;
  for (size_t a = 0; a < blob.inputs().size(); ++a) {
    if (blob.inputs()[a].is_tensor) {
      pointer += model.input_bytes(a);
      staged += inputs[a] != args[a]->toTensor().const_data_ptr()
                    ? model.input_bytes(a)
                    : 0;
    }
  }
  const size_t num_inputs = blob.inputs().size();
  for (size_t o = 0; o < blob.outputs().size(); ++o) {
    if (blob.outputs()[o].is_tensor) {
      pointer += model.output_bytes(o);
      staged += outputs[o] != args[num_inputs + o]->toTensor().mutable_data_ptr()
                    ? model.output_bytes(o)
                    : 0;
    }
  }
  const uint64_t state = h.state != nullptr ? h.state->bytes_bound() : 0;
  const bool mapped = h.state != nullptr && h.state->in_nnapi_memory();
  record_execution(pointer + (mapped ? 0 : state), model.run_time_bytes(),
                   staged, mapped ? state : 0);
}

class NnapiBackend final : public et::BackendInterface {
 public:
  // False (with one log line saying why) when there is no NNAPI library, it
  // is older than API 27, or it reports no device: ExecuTorch then fails the
  // load of any method with an NnapiBackend delegate, and a runner can pick
  // a CPU method instead.
  bool is_available() const override {
    // ExecuTorch asks once per delegate: say why once, not once per call
    // (until NNAPI has been available again).
    static std::mutex mutex;
    static std::string last_logged;
    std::string error;
    const bool usable = nnapi_usable(&error);
    std::lock_guard<std::mutex> lock(mutex);
    if (usable) {
      last_logged.clear();
      return true;
    }
    const std::string message = "NnapiBackend: NNAPI is not available: " + error;
    // Every answer records why (Python's last_error() reads it); the log says it once.
    record_last_error(message);
    if (error != last_logged) {
      for (const std::string& line : split_for_log(message)) {
        ET_LOG(Error, "%s", line.c_str());
      }
      last_logged = error;
    }
    return false;
  }

  Result<et::DelegateHandle*> init(
      et::BackendInitContext& context, FreeableBuffer* processed,
      ArrayRef<et::CompileSpec> compile_specs) const override {
    std::string error;
    std::shared_ptr<const NnapiApi> api =
        nnapi_usable(&error) ? nnapi_api(&error) : nullptr;
    if (api == nullptr) {
      NNAPI_LOG_ERROR("NNAPI is not available: %s", error.c_str());
      return Error::NotSupported;
    }
    RuntimeOptions options;
    Error err = parse_runtime_options(compile_specs, context.runtime_specs(),
                                      &options);
    if (err != Error::Ok) {
      return err;
    }
    drop_options_above_level(api->feature_level, &options);
    std::unique_ptr<LoadedBlob> blob;
    err = load_blob(processed, context.get_named_data_map(), &blob);
    if (err != Error::Ok) {
      return err;
    }
    const int64_t needed = blob->root()->min_feature_level();
    if (needed > api->feature_level) {
      NNAPI_LOG_ERROR(
          "the model needs NNAPI feature level %s, but this NNAPI runtime "
          "is at feature level %s: export the model for this feature level "
          "or run it on a newer device (runtime: '%s')",
          nnapi_feature_level_name(needed).c_str(),
          nnapi_feature_level_name(api->feature_level).c_str(),
          api->library_path.c_str());
      return Error::DelegateInvalidCompatibility;
    }

    std::unique_ptr<NnapiHandle> h(new (std::nothrow) NnapiHandle());
    if (h == nullptr) {
      NNAPI_LOG_ERROR("out of memory creating the delegate handle");
      return Error::MemoryAllocationFailed;
    }
    h->api = std::move(api);
    h->blob = std::move(blob);
    h->options = options;
    err = DelegateState::create(h->api, *h->blob, &h->state);
    if (err == Error::Ok) {
      err = ConstantMemory::create(h->api, *h->blob, &h->constants);
    }
    if (err != Error::Ok) {
      return err;
    }
    if (!options.cache_dir.empty()) {
      h->model_digest = model_digest(processed, *h->blob);
    }

    // Static shapes: compile once now, so a model the device rejects fails
    // at load rather than at the first execute.
    if (h->blob->shape_program().num_symbols() == 0) {
      std::vector<int64_t> values;
      const InputValues no_values(h->blob->inputs().size());
      if (!h->blob->shape_program().evaluate(h->blob->exported_input_dims(),
                                             no_values, &values, &error)) {
        NNAPI_LOG_ERROR("the blob's shape program fails for its own "
                        "exported sizes: %s",
                        error.c_str());
        return Error::InvalidProgram;
      }
      CompiledModel* model = nullptr;
      err = lookup_or_build(h.get(), values, &model, context.event_tracer());
      if (err != Error::Ok) {
        return err;
      }
    }
    return h.release();
  }

  Error execute(et::BackendExecutionContext& context, et::DelegateHandle* handle,
                Span<EValue*> args) const override {
    et::EventTracer* tracer = context.event_tracer();
    NnapiHandle* h = static_cast<NnapiHandle*>(handle);
    if (h == nullptr || h->blob == nullptr) {
      NNAPI_LOG_ERROR("execute called with an invalid delegate handle");
      return Error::DelegateInvalidHandle;
    }
    std::lock_guard<std::mutex> lock(h->mutex);
    const LoadedBlob& blob = *h->blob;
    const size_t num_inputs = blob.inputs().size();
    const size_t num_outputs = blob.outputs().size();
    if (args.size() != num_inputs + num_outputs) {
      NNAPI_LOG_ERROR("the delegate got %zu arguments, but its blob "
                      "describes %zu inputs and %zu outputs",
                      args.size(), num_inputs, num_outputs);
      return Error::InvalidArgument;
    }

    // 1. Inputs: dtype and rank; collect sizes for the shape program.
    InputDims dims(num_inputs);
    InputValues input_values(num_inputs);
    Error err = collect_input_sizes(blob, args, &dims, &input_values);
    if (err != Error::Ok) {
      return err;
    }

    // 2. Sizes of everything, then the compiled model for them.
    std::vector<int64_t> values;
    std::string error;
    if (!blob.shape_program().evaluate(dims, input_values, &values, &error)) {
      NNAPI_LOG_ERROR_STR(error);
      return Error::InvalidArgument;
    }
    CompiledModel* model = nullptr;
    err = lookup_or_build(h, values, &model, tracer);
    if (err == Error::Ok) {
      err = model->set_run_time_values(blob, values);
    }
    if (err != Error::Ok) {
      return err;
    }

    // 3. Bind inputs.
    std::vector<const void*> input_ptrs(num_inputs, nullptr);
    for (size_t a = 0; a < num_inputs; ++a) {
      if (!blob.inputs()[a].is_tensor) {
        continue;
      }
      err = bind_input(h, *model, a, args[a]->toTensor(), dims[a],
                       &input_ptrs[a]);
      if (err != Error::Ok) {
        return err;
      }
    }

    // 4. Outputs: resize to the evaluated dims, then bind.
    std::vector<void*> output_ptrs(num_outputs, nullptr);
    for (size_t o = 0; o < num_outputs; ++o) {
      if (!blob.outputs()[o].is_tensor) {
        continue;
      }
      err = bind_output(h, *model, o, args[num_inputs + o], &output_ptrs[o]);
      if (err != Error::Ok) {
        return err;
      }
    }

    // 5. Run, then bring permuted outputs back to ExecuTorch's order.
    err = tracer == nullptr
              ? model->execute(blob, input_ptrs, output_ptrs, h->state.get())
              : traced_execute(h, model, tracer, values, input_ptrs,
                               output_ptrs);
    if (err != Error::Ok) {
      return err;
    }
    if (h->state != nullptr) {
      h->state->commit();
    }
    count_transfers(*h, *model, args, input_ptrs, output_ptrs);
    for (size_t o = 0; o < num_outputs; ++o) {
      const ArgumentInfo& arg = blob.outputs()[o];
      if (!arg.is_tensor) {
        continue;
      }
      Tensor& t = args[num_inputs + o]->toTensor();
      // The staging list is only sized once some output needed staging.
      static const std::vector<uint8_t> kNoStaging;
      const std::vector<uint8_t>& staging =
          o < h->output_staging.size() ? h->output_staging[o] : kNoStaging;
      copy_output_out(arg, model->output_tensor_dims(o), staging, t);
    }
    return Error::Ok;
  }

  void destroy(et::DelegateHandle* handle) const override {
    // Frees every compiled model, then the blob and the named data it kept.
    delete static_cast<NnapiHandle*>(handle);
  }
};

NnapiBackend& backend_instance() {
  static NnapiBackend backend;
  return backend;
}

// Registration at load time: loading the library (ctypes.CDLL on the host,
// static linking with whole-archive on Android) is all it takes.
const bool kRegistered = [] {
  const et::Backend backend{kBackendName, &backend_instance()};
  const Error err = et::register_backend(backend);
  if (err != Error::Ok) {
    NNAPI_LOG_ERROR("could not register the backend '%s' (error 0x%x); is "
                    "another copy of it already loaded?",
                    kBackendName, static_cast<unsigned>(err));
    return false;
  }
  return true;
}();

}  // namespace
}  // namespace executorch_nnapi
