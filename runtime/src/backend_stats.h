// What the backend counts for tools and tests (executorch_nnapi_backend.h's
// *_stats functions): compilations, what executions moved, and how constants
// reached NNAPI. Process-wide, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch_nnapi {

/// One Compilation_finish that took `ns` nanoseconds.
void record_compilation(uint64_t ns);

/// One execution: bytes of tensors handed to NNAPI by pointer, bytes of
/// run-time values (RUN_TIME_EXPRESSIONS, also by pointer), bytes the backend
/// copied itself, and bytes of state bound as NNAPI memory.
void record_execution(uint64_t pointer_bytes, uint64_t run_time_bytes,
                      uint64_t staged_bytes, uint64_t memory_bytes);

/// A constant longer than NNAPI's immediate limit given to a model being
/// built, from memory or by pointer.
void record_constant(bool from_memory, size_t bytes);

}  // namespace executorch_nnapi
