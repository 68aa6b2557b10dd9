/*
 * The C functions the NNAPI backend library exports besides its ExecuTorch
 * registration, for programs that link it (nnapi_executor_runner, an app's
 * JNI code). Python reaches the same functions through ctypes
 * (executorch_nnapi.runtime.backend_library).
 */
#ifndef EXECUTORCH_NNAPI_BACKEND_H
#define EXECUTORCH_NNAPI_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the NNAPI library to dlopen (default "libneuralnetworks.so"). */
void executorch_nnapi_set_library_path(const char* path);

/* The last error message the backend logged, or "". */
const char* executorch_nnapi_last_error(void);

/* The summed duration and number of ANeuralNetworksCompilation_finish calls
 * of this process (both may be null). */
void executorch_nnapi_compilation_stats(uint64_t* total_ns, uint32_t* count);

/* What the executions of this process moved (each may be null): their number,
 * the bytes of input and output tensors handed to NNAPI by pointer, the bytes
 * of values the runtime computes at every execution (GATHER indices at a
 * position; also by pointer), the bytes the backend copied itself (permuting,
 * narrowing, widening), and the bytes of delegate state bound as NNAPI memory
 * (not copied). */
void executorch_nnapi_transfer_stats(uint64_t* executions, uint64_t* pointer_bytes,
                                     uint64_t* run_time_bytes, uint64_t* staged_bytes,
                                     uint64_t* memory_bytes);

/* The bytes of constants longer than NNAPI's 128-byte immediate limit given
 * to the NNAPI models this process built (each model counts): from NNAPI
 * memory mapping the program's file, and by pointer (which NNAPI copies into
 * shared memory when the model is finished). Either may be null. */
void executorch_nnapi_constant_stats(uint64_t* from_memory_bytes, uint64_t* by_pointer_bytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EXECUTORCH_NNAPI_BACKEND_H */
