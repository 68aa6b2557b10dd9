#include "runtime_options.h"

#include <cstring>

#include "error_log.h"

namespace executorch_nnapi {

using executorch::runtime::ArrayRef;
using executorch::runtime::BackendOption;
using executorch::runtime::Error;
using executorch::runtime::Span;
namespace et = ::executorch::ET_RUNTIME_NAMESPACE;

namespace {

/// An option value from either source, before it is checked against its row.
struct Value {
  enum class Type { Bool, Int, String } type = Type::Int;
  bool b = false;
  int64_t i = 0;
  std::string s;
};

struct Name {
  const char* name;
  int32_t code;
};

const Name kPreferences[] = {
    {"low_power", ANEURALNETWORKS_PREFER_LOW_POWER},
    {"fast_single_answer", ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER},
    {"sustained_speed", ANEURALNETWORKS_PREFER_SUSTAINED_SPEED}};
const Name kPriorities[] = {{"low", ANEURALNETWORKS_PRIORITY_LOW},
                            {"medium", ANEURALNETWORKS_PRIORITY_MEDIUM},
                            {"high", ANEURALNETWORKS_PRIORITY_HIGH}};
const Name kDeviceTypes[] = {{"other", ANEURALNETWORKS_DEVICE_OTHER},
                             {"cpu", ANEURALNETWORKS_DEVICE_CPU},
                             {"gpu", ANEURALNETWORKS_DEVICE_GPU},
                             {"accelerator", ANEURALNETWORKS_DEVICE_ACCELERATOR}};

// An enum option accepts its code (an int) or its name (a string).
template <size_t N>
bool to_enum(const Value& v, const Name (&names)[N], int32_t* out) {
  for (const Name& n : names) {
    if ((v.type == Value::Type::Int && v.i == n.code) ||
        (v.type == Value::Type::String && v.s == n.name)) {
      *out = n.code;
      return true;
    }
  }
  return false;
}

bool to_int32(const Value& v, int64_t min, int32_t* out) {
  if (v.type != Value::Type::Int || v.i < min || v.i > INT32_MAX) {
    return false;
  }
  *out = static_cast<int32_t>(v.i);
  return true;
}

bool to_bool(const Value& v, bool* out) {
  if (v.type == Value::Type::Bool) {
    *out = v.b;
    return true;
  }
  if (v.type == Value::Type::Int && (v.i == 0 || v.i == 1)) {
    *out = v.i == 1;
    return true;
  }
  return false;
}

bool to_string(const Value& v, std::string* out) {
  if (v.type != Value::Type::String) {
    return false;
  }
  *out = v.s;
  return true;
}

/// How a row's compile-spec bytes are laid out.
enum class Encoding { Int32, Bool, Utf8 };

struct Row {
  RuntimeOptionInfo info;
  Encoding encoding;
  /// Stores a checked value; false when the value is not acceptable.
  bool (*apply)(const Value&, RuntimeOptions*);
  /// Whether the option differs from its default (for the level check).
  bool (*is_set)(const RuntimeOptions&);
  /// Back to the default (the option is skipped).
  void (*reset)(RuntimeOptions*);
};

const Row kRows[] = {
    {{"max_cached_shapes", "int >= 1", ANEURALNETWORKS_FEATURE_LEVEL_1,
      "(none: compiled models kept per delegate for dynamic shapes)"},
     Encoding::Int32,
     [](const Value& v, RuntimeOptions* o) { return to_int32(v, 1, &o->max_cached_shapes); },
     [](const RuntimeOptions&) { return false; }, [](RuntimeOptions*) {}},
    {{"execution_preference", "low_power|fast_single_answer|sustained_speed",
      ANEURALNETWORKS_FEATURE_LEVEL_1, "ANeuralNetworksCompilation_setPreference"},
     Encoding::Int32,
     [](const Value& v, RuntimeOptions* o) { return to_enum(v, kPreferences, &o->execution_preference); },
     [](const RuntimeOptions&) { return false; }, [](RuntimeOptions*) {}},
    {{"priority", "low|medium|high", ANEURALNETWORKS_FEATURE_LEVEL_4,
      "ANeuralNetworksCompilation_setPriority"},
     Encoding::Int32,
     [](const Value& v, RuntimeOptions* o) { return to_enum(v, kPriorities, &o->priority); },
     [](const RuntimeOptions& o) { return o.priority != 0; },
     [](RuntimeOptions* o) { o->priority = 0; }},
    {{"relax_fp32_to_fp16", "bool", ANEURALNETWORKS_FEATURE_LEVEL_2,
      "ANeuralNetworksModel_relaxComputationFloat32toFloat16"},
     Encoding::Bool,
     [](const Value& v, RuntimeOptions* o) {
       bool b = false;
       if (!to_bool(v, &b)) return false;
       o->relax_fp32_to_fp16 = b ? 1 : 0;
       return true;
     },
     [](const RuntimeOptions& o) { return o.relax_fp32_to_fp16 == 1; },
     [](RuntimeOptions* o) { o->relax_fp32_to_fp16 = 0; }},
    {{"accelerator_name", "string", ANEURALNETWORKS_FEATURE_LEVEL_3,
      "ANeuralNetworks_getDeviceCount/getDevice, ANeuralNetworksDevice_getName, "
      "ANeuralNetworksCompilation_createForDevices"},
     Encoding::Utf8,
     [](const Value& v, RuntimeOptions* o) { return to_string(v, &o->accelerator_name); },
     [](const RuntimeOptions& o) { return !o.accelerator_name.empty(); },
     [](RuntimeOptions* o) { o->accelerator_name.clear(); }},
    {{"accelerator_type", "cpu|gpu|accelerator|other", ANEURALNETWORKS_FEATURE_LEVEL_3,
      "ANeuralNetworksDevice_getType, ANeuralNetworksCompilation_createForDevices"},
     Encoding::Utf8,
     [](const Value& v, RuntimeOptions* o) {
       int32_t code = 0;
       if (!to_enum(v, kDeviceTypes, &code)) return false;
       o->accelerator_type = v.s;
       return true;
     },
     [](const RuntimeOptions& o) { return !o.accelerator_type.empty(); },
     [](RuntimeOptions* o) { o->accelerator_type.clear(); }},
    {{"disallow_nnapi_cpu", "bool", ANEURALNETWORKS_FEATURE_LEVEL_3,
      "ANeuralNetworksCompilation_createForDevices (every device but nnapi-reference)"},
     Encoding::Bool,
     [](const Value& v, RuntimeOptions* o) { return to_bool(v, &o->disallow_nnapi_cpu); },
     [](const RuntimeOptions& o) { return o.disallow_nnapi_cpu; },
     [](RuntimeOptions* o) { o->disallow_nnapi_cpu = false; }},
    {{"cache_dir", "string", ANEURALNETWORKS_FEATURE_LEVEL_3,
      "ANeuralNetworksCompilation_setCaching (token: digest of the blob, its "
      "constants and the input sizes)"},
     Encoding::Utf8,
     [](const Value& v, RuntimeOptions* o) { return to_string(v, &o->cache_dir); },
     [](const RuntimeOptions& o) { return !o.cache_dir.empty(); },
     [](RuntimeOptions* o) { o->cache_dir.clear(); }},
    {{"compilation_timeout_ms", "int >= 0", ANEURALNETWORKS_FEATURE_LEVEL_4,
      "ANeuralNetworksCompilation_setTimeout (one device selected)"},
     Encoding::Int32,
     [](const Value& v, RuntimeOptions* o) { return to_int32(v, 0, &o->compilation_timeout_ms); },
     [](const RuntimeOptions& o) { return o.compilation_timeout_ms != 0; },
     [](RuntimeOptions* o) { o->compilation_timeout_ms = 0; }},
    {{"execution_timeout_ms", "int >= 0", ANEURALNETWORKS_FEATURE_LEVEL_4,
      "ANeuralNetworksExecution_setTimeout (one device selected)"},
     Encoding::Int32,
     [](const Value& v, RuntimeOptions* o) { return to_int32(v, 0, &o->execution_timeout_ms); },
     [](const RuntimeOptions& o) { return o.execution_timeout_ms != 0; },
     [](RuntimeOptions* o) { o->execution_timeout_ms = 0; }},
    {{"loop_timeout_ms", "int >= 0", ANEURALNETWORKS_FEATURE_LEVEL_4,
      "ANeuralNetworksExecution_setLoopTimeout (WHILE loops)"},
     Encoding::Int32,
     [](const Value& v, RuntimeOptions* o) { return to_int32(v, 0, &o->loop_timeout_ms); },
     [](const RuntimeOptions& o) { return o.loop_timeout_ms != 0; },
     [](RuntimeOptions* o) { o->loop_timeout_ms = 0; }},
    {{"use_burst", "bool", ANEURALNETWORKS_FEATURE_LEVEL_3,
      "ANeuralNetworksBurst_create, ANeuralNetworksExecution_burstCompute"},
     Encoding::Bool,
     [](const Value& v, RuntimeOptions* o) { return to_bool(v, &o->use_burst); },
     [](const RuntimeOptions& o) { return o.use_burst; },
     [](RuntimeOptions* o) { o->use_burst = false; }},
    {{"measure_timing", "bool", ANEURALNETWORKS_FEATURE_LEVEL_3,
      "ANeuralNetworksExecution_setMeasureTiming / getDuration while an "
      "ETDump is recorded (one device selected)"},
     Encoding::Bool,
     [](const Value& v, RuntimeOptions* o) { return to_bool(v, &o->measure_timing); },
     [](const RuntimeOptions& o) { return o.measure_timing; },
     [](RuntimeOptions* o) { o->measure_timing = false; }},
};

const Row* find_row(const char* key) {
  for (const Row& row : kRows) {
    if (key != nullptr && std::strcmp(row.info.key, key) == 0) {
      return &row;
    }
  }
  return nullptr;
}

bool decode_compile_spec(const Row& row, const et::CompileSpec& spec, Value* out) {
  const uint8_t* b = static_cast<const uint8_t*>(spec.value.buffer);
  const size_t n = spec.value.nbytes;
  if (b == nullptr && n > 0) {
    return false;
  }
  switch (row.encoding) {
    case Encoding::Int32:
      if (n != 4) return false;
      out->type = Value::Type::Int;
      out->i = static_cast<int32_t>(
          static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
          (static_cast<uint32_t>(b[2]) << 16) | (static_cast<uint32_t>(b[3]) << 24));
      return true;
    case Encoding::Bool:
      if (n != 1) return false;
      out->type = Value::Type::Bool;
      out->b = b[0] != 0;
      return true;
    case Encoding::Utf8:
      out->type = Value::Type::String;
      out->s.assign(reinterpret_cast<const char*>(b), n);
      return true;
  }
  return false;
}

Value from_backend_option(const BackendOption& option) {
  Value v;
  if (const bool* b = std::get_if<bool>(&option.value)) {
    v.type = Value::Type::Bool;
    v.b = *b;
  } else if (const int* i = std::get_if<int>(&option.value)) {
    v.type = Value::Type::Int;
    v.i = *i;
  } else if (const auto* s = std::get_if<
                 std::array<char, executorch::runtime::kMaxOptionValueLength>>(
                 &option.value)) {
    v.type = Value::Type::String;
    v.s.assign(s->data(), strnlen(s->data(), s->size()));
  }
  return v;
}

std::string known_keys() {
  std::string out;
  for (const Row& row : kRows) {
    out += (out.empty() ? "" : ", ") + std::string(row.info.key);
  }
  return out;
}

}  // namespace

const std::vector<RuntimeOptionInfo>& runtime_option_table() {
  static const std::vector<RuntimeOptionInfo> table = [] {
    std::vector<RuntimeOptionInfo> rows;
    for (const Row& row : kRows) {
      rows.push_back(row.info);
    }
    return rows;
  }();
  return table;
}

Error parse_runtime_options(ArrayRef<et::CompileSpec> compile_specs,
                            Span<const BackendOption> load_time_options,
                            RuntimeOptions* out) {
  *out = RuntimeOptions();
  for (const et::CompileSpec& spec : compile_specs) {
    const Row* row = find_row(spec.key);
    if (row == nullptr) {
      continue;  // A lowering-only spec (feature_level, symbol_ranges, ...).
    }
    Value v;
    if (!decode_compile_spec(*row, spec, &v) || !row->apply(v, out)) {
      static const char* const kEncodings[] = {"a 4-byte little-endian int32",
                                               "a 1-byte bool", "UTF-8 text"};
      NNAPI_LOG_ERROR("compile spec '%s' must be %s (%s), got %zu bytes: "
                      "re-export the model with NnapiPartitioner",
                      row->info.key, kEncodings[static_cast<int>(row->encoding)],
                      row->info.value_kind, spec.value.nbytes);
      return Error::InvalidArgument;
    }
  }
  for (const BackendOption& option : load_time_options) {
    const Row* row = find_row(option.key);
    if (row == nullptr) {
      NNAPI_LOG_ERROR("unknown NnapiBackend option '%s'; the options are: %s",
                      option.key, known_keys().c_str());
      return Error::InvalidArgument;
    }
    const Value v = from_backend_option(option);
    if (!row->apply(v, out)) {
      NNAPI_LOG_ERROR("NnapiBackend option '%s' has an invalid value%s%s; it "
                      "must be %s",
                      row->info.key, v.type == Value::Type::String ? " " : "",
                      v.type == Value::Type::String ? v.s.c_str() : "",
                      row->info.value_kind);
      return Error::InvalidArgument;
    }
  }
  return Error::Ok;
}

void drop_options_above_level(int64_t feature_level, RuntimeOptions* options) {
  for (const Row& row : kRows) {
    if (row.is_set(*options) && row.info.feature_level > feature_level) {
      NNAPI_LOG_WARNING("option '%s' skipped: it needs NNAPI feature level %s "
                        "(%s), and this NNAPI is at %s",
                        row.info.key,
                        nnapi_feature_level_name(row.info.feature_level).c_str(),
                        row.info.nnapi_call,
                        nnapi_feature_level_name(feature_level).c_str());
      row.reset(options);
    }
  }
}

Digest::Digest() {
  // FNV-1a's offset basis, and three more from the same generator.
  lanes_[0] = 0xcbf29ce484222325ULL;
  for (int k = 1; k < 4; ++k) {
    lanes_[k] = (lanes_[k - 1] ^ static_cast<uint64_t>(k)) * 0x100000001b3ULL;
  }
}

void Digest::update(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) {
    for (int k = 0; k < 4; ++k) {
      // Each lane sees the byte mixed with its own index, so lanes differ
      // beyond their starting points.
      lanes_[k] = (lanes_[k] ^ static_cast<uint8_t>(p[i] + 31 * k)) *
                  0x100000001b3ULL;
    }
  }
}

void Digest::finish(uint8_t out[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN]) const {
  for (int k = 0; k < 4; ++k) {
    for (int b = 0; b < 8; ++b) {
      out[8 * k + b] = static_cast<uint8_t>(lanes_[k] >> (8 * b));
    }
  }
}

void cache_token(const Digest& model, const std::vector<int64_t>& sizes,
                 uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN]) {
  Digest d = model;
  for (int64_t v : sizes) {
    uint8_t le[8];
    for (int b = 0; b < 8; ++b) {
      le[b] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * b));
    }
    d.update(le, sizeof(le));
  }
  d.finish(token);
}

}  // namespace executorch_nnapi
