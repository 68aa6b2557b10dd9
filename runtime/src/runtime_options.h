// NNAPI's runtime knobs (docs/runtime.md, "Runtime options"): one table that names, for
// every option, its CompileSpec key (set at lowering by NnapiPartitioner), its
// load-time ExecuTorch backend-option key (set by the app or the runner; the
// load-time value wins), the NNAPI feature level it needs and the NNAPI call
// it makes. The same table drives parsing, the "skipped" log lines and the
// table of docs/runtime.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/error.h>

#include "nnapi_api.h"

namespace executorch_nnapi {

/// The option values one delegate compiles and runs with. "Unset" values
/// leave NNAPI's own default in place (no call is made).
struct RuntimeOptions {
  int32_t max_cached_shapes = 8;
  /// ANEURALNETWORKS_PREFER_*; FAST_SINGLE_ANSWER is what NNAPI does by default.
  int32_t execution_preference = ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER;
  /// ANEURALNETWORKS_PRIORITY_*; 0 = not set.
  int32_t priority = 0;
  /// -1: as the blob says (NnapiPartitioner(relax_fp32_to_fp16=...)); 0/1: override.
  int32_t relax_fp32_to_fp16 = -1;
  /// Compile only for the device with this name ("" = let NNAPI choose).
  std::string accelerator_name;
  /// Compile only for devices of this type: "cpu", "gpu", "accelerator", "other".
  std::string accelerator_type;
  /// Compile for every device except NNAPI's own CPU implementation.
  bool disallow_nnapi_cpu = false;
  /// Directory for NNAPI's compilation cache ("" = no caching).
  std::string cache_dir;
  /// Milliseconds; 0 = no timeout.
  int32_t compilation_timeout_ms = 0;
  int32_t execution_timeout_ms = 0;
  /// Milliseconds a WHILE loop may run; 0 = NNAPI's default (2 s).
  int32_t loop_timeout_ms = 0;
  /// Run repeated executions through one ANeuralNetworksBurst.
  bool use_burst = false;
  /// While an ETDump is recorded: NNAPI's own duration of each execution.
  bool measure_timing = false;

  /// True when the compilation must be created for an explicit device list.
  bool selects_devices() const {
    return !accelerator_name.empty() || !accelerator_type.empty() ||
           disallow_nnapi_cpu;
  }
};

/// One row of the options table (see runtime_options.cpp for the rows).
struct RuntimeOptionInfo {
  /// The CompileSpec key and the load-time backend-option key (the same
  /// string: one name for one knob).
  const char* key;
  /// "int", "bool", "string" or an enum's names ("low_power|...").
  const char* value_kind;
  /// Lowest NNAPI feature level that has the call; older levels skip the
  /// option with a log line.
  int64_t feature_level;
  /// The NNAPI call(s) the option makes.
  const char* nnapi_call;
};

/// Every option, in table order.
const std::vector<RuntimeOptionInfo>& runtime_option_table();

/// Reads the compile specs (lowering time) and then the load-time backend
/// options (which win) into *out. Unknown compile-spec keys are ignored (a
/// newer exporter may add hints); an unknown load-time key or a malformed
/// value is an InvalidArgument with a logged message naming the key.
executorch::runtime::Error parse_runtime_options(
    executorch::runtime::ArrayRef<executorch::ET_RUNTIME_NAMESPACE::CompileSpec>
        compile_specs,
    executorch::runtime::Span<const executorch::runtime::BackendOption>
        load_time_options,
    RuntimeOptions* out);

/// Logs, once per option, each set option that NNAPI at `feature_level`
/// lacks, and resets it to its default so that no call is attempted.
void drop_options_above_level(int64_t feature_level, RuntimeOptions* options);

/// A 256-bit non-cryptographic digest (four FNV-1a-64 lanes with distinct
/// offset bases). It names compiled models in NNAPI's cache: a collision
/// would need crafted inputs, not an accidental edit of a model.
class Digest {
 public:
  Digest();
  void update(const void* data, size_t size);
  void finish(uint8_t out[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN]) const;

 private:
  uint64_t lanes_[4];
};

/// The NNAPI cache token of one compiled shape: `model` (a digest of the
/// blob and its constants) extended with the evaluated sizes, so each shape
/// has its own cache entry and a changed model never reuses a stale one.
void cache_token(const Digest& model, const std::vector<int64_t>& sizes,
                 uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN]);

}  // namespace executorch_nnapi
