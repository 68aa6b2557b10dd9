// What the backend logs through ExecuTorch's event tracer (ETDump): compile
// and execute events per delegate, one event per NNAPI operation (when the
// NNAPI library can say how long each took: the host shim), NNAPI's own
// execution timing (measure_timing), and at the intermediate-output debug
// level every operation's output, read from a debug variant of the model
// whose outputs are the intermediates. See docs/debugging.md.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/platform/platform.h>

#include "blob_reader.h"
#include "nnapi_model.h"

namespace executorch_nnapi {

/// The event tracer's current time, in its ticks.
inline et_timestamp_t tracer_now() {
  return et_pal_current_ticks();
}

/// Whether `tracer` wants every operation's output.
bool wants_intermediates(executorch::runtime::EventTracer* tracer);

/// The operands a debug variant adds as model outputs: output 0 of every
/// operation the blob marks debug_logged that is not already a model output.
std::vector<uint32_t> debug_output_operands(const LoadedBlob& blob);

/// Logs a named delegate event (compile, execute, NNAPI's timing) from
/// `start` to `end` ticks.
void log_named_event(executorch::runtime::EventTracer* tracer,
                     const char* name, et_timestamp_t start,
                     et_timestamp_t end);

/// Logs one event per NNAPI operation from the probe's per-operation
/// durations (laid end to end from `start`, in execution order), and NNAPI's
/// own execution timing when it was measured.
void log_operation_times(executorch::runtime::EventTracer* tracer,
                         const LoadedBlob& blob, et_timestamp_t start,
                         const ExecutionProbe& probe);

/// Runs `variant` (a debug variant: the blob's model plus
/// debug_output_operands as extra outputs) on `inputs` and logs the output
/// of every debug_logged operation, in PyTorch's dim order, as float
/// (8-bit values dequantized), under the operation's delegate debug id.
executorch::runtime::Error log_intermediates(
    executorch::runtime::EventTracer* tracer, const LoadedBlob& blob,
    CompiledModel* variant, const std::vector<const void*>& inputs,
    const DelegateState* state);

}  // namespace executorch_nnapi
