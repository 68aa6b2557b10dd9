// nnapi_executor_runner: loads a .pte, runs one method with the NNAPI
// delegate, prints min / median / max latency and the NNAPI compilation time,
// and writes every output as raw little-endian bytes plus a JSON sidecar with
// its dtype and shape. The adb-shell counterpart of ExecuTorch's
// executor_runner for this backend:
//
//   nnapi_executor_runner --model m.pte [--method forward] [--input f.bin ...]
//       [--then --input g.bin ...] [--iters N] [--warmup K] [--output-dir D]
//       [--option key=value ...]
//
// --then starts another step: the steps run one after another on the one
// loaded method (a language model's prefill, then its decode steps, which
// share the KV cache the method keeps), each with its own inputs; with more
// than one step, step k's outputs go to <output-dir>/step_<k>/.
//
// With no --method, the runner runs "forward", or "forward_cpu" when NNAPI is
// unavailable here and the program has that method (executorch-nnapi export
// --cpu-method). --option sets an NnapiBackend load-time option (the table in
// docs/runtime.md); it wins over the CompileSpec of the same key.
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <string>
#include <vector>

#include <executorch/extension/module/module.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/runtime.h>

#include "executorch_nnapi_backend.h"

#ifdef EXECUTORCH_NNAPI_RUNNER_ETDUMP
#include <executorch/devtools/etdump/etdump_flatcc.h>
#endif

namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::extension::Module;
using executorch::runtime::BackendOption;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::LoadBackendOptionsMap;
using executorch::runtime::MethodMeta;
using executorch::runtime::Span;

constexpr const char* kBackendName = "NnapiBackend";
constexpr const char* kCpuMethod = "forward_cpu";

struct InputSpec {
  std::string path;
  std::vector<int32_t> shape;  // empty: the method's declared shape
};

struct Args {
  std::string model;
  std::string method;  // empty: forward, or forward_cpu without NNAPI
  // The inputs of each step (--then starts the next); one step without --then.
  std::vector<std::vector<InputSpec>> steps{1};
  int iters = 10;
  int warmup = 1;
  std::string output_dir;
  std::string etdump;  // empty: no profiling
  std::string debug_buffer;  // with etdump: where intermediate outputs go
  int debug_buffer_mb = 64;
  std::vector<std::pair<std::string, std::string>> options;
};

void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --model m.pte [--method NAME] [--input f.bin[:d0,d1,...]] ...\n"
               "       [--then --input ...] [--iters N] [--warmup K] [--output-dir D] [--etdump PATH]\n"
               "       [--option key=value] ...\n"
               "  --input   raw little-endian tensor data, one per method input, in order;\n"
               "            ':d0,d1,...' gives its sizes (needed for dynamic dims)\n"
               "  --then    run another step on the same loaded method with the --input that\n"
               "            follow (state such as a KV cache carries over); with several steps\n"
               "            step k's outputs are written to <output-dir>/step_<k>/\n"
               "  --option  an NnapiBackend load-time option, e.g. execution_preference=low_power\n"
               "  --etdump  write an ETDump (profiling events of every run) to PATH\n"
               "  --debug-buffer PATH  with --etdump: also log every operation's output (NNAPI's\n"
               "            included) into a buffer of --debug-buffer-mb MiB (64), written to PATH\n",
               argv0);
}

bool parse_int(const char* text, int min, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > 1000000000) {
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool parse_input(const std::string& text, InputSpec* out) {
  const size_t colon = text.rfind(':');
  out->path = text.substr(0, colon);
  if (colon == std::string::npos) {
    return true;
  }
  std::string dims = text.substr(colon + 1);
  size_t start = 0;
  while (start <= dims.size()) {
    const size_t comma = std::min(dims.find(',', start), dims.size());
    int d = 0;
    if (!parse_int(dims.substr(start, comma - start).c_str(), 0, &d)) {
      return false;
    }
    out->shape.push_back(d);
    start = comma + 1;
  }
  return true;
}

// Returns false (after printing why) on a malformed command line.
bool parse_args(int argc, char** argv, Args* args) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--then") {  // the one flag without a value
      args->steps.emplace_back();
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "error: %s needs a value\n", flag.c_str());
      return false;
    }
    const char* value = argv[++i];
    bool ok = true;
    if (flag == "--model") {
      args->model = value;
    } else if (flag == "--method") {
      args->method = value;
    } else if (flag == "--input") {
      InputSpec in;
      ok = parse_input(value, &in);
      args->steps.back().push_back(in);
    } else if (flag == "--iters") {
      ok = parse_int(value, 1, &args->iters);
    } else if (flag == "--warmup") {
      ok = parse_int(value, 0, &args->warmup);
    } else if (flag == "--output-dir") {
      args->output_dir = value;
    } else if (flag == "--etdump") {
      args->etdump = value;
    } else if (flag == "--debug-buffer") {
      args->debug_buffer = value;
    } else if (flag == "--debug-buffer-mb") {
      ok = parse_int(value, 1, &args->debug_buffer_mb);
    } else if (flag == "--option") {
      const char* eq = std::strchr(value, '=');
      ok = eq != nullptr && eq != value;
      if (ok) {
        args->options.emplace_back(std::string(value, eq), std::string(eq + 1));
      }
    } else {
      std::fprintf(stderr, "error: unknown flag %s\n", flag.c_str());
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "error: bad value '%s' for %s\n", value, flag.c_str());
      return false;
    }
  }
  if (args->model.empty()) {
    std::fprintf(stderr, "error: --model is required\n");
    return false;
  }
  return true;
}

// "true"/"false" become bools, integers ints, anything else a string: the
// three value types ExecuTorch backend options carry.
bool to_backend_option(const std::string& key, const std::string& value,
                       BackendOption* out) {
  if (key.size() >= executorch::runtime::kMaxOptionKeyLength ||
      value.size() >= executorch::runtime::kMaxOptionValueLength) {
    std::fprintf(stderr, "error: option %s is too long\n", key.c_str());
    return false;
  }
  std::memcpy(out->key, key.c_str(), key.size() + 1);
  char* end = nullptr;
  const long number = std::strtol(value.c_str(), &end, 10);
  if (value == "true" || value == "false") {
    out->value = value == "true";
  } else if (!value.empty() && *end == '\0') {
    out->value = static_cast<int>(number);
  } else {
    std::array<char, executorch::runtime::kMaxOptionValueLength> text{};
    std::memcpy(text.data(), value.c_str(), value.size() + 1);
    out->value = text;
  }
  return true;
}

bool nnapi_available() {
  auto* backend = executorch::runtime::get_backend_class(kBackendName);
  return backend != nullptr && backend->is_available();
}

// forward (or the --method asked for); forward_cpu when NNAPI is missing
// and the program carries it.
std::string choose_method(Module& module, const Args& args) {
  if (!args.method.empty()) {
    return args.method;
  }
  if (nnapi_available()) {
    return "forward";
  }
  auto names = module.method_names();
  if (names.ok() && names->count(kCpuMethod) > 0) {
    std::printf("NNAPI is unavailable here: running method '%s' instead of 'forward'\n",
                kCpuMethod);
    return kCpuMethod;
  }
  return "forward";
}

/// A tensor the runner owns: data, sizes and the TensorImpl over them.
struct OwnedTensor {
  std::vector<uint8_t> data;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::unique_ptr<TensorImpl> impl;
};

std::string format_sizes(const std::vector<int32_t>& sizes) {
  std::string out = "[";
  for (size_t d = 0; d < sizes.size(); ++d) {
    out += (d ? ", " : "") + std::to_string(sizes[d]);
  }
  return out + "]";
}

// What input `index` takes, e.g. "Float of at most [1, 3, 16, 16]": the
// declared sizes are the input's own when static, its maxima when dynamic.
std::string describe_input(const MethodMeta& meta, size_t index) {
  auto info = meta.input_tensor_meta(index);
  if (!info.ok()) {
    return "a value that is not a tensor";
  }
  const auto sizes = info->sizes();
  return std::string(executorch::runtime::toString(info->scalar_type())) + " of at most " +
         format_sizes(std::vector<int32_t>(sizes.begin(), sizes.end()));
}

// Reads input `index` (or fills it with ones when no file is given) with the
// dtype, dim order and (unless overridden) sizes the method declares.
bool make_input(const MethodMeta& meta, size_t index, const InputSpec* spec,
                OwnedTensor* t) {
  auto info = meta.input_tensor_meta(index);
  if (!info.ok()) {
    std::fprintf(stderr, "error: input %zu of the method is not a tensor\n", index);
    return false;
  }
  const auto sizes = info->sizes();
  t->sizes.assign(sizes.begin(), sizes.end());
  if (spec != nullptr && !spec->shape.empty()) {
    t->sizes = spec->shape;
  }
  const auto order = info->dim_order();
  t->dim_order.assign(order.begin(), order.end());
  if (t->dim_order.size() != t->sizes.size()) {
    std::fprintf(stderr, "error: input %zu: --input gave sizes %s (rank %zu); the method takes rank %zu, %s\n",
                 index, format_sizes(t->sizes).c_str(), t->sizes.size(), t->dim_order.size(),
                 describe_input(meta, index).c_str());
    return false;
  }
  for (size_t d = 0; d < t->sizes.size(); ++d) {
    if (t->sizes[d] > sizes[d]) {
      std::fprintf(stderr, "error: input %zu: --input gave sizes %s; the method takes %s (dimension %zu is larger)\n",
                   index, format_sizes(t->sizes).c_str(), describe_input(meta, index).c_str(), d);
      return false;
    }
  }
  // Strides from the dim order (channels-last inputs stay channels-last).
  t->strides.assign(t->sizes.size(), 1);
  int32_t stride = 1;
  for (size_t k = t->dim_order.size(); k-- > 0;) {
    t->strides[t->dim_order[k]] = stride;
    stride *= t->sizes[t->dim_order[k]];
  }
  const size_t nbytes = static_cast<size_t>(stride) *
                        executorch::runtime::elementSize(info->scalar_type());
  t->data.assign(nbytes, 0);
  if (spec == nullptr) {
    if (info->scalar_type() == ScalarType::Float) {
      std::fill(reinterpret_cast<float*>(t->data.data()),
                reinterpret_cast<float*>(t->data.data()) + stride, 1.0f);
    }
  } else {
    std::ifstream f(spec->path, std::ios::binary | std::ios::ate);
    const std::streamoff held = f ? static_cast<std::streamoff>(f.tellg()) : -1;
    f.seekg(0);
    f.read(reinterpret_cast<char*>(t->data.data()), static_cast<std::streamsize>(nbytes));
    if (!f || f.peek() != EOF) {
      std::fprintf(stderr, "error: input %zu: %s %s; the method takes %s %s (%zu bytes)\n", index,
                   spec->path.c_str(),
                   held < 0 ? "cannot be read" : ("holds " + std::to_string(held) + " bytes").c_str(),
                   executorch::runtime::toString(info->scalar_type()), format_sizes(t->sizes).c_str(),
                   nbytes);
      return false;
    }
  }
  t->impl = std::make_unique<TensorImpl>(
      info->scalar_type(), static_cast<ssize_t>(t->sizes.size()), t->sizes.data(),
      t->data.data(), t->dim_order.data(), t->strides.data(),
      executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);
  return true;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// output_<i>.bin (the elements in the tensor's own dim order, little-endian
// as on every Android ABI) and output_<i>.json ({"dtype", "shape", "dim_order"}).
bool write_output(const std::string& dir, size_t i, const Tensor& t) {
  const std::string stem = dir + "/output_" + std::to_string(i);
  std::ofstream bin(stem + ".bin", std::ios::binary);
  bin.write(static_cast<const char*>(t.const_data_ptr()),
            static_cast<std::streamsize>(t.nbytes()));
  std::ofstream json(stem + ".json");
  json << "{\"dtype\": \"" << executorch::runtime::toString(t.scalar_type())
       << "\", \"shape\": [";
  for (ssize_t d = 0; d < t.dim(); ++d) {
    json << (d ? ", " : "") << t.size(d);
  }
  json << "], \"dim_order\": [";
  for (ssize_t d = 0; d < t.dim(); ++d) {
    json << (d ? ", " : "") << static_cast<int>(t.dim_order()[d]);
  }
  json << "]}\n";
  if (!bin || !json) {
    std::fprintf(stderr, "error: cannot write %s.bin/.json\n", stem.c_str());
    return false;
  }
  return true;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// After a failed run the backend did not explain: ExecuTorch refuses to
// resize an input with static sizes to others; names it (true) if so.
bool explain_refused_sizes(const MethodMeta& meta, const std::vector<OwnedTensor>& tensors) {
  if (executorch_nnapi_last_error()[0] != '\0') {
    return false;
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto info = meta.input_tensor_meta(i);
    const auto sizes = info.ok() ? info->sizes() : executorch::runtime::Span<const int32_t>();
    if (info.ok() && !std::equal(sizes.begin(), sizes.end(), tensors[i].sizes.begin(), tensors[i].sizes.end())) {
      std::fprintf(stderr, "error: input %zu: --input gave sizes %s; the method takes exactly %s %s "
                   "(its sizes are static)\n", i, format_sizes(tensors[i].sizes).c_str(),
                   executorch::runtime::toString(info->scalar_type()),
                   format_sizes(std::vector<int32_t>(sizes.begin(), sizes.end())).c_str());
      return true;
    }
  }
  return false;
}

int fail(const char* what, Error err) {
  const char* reason = executorch_nnapi_last_error();
  std::fprintf(stderr, "error: %s failed (ExecuTorch error 0x%x)%s%s\n", what,
               static_cast<unsigned>(err), reason[0] ? ": " : "", reason);
  return 1;
}

#ifndef __ANDROID__
// On a Linux host NNAPI is the host driver behind our shim, installed in
// <site-packages>/executorch_nnapi/host_driver/; this binary is in
// <site-packages>/executorch_nnapi/runtime/bin/. $EXECUTORCH_NNAPI_LIBRARY still wins (the backend reads it).
void use_host_shim() {
  if (std::getenv("EXECUTORCH_NNAPI_LIBRARY") != nullptr) {
    return;
  }
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) {
    return;
  }
  std::string dir(exe, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  dir = dir.substr(0, dir.rfind('/'));  // .../executorch_nnapi/runtime
  const std::string shim = dir.substr(0, dir.rfind('/')) + "/host_driver/libnnapi_host_shim.so";
  if (access(shim.c_str(), R_OK) == 0) {
    executorch_nnapi_set_library_path(shim.c_str());
  }
}
#endif

// --etdump: an ETDump generator for the Module (null without the flag), and
// writing what it recorded (docs/debugging.md).
// `debug_buffer` receives the intermediate outputs (--debug-buffer); it must
// outlive the tracer's use of it.
std::unique_ptr<executorch::runtime::EventTracer> make_tracer(const Args& args,
                                                             std::vector<uint8_t>* debug_buffer) {
#ifdef EXECUTORCH_NNAPI_RUNNER_ETDUMP
  if (!args.etdump.empty()) {
    auto gen = std::make_unique<executorch::etdump::ETDumpGen>();
    if (!args.debug_buffer.empty()) {
      debug_buffer->resize(static_cast<size_t>(args.debug_buffer_mb) << 20);
      gen->set_debug_buffer(Span<uint8_t>(debug_buffer->data(), debug_buffer->size()));
      gen->set_event_tracer_debug_level(
          executorch::runtime::EventTracerDebugLogLevel::kIntermediateOutputs);
    }
    return gen;
  }
#else
  (void)args;
  (void)debug_buffer;
#endif
  return nullptr;
}

bool write_etdump(const Args& args, executorch::runtime::EventTracer* tracer,
                  const std::vector<uint8_t>& debug_buffer) {
#ifdef EXECUTORCH_NNAPI_RUNNER_ETDUMP
  if (!args.debug_buffer.empty()) {
    std::ofstream debug(args.debug_buffer, std::ios::binary);
    debug.write(reinterpret_cast<const char*>(debug_buffer.data()),
                static_cast<std::streamsize>(debug_buffer.size()));
    if (!debug) {
      std::fprintf(stderr, "error: cannot write the debug buffer to %s\n", args.debug_buffer.c_str());
      return false;
    }
  }
  auto* gen = static_cast<executorch::etdump::ETDumpGen*>(tracer);
  executorch::etdump::ETDumpResult result = gen->get_etdump_data();
  std::ofstream out(args.etdump, std::ios::binary);
  out.write(static_cast<const char*>(result.buf), static_cast<std::streamsize>(result.size));
  std::free(result.buf);
  if (!out) {
    std::fprintf(stderr, "error: cannot write the ETDump to %s\n", args.etdump.c_str());
    return false;
  }
  std::printf("etdump: %zu bytes written to %s\n", result.size, args.etdump.c_str());
  return true;
#else
  (void)tracer;
  (void)debug_buffer;
  std::fprintf(stderr, "error: --etdump %s: this runner was built without ExecuTorch's "
               "etdump library\n", args.etdump.c_str());
  return false;
#endif
}

/// One step: its input tensors.
struct Step {
  std::vector<OwnedTensor> tensors;
  std::vector<EValue> inputs;
};

bool prepare_step(const MethodMeta& meta, const std::string& method,
                  const std::vector<InputSpec>& specs, Step* step) {
  if (!specs.empty() && specs.size() < meta.num_inputs()) {
    const size_t missing = specs.size();
    std::fprintf(stderr, "error: input %zu is missing: method '%s' takes %zu inputs (input %zu: %s), "
                 "%zu --input given\n", missing, method.c_str(), meta.num_inputs(), missing,
                 describe_input(meta, missing).c_str(), specs.size());
    return false;
  }
  if (specs.size() > meta.num_inputs()) {
    std::fprintf(stderr, "error: method '%s' takes %zu inputs, %zu --input given\n",
                 method.c_str(), meta.num_inputs(), specs.size());
    return false;
  }
  step->tensors.resize(meta.num_inputs());
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    if (!make_input(meta, i, specs.empty() ? nullptr : &specs[i], &step->tensors[i])) {
      return false;
    }
    step->inputs.emplace_back(Tensor(step->tensors[i].impl.get()));
  }
  return true;
}

// Step k's outputs (of the last iteration): into `dir` for one step, into dir/step_<k>/ for
// several. Written before the next step runs, which may reuse the memory they are in.
bool write_step(const std::string& dir, size_t k, size_t step_count,
                const std::vector<EValue>& outputs) {
  std::string target = dir;
  if (step_count > 1) {
    target += "/step_" + std::to_string(k);
    if (mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) {
      std::fprintf(stderr, "error: cannot create %s: %s\n", target.c_str(), std::strerror(errno));
      return false;
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].isTensor() && !write_output(target, i, outputs[i].toTensor())) {
      return false;
    }
  }
  std::printf("outputs: %zu written to %s\n", outputs.size(), target.c_str());
  return true;
}

int run(const Args& args) {
  if (!args.debug_buffer.empty() && args.etdump.empty()) {
    std::fprintf(stderr, "error: --debug-buffer needs --etdump\n");
    return 1;
  }
  std::vector<uint8_t> debug_buffer;
  std::unique_ptr<executorch::runtime::EventTracer> owned_tracer = make_tracer(args, &debug_buffer);
  executorch::runtime::EventTracer* tracer = owned_tracer.get();
  Module module(args.model, Module::LoadMode::Mmap, std::move(owned_tracer));
  Error err = module.load();
  if (err != Error::Ok) {
    return fail(("loading " + args.model).c_str(), err);
  }
  const std::string method = choose_method(module, args);
  std::vector<BackendOption> options(args.options.size());
  for (size_t i = 0; i < args.options.size(); ++i) {
    if (!to_backend_option(args.options[i].first, args.options[i].second, &options[i])) {
      return 1;
    }
  }
  LoadBackendOptionsMap option_map;
  if (!options.empty()) {
    option_map.set_options(kBackendName, Span<BackendOption>(options.data(), options.size()));
  }
  // The inputs first: a bad --input is refused before any NNAPI compilation.
  auto meta = module.method_meta(method);
  if (!meta.ok()) {
    return fail("reading the method's metadata", meta.error());
  }
  std::vector<Step> steps(args.steps.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    if (!prepare_step(*meta, method, args.steps[k], &steps[k])) {
      return 1;
    }
  }
  const auto load_start = std::chrono::steady_clock::now();
  err = module.load_method(method, nullptr, nullptr, &option_map);
  if (err != Error::Ok) {
    return fail(("loading method '" + method + "'").c_str(), err);
  }
  const double load_ms = ms_since(load_start);
  std::vector<double> latencies;
  const int runs = args.warmup + args.iters;
  for (int k = 0; k < runs; ++k) {
    double ms = 0;
    for (size_t s = 0; s < steps.size(); ++s) {
      const auto start = std::chrono::steady_clock::now();
      auto result = module.execute(method, steps[s].inputs);
      if (!result.ok()) {
        // NotSupported: what ExecuTorch's refusal to resize an input answers.
        if (result.error() == Error::NotSupported && explain_refused_sizes(*meta, steps[s].tensors)) {
          return 1;
        }
        return fail(("running method '" + method + "'").c_str(), result.error());
      }
      ms += ms_since(start);
      if (k == runs - 1 && !args.output_dir.empty() &&
          !write_step(args.output_dir, s, steps.size(), *result)) {
        return 1;
      }
    }
    if (k >= args.warmup) {
      latencies.push_back(ms);
    }
  }
  uint64_t compile_ns = 0;
  uint32_t compilations = 0;
  executorch_nnapi_compilation_stats(&compile_ns, &compilations);
  std::printf("method: %s\nload: %.3f ms\nNNAPI compilation: %.3f ms (%u compilations)\n"
              "latency over %d iterations (after %d warmup): min %.3f ms, median %.3f ms, "
              "max %.3f ms\n",
              method.c_str(), load_ms, compile_ns / 1e6, compilations, args.iters, args.warmup,
              *std::min_element(latencies.begin(), latencies.end()), median(latencies),
              *std::max_element(latencies.begin(), latencies.end()));
  if (!args.etdump.empty() && !write_etdump(args, tracer, debug_buffer)) {
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (argc < 2 || !parse_args(argc, argv, &args)) {
    usage(argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
#ifndef __ANDROID__
  use_host_shim();
#endif
  return run(args);
}
