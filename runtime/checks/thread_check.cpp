// nnapi_thread_check: the NNAPI backend called from several threads at once
// (docs/sanitizers.md), through ExecuTorch's Module as an app (or the runner)
// calls it, and through Methods of one shared Program.
//
//   nnapi_thread_check MANIFEST
//
// The manifest (written by tests/runtime/test_threads.py) has one directive a
// line:
//   iterations N             executions per program (default 200)
//   timeout SECONDS          the concurrent phase must end by then (deadlock)
//   program NAME PTE METHOD [SHARED]   a program and the method its thread runs
//                            through a Module of its own; programs with the same
//                            SHARED tag load their methods from one Program
//                            object instead (two methods of one program on two
//                            threads: a Module is not thread-safe, a Program is)
//   run FILE:D0,D1,... ...   one execution's inputs (raw little-endian; the
//                            dtype is the method's), for the last program;
//                            execution k uses run k % (number of runs)
//   churn PTE METHOD         a program the churn thread loads, runs once and
//                            frees, over and over, while the others run
//
// First every program runs its executions alone, one program after another,
// on the main thread: the reference. Then, freshly loaded, each program runs
// on a thread of its own, all at once, with the churn thread loading and
// freeing; every output must be bit-identical to the reference's. Prints one
// line per thread and exits 0 when everything matched, 1 on a mismatch or
// failure, 3 when the concurrent phase outlives the timeout (a deadlock).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/runtime.h>

#include "executorch_nnapi_backend.h"

namespace {

using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::MethodMeta;
using executorch::runtime::Result;

struct InputFile {
  std::string path;
  std::vector<int32_t> sizes;
};

struct Program {
  std::string name;
  std::string pte;
  std::string method;
  std::string shared;  // empty: a Module of its own; else the tag of a shared Program
  std::vector<std::vector<InputFile>> runs;
};

struct Manifest {
  int iterations = 200;
  int timeout_seconds = 600;
  std::vector<Program> programs;
  std::vector<Program> churn;  // name unused; one input set of ones each
};

// One execution's outputs: each tensor's sizes and bytes.
struct Outputs {
  std::vector<std::vector<int32_t>> sizes;
  std::vector<std::vector<uint8_t>> bytes;
  bool operator==(const Outputs& o) const { return sizes == o.sizes && bytes == o.bytes; }
};

bool parse_input(const std::string& text, InputFile* out) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return false;
  }
  out->path = text.substr(0, colon);
  std::stringstream dims(text.substr(colon + 1));
  std::string d;
  while (std::getline(dims, d, ',')) {
    out->sizes.push_back(std::atoi(d.c_str()));
  }
  return true;
}

bool read_manifest(const char* path, Manifest* m) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream words(line);
    std::string directive;
    words >> directive;
    if (directive == "iterations") {
      words >> m->iterations;
    } else if (directive == "timeout") {
      words >> m->timeout_seconds;
    } else if (directive == "program" || directive == "churn") {
      Program p;
      if (directive == "program") {
        words >> p.name;
      }
      words >> p.pte >> p.method >> p.shared;
      (directive == "program" ? m->programs : m->churn).push_back(p);
    } else if (directive == "run" && !m->programs.empty()) {
      std::vector<InputFile> run;
      std::string text;
      while (words >> text) {
        run.emplace_back();
        if (!parse_input(text, &run.back())) {
          std::fprintf(stderr, "error: bad input '%s' in %s\n", text.c_str(), path);
          return false;
        }
      }
      m->programs.back().runs.push_back(run);
    } else if (!directive.empty() && directive[0] != '#') {
      std::fprintf(stderr, "error: unknown directive '%s' in %s\n", directive.c_str(), path);
      return false;
    }
  }
  return !m->programs.empty();
}

// How a thread runs its method: through a Module of its own, or as one of the
// Methods loaded from a shared Program.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual Result<MethodMeta> meta() = 0;
  virtual Result<std::vector<EValue>> run(const std::vector<EValue>& inputs) = 0;
};

class ModuleExecutor final : public Executor {
 public:
  ModuleExecutor(const std::string& pte, std::string method)
      : module_(pte, Module::LoadMode::Mmap), method_(std::move(method)) {}
  Error load() { return module_.load_method(method_); }
  Result<MethodMeta> meta() override { return module_.method_meta(method_); }
  Result<std::vector<EValue>> run(const std::vector<EValue>& inputs) override {
    return module_.execute(method_, inputs);
  }

 private:
  Module module_;
  std::string method_;
};

// A .pte loaded once; the Methods loaded from it share its Program.
struct SharedProgram {
  std::unique_ptr<executorch::extension::MmapDataLoader> loader;
  std::unique_ptr<executorch::runtime::Program> program;

  bool load(const std::string& pte) {
    auto data = executorch::extension::MmapDataLoader::from(
        pte.c_str(), executorch::extension::MmapDataLoader::MlockConfig::NoMlock);
    if (!data.ok()) {
      return false;
    }
    loader = std::make_unique<executorch::extension::MmapDataLoader>(std::move(data.get()));
    auto loaded = executorch::runtime::Program::load(loader.get());
    if (!loaded.ok()) {
      return false;
    }
    program = std::make_unique<executorch::runtime::Program>(std::move(loaded.get()));
    return true;
  }
};

// One Method of a shared Program, with memory of its own (planned buffers and
// allocators), as ExecuTorch's Module sets up for each method it loads.
class MethodExecutor final : public Executor {
 public:
  MethodExecutor(const executorch::runtime::Program& program, std::string method)
      : program_(program), method_(std::move(method)) {}

  Error load() {
    auto meta = program_.method_meta(method_.c_str());
    if (!meta.ok()) {
      return meta.error();
    }
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      planned_.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
      spans_.emplace_back(planned_.back().data(), planned_.back().size());
    }
    planned_memory_ = std::make_unique<executorch::runtime::HierarchicalAllocator>(
        executorch::runtime::Span<executorch::runtime::Span<uint8_t>>(spans_.data(), spans_.size()));
    memory_ = std::make_unique<executorch::runtime::MemoryManager>(&allocator_, planned_memory_.get(),
                                                                   &temp_allocator_);
    auto method = program_.load_method(method_.c_str(), memory_.get());
    if (!method.ok()) {
      return method.error();
    }
    method_object_ = std::make_unique<executorch::runtime::Method>(std::move(method.get()));
    return Error::Ok;
  }
  Result<MethodMeta> meta() override { return program_.method_meta(method_.c_str()); }
  Result<std::vector<EValue>> run(const std::vector<EValue>& inputs) override {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Error err = method_object_->set_input(inputs[i], i);
      if (err != Error::Ok) {
        return err;
      }
    }
    const Error err = method_object_->execute();
    if (err != Error::Ok) {
      return err;
    }
    std::vector<EValue> outputs;
    for (size_t i = 0; i < method_object_->outputs_size(); ++i) {
      outputs.push_back(method_object_->get_output(i));
    }
    return outputs;
  }

 private:
  const executorch::runtime::Program& program_;
  std::string method_;
  std::vector<std::vector<uint8_t>> planned_;
  std::vector<executorch::runtime::Span<uint8_t>> spans_;
  executorch::extension::MallocMemoryAllocator allocator_;
  executorch::extension::MallocMemoryAllocator temp_allocator_;
  std::unique_ptr<executorch::runtime::HierarchicalAllocator> planned_memory_;
  std::unique_ptr<executorch::runtime::MemoryManager> memory_;
  std::unique_ptr<executorch::runtime::Method> method_object_;
};

// The inputs of one run as tensors of the method's dtypes (null on error).
bool load_inputs(Executor& executor, const Program& p, const std::vector<InputFile>& run,
                 std::vector<TensorPtr>* out) {
  auto meta = executor.meta();
  if (!meta.ok() || meta->num_inputs() != run.size()) {
    std::fprintf(stderr, "error: %s: %zu inputs given, the method takes %zu\n", p.name.c_str(),
                 run.size(), meta.ok() ? meta->num_inputs() : 0);
    return false;
  }
  for (size_t i = 0; i < run.size(); ++i) {
    const auto type = meta->input_tensor_meta(i)->scalar_type();
    size_t numel = 1;
    for (int32_t d : run[i].sizes) {
      numel *= static_cast<size_t>(d);
    }
    std::vector<uint8_t> data(numel * executorch::runtime::elementSize(type));
    std::ifstream f(run[i].path, std::ios::binary);
    f.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!f || f.peek() != EOF) {
      std::fprintf(stderr, "error: %s must hold %zu bytes\n", run[i].path.c_str(), data.size());
      return false;
    }
    out->push_back(executorch::extension::make_tensor_ptr(
        std::vector<executorch::aten::SizesType>(run[i].sizes.begin(), run[i].sizes.end()),
        std::move(data), type));
  }
  return true;
}

// Runs `inputs` through the method; the outputs in *out (false, with the
// backend's reason printed, on failure).
bool execute(Executor& executor, const Program& p, const std::vector<TensorPtr>& inputs,
             Outputs* out) {
  std::vector<EValue> values;
  for (const TensorPtr& t : inputs) {
    values.emplace_back(*t);
  }
  auto result = executor.run(values);
  if (!result.ok()) {
    std::fprintf(stderr, "error: %s: execute failed (0x%x): %s\n", p.name.c_str(),
                 static_cast<unsigned>(result.error()), executorch_nnapi_last_error());
    return false;
  }
  for (const EValue& v : *result) {
    if (!v.isTensor()) {
      continue;
    }
    const auto& t = v.toTensor();
    out->sizes.emplace_back(t.sizes().begin(), t.sizes().end());
    const auto* data = static_cast<const uint8_t*>(t.const_data_ptr());
    out->bytes.emplace_back(data, data + t.nbytes());
  }
  return true;
}

// A loaded method for `p` (null, with the reason printed, on failure):
// through a Module of its own, or from `shared`'s Program when `p` has a tag.
std::unique_ptr<Executor> load_executor(const Program& p, std::map<std::string, SharedProgram>* shared) {
  Error err = Error::Ok;
  std::unique_ptr<Executor> out;
  if (p.shared.empty()) {
    auto module = std::make_unique<ModuleExecutor>(p.pte, p.method);
    err = module->load();
    out = std::move(module);
  } else {
    // find and emplace, not operator[]: threads look programs up at once
    // (emplace only happens before they start).
    auto it = shared->find(p.shared);
    if (it == shared->end()) {
      it = shared->emplace(p.shared, SharedProgram()).first;
    }
    SharedProgram& program = it->second;
    if (program.program == nullptr && !program.load(p.pte)) {
      std::fprintf(stderr, "error: %s: cannot load %s\n", p.name.c_str(), p.pte.c_str());
      return nullptr;
    }
    auto method = std::make_unique<MethodExecutor>(*program.program, p.method);
    err = method->load();
    out = std::move(method);
  }
  if (err != Error::Ok) {
    std::fprintf(stderr, "error: %s: loading method '%s' failed (0x%x): %s\n", p.name.c_str(),
                 p.method.c_str(), static_cast<unsigned>(err), executorch_nnapi_last_error());
    return nullptr;
  }
  return out;
}

// One program's executions in order (a KV cache's state follows from them).
struct Worker {
  const Program* program = nullptr;
  std::unique_ptr<Executor> executor;
  std::vector<std::vector<TensorPtr>> inputs;  // per run
  std::vector<Outputs> reference;              // per execution
  std::atomic<int> done{0};
  std::atomic<int> identical{0};
  std::atomic<bool> failed{false};
};

bool prepare(Worker* w) {
  for (const auto& run : w->program->runs) {
    w->inputs.emplace_back();
    if (!load_inputs(*w->executor, *w->program, run, &w->inputs.back())) {
      return false;
    }
  }
  return !w->inputs.empty();
}

void run_worker(Worker* w, int iterations, bool record) {
  for (int k = 0; k < iterations; ++k) {
    Outputs out;
    if (!execute(*w->executor, *w->program, w->inputs[k % w->inputs.size()], &out)) {
      w->failed = true;
      return;
    }
    if (record) {
      w->reference.push_back(std::move(out));
    } else if (out == w->reference[k]) {
      ++w->identical;
    }
    ++w->done;
  }
}

// Loads, runs once (inputs of ones) and frees each churn program until told
// to stop; counts the cycles.
void run_churn(const std::vector<Program>& churn, const std::atomic<bool>* stop,
               std::atomic<int>* cycles, std::atomic<bool>* failed) {
  while (!*stop) {
    for (const Program& p : churn) {
      ModuleExecutor module(p.pte, p.method);
      auto meta = module.meta();
      if (!meta.ok() || module.load() != Error::Ok) {
        std::fprintf(stderr, "error: churn: loading %s failed\n", p.pte.c_str());
        *failed = true;
        return;
      }
      std::vector<TensorPtr> inputs;
      for (size_t i = 0; i < meta->num_inputs(); ++i) {
        const auto info = meta->input_tensor_meta(i);
        inputs.push_back(executorch::extension::make_tensor_ptr(
            std::vector<executorch::aten::SizesType>(info->sizes().begin(), info->sizes().end()),
            std::vector<uint8_t>(info->nbytes(), 0), info->scalar_type()));
      }
      Outputs out;
      if (!execute(module, p, inputs, &out)) {
        *failed = true;
        return;
      }
      ++*cycles;
    }
  }
}

// Every program alone, in order, on this thread: the reference outputs.
bool run_reference(const Manifest& m, std::vector<std::unique_ptr<Worker>>* workers) {
  std::map<std::string, SharedProgram> shared;
  bool ok = true;
  for (size_t i = 0; ok && i < m.programs.size(); ++i) {
    auto w = std::make_unique<Worker>();
    w->program = &m.programs[i];
    w->executor = load_executor(*w->program, &shared);
    ok = w->executor != nullptr && prepare(w.get());
    if (ok) {
      run_worker(w.get(), m.iterations, true);
      ok = !w->failed;
      std::printf("reference: %s: %d executions on one thread\n", w->program->name.c_str(), w->done.load());
      w->done = 0;
    }
    workers->push_back(std::move(w));
  }
  for (auto& w : *workers) {
    w->executor.reset();  // before the shared Programs they refer to
  }
  return ok;
}

// All programs at once, one thread each (loading its method there), plus the
// churn thread; exits with 3 on timeout.
int run_concurrent(const Manifest& m, std::vector<std::unique_ptr<Worker>>& workers) {
  std::map<std::string, SharedProgram> shared;
  for (const auto& w : workers) {  // loaded here, once; each thread loads its own Method
    if (!w->program->shared.empty() && !shared[w->program->shared].load(w->program->pte)) {
      return 1;
    }
  }
  std::atomic<bool> stop{false}, churn_failed{false};
  std::atomic<int> cycles{0};
  std::thread churn(run_churn, std::cref(m.churn), &stop, &cycles, &churn_failed);
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::condition_variable finished;
  int running = static_cast<int>(workers.size());
  for (auto& w : workers) {
    threads.emplace_back([&, w = w.get()] {
      w->executor = load_executor(*w->program, &shared);  // finds its Program: no insertion now
      if (w->executor == nullptr) {
        w->failed = true;
      } else {
        run_worker(w, m.iterations, false);
      }
      std::lock_guard<std::mutex> lock(mutex);
      --running;
      finished.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mutex);
    if (!finished.wait_for(lock, std::chrono::seconds(m.timeout_seconds), [&] { return running == 0; })) {
      std::printf("timeout: after %d s the threads are still running (a deadlock?):", m.timeout_seconds);
      for (const auto& w : workers) {
        std::printf(" %s %d/%d", w->program->name.c_str(), w->done.load(), m.iterations);
      }
      std::printf("\n");
      std::fflush(stdout);
      std::_Exit(3);
    }
  }
  for (auto& t : threads) {
    t.join();
  }
  stop = true;
  churn.join();
  bool ok = !churn_failed && (m.churn.empty() || cycles > 0);
  for (auto& w : workers) {
    std::printf("thread %s: %d executions, %d bit-identical to the single-thread run\n",
                w->program->name.c_str(), w->done.load(), w->identical.load());
    ok = ok && !w->failed && w->identical == m.iterations;
    w->executor.reset();  // before the shared Programs
  }
  std::printf("churn thread: %d load / run / free cycles meanwhile\n", cycles.load());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MANIFEST\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  Manifest manifest;
  if (!read_manifest(argv[1], &manifest)) {
    std::fprintf(stderr, "error: %s names no program\n", argv[1]);
    return 2;
  }
  std::vector<std::unique_ptr<Worker>> workers;
  if (!run_reference(manifest, &workers)) {
    return 1;
  }
  return run_concurrent(manifest, workers);
}
