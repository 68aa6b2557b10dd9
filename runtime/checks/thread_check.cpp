// nnapi_thread_check: the NNAPI backend called from several threads at once
// (docs/sanitizers.md), through ExecuTorch's Module, as an app (or the
// runner) calls it.
//
//   nnapi_thread_check MANIFEST
//
// The manifest (written by tests/runtime/test_threads.py) has one directive a
// line:
//   iterations N             executions per program (default 200)
//   timeout SECONDS          the concurrent phase must end by then (deadlock)
//   program NAME PTE METHOD [SHARED]   a program and the method its thread runs;
//                            programs with the same SHARED tag use one Module
//                            (two methods of one program on two threads)
//   run FILE:D0,D1,... ...   one execution's inputs (raw little-endian; the
//                            dtype is the method's), for the last program;
//                            execution k uses run k % (number of runs)
//   churn PTE METHOD         a program the churn thread loads, runs once and
//                            frees, over and over, while the others run
//
// First every program runs its executions alone, one program after another,
// on the main thread: the reference. Then, on fresh Modules, each program runs
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

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/runtime.h>

#include "executorch_nnapi_backend.h"

namespace {

using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::Error;
using executorch::runtime::EValue;

struct InputFile {
  std::string path;
  std::vector<int32_t> sizes;
};

struct Program {
  std::string name;
  std::string pte;
  std::string method;
  std::string shared;  // empty: a Module of its own
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

// The inputs of one run as tensors of the method's dtypes (null on error).
bool load_inputs(Module& module, const Program& p, const std::vector<InputFile>& run,
                 std::vector<TensorPtr>* out) {
  auto meta = module.method_meta(p.method);
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
bool execute(Module& module, const Program& p, const std::vector<TensorPtr>& inputs,
             Outputs* out) {
  std::vector<EValue> values;
  for (const TensorPtr& t : inputs) {
    values.emplace_back(*t);
  }
  auto result = module.execute(p.method, values);
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

// The Modules of a phase: one per program, or one per SHARED tag, each with
// its programs' methods loaded.
class Modules {
 public:
  bool load(const std::vector<Program>& programs) {
    for (const Program& p : programs) {
      const std::string key = p.shared.empty() ? "program " + p.name : "shared " + p.shared;
      auto& module = by_key_[key];
      if (module == nullptr) {
        module = std::make_unique<Module>(p.pte, Module::LoadMode::Mmap);
      }
      if (module->load_method(p.method) != Error::Ok) {
        std::fprintf(stderr, "error: %s: loading method '%s' failed: %s\n", p.name.c_str(),
                     p.method.c_str(), executorch_nnapi_last_error());
        return false;
      }
      of_program_.push_back(module.get());
    }
    return true;
  }
  Module& of(size_t program) { return *of_program_[program]; }

 private:
  std::map<std::string, std::unique_ptr<Module>> by_key_;
  std::vector<Module*> of_program_;
};

// One program's executions in order (a KV cache's state follows from them).
struct Worker {
  const Program* program = nullptr;
  Module* module = nullptr;
  std::unique_ptr<Module> own;  // the concurrent phase's, loaded by the worker's thread
  std::vector<std::vector<TensorPtr>> inputs;  // per run
  std::vector<Outputs> reference;              // per execution
  std::atomic<int> done{0};
  std::atomic<int> identical{0};
  std::atomic<bool> failed{false};
};

bool prepare(Worker* w) {
  for (const auto& run : w->program->runs) {
    w->inputs.emplace_back();
    if (!load_inputs(*w->module, *w->program, run, &w->inputs.back())) {
      return false;
    }
  }
  return !w->inputs.empty();
}

void run_worker(Worker* w, int iterations, bool record) {
  for (int k = 0; k < iterations; ++k) {
    Outputs out;
    if (!execute(*w->module, *w->program, w->inputs[k % w->inputs.size()], &out)) {
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
      Module module(p.pte, Module::LoadMode::Mmap);
      auto meta = module.method_meta(p.method);
      if (!meta.ok() || module.load_method(p.method) != Error::Ok) {
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

// The concurrent phase's thread of one program: loads its own Module (unless
// shared), then runs the executions.
void concurrent_worker(Worker* w, int iterations) {
  if (w->module == nullptr) {
    w->own = std::make_unique<Module>(w->program->pte, Module::LoadMode::Mmap);
    if (w->own->load_method(w->program->method) != Error::Ok) {
      std::fprintf(stderr, "error: %s: loading failed on its thread: %s\n", w->program->name.c_str(),
                   executorch_nnapi_last_error());
      w->failed = true;
      return;
    }
    w->module = w->own.get();
  }
  run_worker(w, iterations, false);
}

// Every program alone, in order, on this thread: the reference outputs.
bool run_reference(const Manifest& m, std::vector<std::unique_ptr<Worker>>* workers) {
  Modules modules;
  if (!modules.load(m.programs)) {
    return false;
  }
  for (size_t i = 0; i < m.programs.size(); ++i) {
    auto w = std::make_unique<Worker>();
    w->program = &m.programs[i];
    w->module = &modules.of(i);
    if (!prepare(w.get())) {
      return false;
    }
    run_worker(w.get(), m.iterations, true);
    if (w->failed) {
      return false;
    }
    std::printf("reference: %s: %d executions on one thread\n", w->program->name.c_str(), w->done.load());
    w->module = nullptr;
    w->done = 0;
    workers->push_back(std::move(w));
  }
  return true;
}

// All programs at once, one thread each, plus the churn thread; 3 on timeout.
int run_concurrent(const Manifest& m, std::vector<std::unique_ptr<Worker>>& workers) {
  Modules shared;  // the programs that share a Module are loaded here, once
  std::vector<Program> shared_programs;
  for (const auto& w : workers) {
    if (!w->program->shared.empty()) {
      shared_programs.push_back(*w->program);
    }
  }
  if (!shared.load(shared_programs)) {
    return 1;
  }
  for (size_t i = 0, k = 0; i < workers.size(); ++i) {
    if (!workers[i]->program->shared.empty()) {
      workers[i]->module = &shared.of(k++);
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
      concurrent_worker(w, m.iterations);
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
  for (const auto& w : workers) {
    std::printf("thread %s: %d executions, %d bit-identical to the single-thread run\n",
                w->program->name.c_str(), w->done.load(), w->identical.load());
    ok = ok && !w->failed && w->identical == m.iterations;
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
  // The workers' own Modules go before the shared ones they may outlive.
  const int status = run_concurrent(manifest, workers);
  workers.clear();
  return status;
}
