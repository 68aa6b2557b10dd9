#include "backend_stats.h"

#include <atomic>

#include "executorch_nnapi_backend.h"

namespace executorch_nnapi {
namespace {

std::atomic<uint64_t> g_compilation_ns{0};
std::atomic<uint32_t> g_compilations{0};
std::atomic<uint64_t> g_executions{0};
std::atomic<uint64_t> g_pointer_bytes{0};
std::atomic<uint64_t> g_run_time_bytes{0};
std::atomic<uint64_t> g_staged_bytes{0};
std::atomic<uint64_t> g_memory_bytes{0};
std::atomic<uint64_t> g_constant_memory_bytes{0};
std::atomic<uint64_t> g_constant_pointer_bytes{0};

void store(uint64_t* out, const std::atomic<uint64_t>& counter) {
  if (out != nullptr) {
    *out = counter.load();
  }
}

}  // namespace

void record_compilation(uint64_t ns) {
  g_compilation_ns += ns;
  g_compilations += 1;
}

void record_execution(uint64_t pointer_bytes, uint64_t run_time_bytes,
                      uint64_t staged_bytes, uint64_t memory_bytes) {
  g_executions += 1;
  g_pointer_bytes += pointer_bytes;
  g_run_time_bytes += run_time_bytes;
  g_staged_bytes += staged_bytes;
  g_memory_bytes += memory_bytes;
}

void record_constant(bool from_memory, size_t bytes) {
  (from_memory ? g_constant_memory_bytes : g_constant_pointer_bytes) += bytes;
}

}  // namespace executorch_nnapi

extern "C" void executorch_nnapi_compilation_stats(uint64_t* total_ns,
                                                   uint32_t* count) {
  executorch_nnapi::store(total_ns, executorch_nnapi::g_compilation_ns);
  if (count != nullptr) {
    *count = executorch_nnapi::g_compilations.load();
  }
}

extern "C" void executorch_nnapi_transfer_stats(uint64_t* executions,
                                                uint64_t* pointer_bytes,
                                                uint64_t* run_time_bytes,
                                                uint64_t* staged_bytes,
                                                uint64_t* memory_bytes) {
  executorch_nnapi::store(executions, executorch_nnapi::g_executions);
  executorch_nnapi::store(pointer_bytes, executorch_nnapi::g_pointer_bytes);
  executorch_nnapi::store(run_time_bytes, executorch_nnapi::g_run_time_bytes);
  executorch_nnapi::store(staged_bytes, executorch_nnapi::g_staged_bytes);
  executorch_nnapi::store(memory_bytes, executorch_nnapi::g_memory_bytes);
}

extern "C" void executorch_nnapi_constant_stats(uint64_t* from_memory_bytes,
                                                uint64_t* by_pointer_bytes) {
  executorch_nnapi::store(from_memory_bytes,
                          executorch_nnapi::g_constant_memory_bytes);
  executorch_nnapi::store(by_pointer_bytes,
                          executorch_nnapi::g_constant_pointer_bytes);
}
