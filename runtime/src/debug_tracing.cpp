#include "debug_tracing.h"

#include <cstring>
#include <string>

#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>

#include "error_log.h"
#include "nnapi_c_api.h"

namespace executorch_nnapi {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EventTracer;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::kUnsetDelegateDebugIntId;

namespace {

et_timestamp_t ns_to_ticks(uint64_t ns) {
  const et_tick_ratio_t ratio = et_pal_ticks_to_ns_multiplier();
  return ratio.numerator == 0 ? ns : ns * ratio.denominator / ratio.numerator;
}

// One element of an NNAPI operand as float (8-bit codes dequantized).
bool element_as_float(int32_t type, const uint8_t* data, size_t i, float scale,
                      int32_t zero_point, float* out) {
  switch (type) {
    case ANEURALNETWORKS_TENSOR_FLOAT32: {
      std::memcpy(out, data + 4 * i, 4);
      return true;
    }
    case ANEURALNETWORKS_TENSOR_FLOAT16: {
      uint16_t bits;
      std::memcpy(&bits, data + 2 * i, 2);
      *out = executorch::runtime::etensor::internal::fp16_ieee_to_fp32_value(bits);
      return true;
    }
    case ANEURALNETWORKS_TENSOR_INT32: {
      int32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      *out = static_cast<float>(v);
      return true;
    }
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM:
      *out = scale * (static_cast<int32_t>(data[i]) - zero_point);
      return true;
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED:
      *out = scale * (static_cast<int32_t>(static_cast<int8_t>(data[i])) -
                      zero_point);
      return true;
    case ANEURALNETWORKS_TENSOR_BOOL8:
      *out = data[i] != 0 ? 1.0f : 0.0f;
      return true;
    default:
      return false;
  }
}

// Logs one operand's value (NNAPI dims `dims`, NNAPI dim i being dimension
// order[i] of the value) as a float tensor in PyTorch's order.
void log_value(EventTracer* tracer, const blob::Operand* operand,
               const std::vector<uint32_t>& dims,
               const flatbuffers::Vector<uint8_t>* order, const uint8_t* data,
               uint32_t debug_id) {
  const size_t rank = dims.size();
  std::vector<size_t> perm(rank);
  const bool use_order = order != nullptr && order->size() == rank;
  for (size_t i = 0; i < rank; ++i) {
    perm[i] = use_order ? order->Get(i) : i;
  }
  std::vector<executorch::aten::SizesType> sizes(rank);
  for (size_t i = 0; i < rank; ++i) {
    sizes[perm[i]] = static_cast<executorch::aten::SizesType>(dims[i]);
  }
  std::vector<size_t> logical_strides(rank, 1);
  size_t numel = 1;
  for (size_t d = rank; d-- > 0;) {
    logical_strides[d] = numel;
    numel *= static_cast<size_t>(sizes[d]);
  }
  std::vector<float> values(numel > 0 ? numel : 1);
  std::vector<size_t> coord(rank, 0);
  for (size_t p = 0; p < numel; ++p) {
    size_t offset = 0;
    for (size_t i = 0; i < rank; ++i) {
      offset += coord[i] * logical_strides[perm[i]];
    }
    if (!element_as_float(operand->type(), data, p, operand->scale(),
                          operand->zero_point(), &values[offset])) {
      return;  // a type the debugger does not compare (e.g. 16-bit codes)
    }
    for (size_t i = rank; i-- > 0;) {  // next physical coordinate
      if (++coord[i] < dims[i]) {
        break;
      }
      coord[i] = 0;
    }
  }
  std::vector<executorch::aten::DimOrderType> dim_order(rank);
  std::vector<executorch::aten::StridesType> strides(rank);
  for (size_t d = 0; d < rank; ++d) {
    dim_order[d] = static_cast<executorch::aten::DimOrderType>(d);
    strides[d] = static_cast<executorch::aten::StridesType>(logical_strides[d]);
  }
  executorch::aten::TensorImpl impl(ScalarType::Float,
                                    static_cast<ssize_t>(rank), sizes.data(),
                                    values.data(), dim_order.data(),
                                    strides.data());
  executorch::runtime::event_tracer_log_output_delegate<Tensor>(
      tracer, nullptr, debug_id, Tensor(&impl));
}

}  // namespace

bool wants_intermediates(EventTracer* tracer) {
  return tracer != nullptr &&
         tracer->event_tracer_debug_level() >=
             EventTracerDebugLogLevel::kIntermediateOutputs;
}

std::vector<uint32_t> debug_output_operands(const LoadedBlob& blob) {
  const blob::Blob* root = blob.root();
  std::vector<bool> taken(blob.operands().size(), false);
  if (root->model_outputs() != nullptr) {
    for (uint32_t o : *root->model_outputs()) {
      taken[o] = true;
    }
  }
  std::vector<uint32_t> extra;
  if (root->operations() == nullptr) {
    return extra;
  }
  for (const blob::Operation* op : *root->operations()) {
    if (!op->debug_logged() || op->outputs() == nullptr ||
        op->outputs()->size() == 0) {
      continue;
    }
    const uint32_t out = op->outputs()->Get(0);
    if (!taken[out]) {
      taken[out] = true;
      extra.push_back(out);
    }
  }
  return extra;
}

void log_named_event(EventTracer* tracer, const char* name,
                     et_timestamp_t start, et_timestamp_t end) {
  executorch::runtime::event_tracer_log_profiling_delegate(
      tracer, name, kUnsetDelegateDebugIntId, start, end);
}

void log_operation_times(EventTracer* tracer, const LoadedBlob& blob,
                         et_timestamp_t start, const ExecutionProbe& probe) {
  if (probe.on_hardware_ns != UINT64_MAX) {
    log_named_event(tracer, "NNAPI duration on hardware", start,
                    start + ns_to_ticks(probe.on_hardware_ns));
  }
  if (probe.in_driver_ns != UINT64_MAX) {
    log_named_event(tracer, "NNAPI duration in driver", start,
                    start + ns_to_ticks(probe.in_driver_ns));
  }
  const size_t count = blob.root()->operations() != nullptr
                           ? blob.root()->operations()->size()
                           : 0;
  if (probe.operation_ns.size() != count) {
    return;  // a device: NNAPI does not time single operations
  }
  // The host driver runs the operations one after another in index order.
  et_timestamp_t at = start;
  for (size_t k = 0; k < count; ++k) {
    const et_timestamp_t end = at + ns_to_ticks(probe.operation_ns[k]);
    executorch::runtime::event_tracer_log_profiling_delegate(
        tracer, nullptr, static_cast<uint32_t>(k), at, end);
    at = end;
  }
}

Error log_intermediates(EventTracer* tracer, const LoadedBlob& blob,
                        CompiledModel* variant,
                        const std::vector<const void*>& inputs,
                        const DelegateState* state) {
  // The variant's own outputs go to scratch: the delegate's outputs were
  // written by the ordinary execution.
  const size_t num_outputs = blob.outputs().size();
  std::vector<std::vector<uint8_t>> scratch(num_outputs);
  std::vector<void*> outputs(num_outputs, nullptr);
  for (size_t a = 0; a < num_outputs; ++a) {
    if (blob.outputs()[a].is_tensor) {
      scratch[a].resize(variant->output_bytes(a) > 0 ? variant->output_bytes(a) : 1);
      outputs[a] = scratch[a].data();
    }
  }
  ExecutionProbe probe;
  std::vector<std::vector<uint8_t>> extra(variant->extra_outputs().size());
  for (size_t k = 0; k < extra.size(); ++k) {
    const size_t bytes = variant->extra_output_bytes()[k];
    extra[k].resize(bytes > 0 ? bytes : 1);
    probe.extra_buffers.push_back(extra[k].data());
  }
  // The state is bound as for the execution being replayed, not yet
  // committed: its value before it, and its new value written again.
  Error err = variant->execute(blob, inputs, outputs, state, &probe);
  if (err != Error::Ok) {
    return err;
  }
  const blob::Blob* root = blob.root();
  for (uint32_t k = 0; k < root->operations()->size(); ++k) {
    const blob::Operation* op = root->operations()->Get(k);
    if (!op->debug_logged() || op->outputs() == nullptr ||
        op->outputs()->size() == 0) {
      continue;
    }
    const uint32_t operand = op->outputs()->Get(0);
    const uint8_t* data = nullptr;
    const std::vector<uint32_t>* dims = nullptr;
    for (size_t e = 0; e < variant->extra_outputs().size() && data == nullptr; ++e) {
      if (variant->extra_outputs()[e] == operand) {
        data = extra[e].data();
        dims = &variant->extra_output_dims()[e];
      }
    }
    for (size_t a = 0; a < num_outputs && data == nullptr; ++a) {
      if (blob.outputs()[a].is_tensor && blob.outputs()[a].operand == operand) {
        data = scratch[a].data();
        dims = &variant->output_dims(a);
      }
    }
    if (data != nullptr) {
      log_value(tracer, root->operands()->Get(operand), *dims,
                op->debug_value_order(), data, k);
    }
  }
  return Error::Ok;
}

}  // namespace executorch_nnapi
