// The forwarded NNAPI functions of executions, bursts and events.
//
// setInput / setOutput only name an argument's buffer; the server computes in buffers of its
// own. So this side remembers each execution's buffers: a computation sends the bytes of its
// inputs, and the outputs come back with the reply of compute / burstCompute, or of
// Event_wait after startCompute, and are copied into the caller's buffers.
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "forwarding_calls.h"

namespace executorch_nnapi {
namespace forwarding {
namespace {

struct Argument {
  const void* input = nullptr;  // setInput's buffer
  void* output = nullptr;       // setOutput's buffer
  size_t length = 0;
};

struct ExecutionBuffers {
  std::map<int32_t, Argument> inputs;   // omitted ones are not here: they have no bytes
  std::map<int32_t, Argument> outputs;
};

struct ExecutionTable {
  std::mutex mutex;
  std::unordered_map<uint64_t, ExecutionBuffers> executions;
  std::unordered_map<uint64_t, uint64_t> event_execution;  // event -> its execution
};

ExecutionTable& table() {
  static auto* executions = new ExecutionTable();
  return *executions;
}

using BufferList = flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<protocol::Buffer>>>;

// The bytes of every input of `execution` as they are now (the computation reads them now).
BufferList input_bytes(flatbuffers::FlatBufferBuilder& fbb, uint64_t execution) {
  std::vector<flatbuffers::Offset<protocol::Buffer>> buffers;
  ExecutionTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto found = t.executions.find(execution);
  if (found != t.executions.end()) {
    for (const auto& [index, argument] : found->second.inputs) {
      auto data = fbb.CreateVector(static_cast<const uint8_t*>(argument.input), argument.length);
      buffers.push_back(protocol::CreateBuffer(fbb, static_cast<uint32_t>(index), data));
    }
  }
  return fbb.CreateVector(buffers);
}

size_t input_size(uint64_t execution) {
  ExecutionTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  size_t total = 0;
  auto found = t.executions.find(execution);
  if (found != t.executions.end()) {
    for (const auto& entry : found->second.inputs) total += entry.second.length;
  }
  return total;
}

// Copies the reply's outputs into the buffers `execution` named with setOutput.
int deliver_outputs(const char* function, uint64_t execution, const ReplyMessage& reply) {
  const auto* outputs = reply.reply()->outputs();
  if (outputs == nullptr) {
    return ANEURALNETWORKS_NO_ERROR;
  }
  ExecutionTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto found = t.executions.find(execution);
  for (const protocol::Buffer* buffer : *outputs) {
    const size_t size = buffer->data() != nullptr ? buffer->data()->size() : 0;
    const Argument* argument = nullptr;
    if (found != t.executions.end()) {
      auto at = found->second.outputs.find(static_cast<int32_t>(buffer->index()));
      if (at != found->second.outputs.end()) argument = &at->second;
    }
    if (argument == nullptr || size > argument->length) {
      return connection().fail(ANEURALNETWORKS_OP_FAILED,
                               std::string(function) + ": the server sent " + std::to_string(size) +
                                   " bytes for output " + std::to_string(buffer->index()) +
                                   ", which has no buffer of that size here");
    }
    if (size > 0) std::memcpy(argument->output, buffer->data()->data(), size);
  }
  return ANEURALNETWORKS_NO_ERROR;
}

template <typename Make>
int set_argument(const char* function, ANeuralNetworksExecution* execution, int32_t index,
                 const ANeuralNetworksOperandType* type, const void* buffer, size_t length,
                 bool is_input, Make make) {
  if (buffer == nullptr && length != 0) return unexpected_null(function, "buffer");
  flatbuffers::FlatBufferBuilder fbb;
  flatbuffers::Offset<protocol::OperandType> operand;
  int rc = ANEURALNETWORKS_NO_ERROR;
  if (!operand_type(function, fbb, type, &operand, &rc)) return rc;
  const bool omitted = buffer == nullptr;
  rc = forward_status(function, fbb, make(fbb, handle_of(execution), index, operand, length, omitted));
  if (rc == ANEURALNETWORKS_NO_ERROR) {
    ExecutionTable& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    ExecutionBuffers& buffers = t.executions[handle_of(execution)];
    auto& arguments = is_input ? buffers.inputs : buffers.outputs;
    if (omitted) {
      arguments.erase(index);
    } else {
      arguments[index] = Argument{buffer, const_cast<void*>(buffer), length};
    }
  }
  return rc;
}

}  // namespace
}  // namespace forwarding
}  // namespace executorch_nnapi

using namespace executorch_nnapi::forwarding;  // NOLINT: the C functions below use it throughout

// -- Executions ---------------------------------------------------------------------------------

FORWARDING_EXPORT int ANeuralNetworksExecution_create(ANeuralNetworksCompilation* compilation,
                                                      ANeuralNetworksExecution** execution) {
  if (execution == nullptr) return unexpected_null(__func__, "execution");
  flatbuffers::FlatBufferBuilder fbb;
  const int rc = forward_create(
      __func__, fbb, protocol::CreateExecutionCreate(fbb, handle_of(compilation)), execution);
  if (rc == ANEURALNETWORKS_NO_ERROR) {
    std::lock_guard<std::mutex> lock(table().mutex);
    table().executions[handle_of(*execution)] = ExecutionBuffers();
  }
  return rc;
}

FORWARDING_EXPORT void ANeuralNetworksExecution_free(ANeuralNetworksExecution* execution) {
  if (execution == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(table().mutex);
    table().executions.erase(handle_of(execution));
  }
  flatbuffers::FlatBufferBuilder fbb;
  forward_free(__func__, fbb, protocol::CreateExecutionFree(fbb, handle_of(execution)));
}

FORWARDING_EXPORT int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution* execution,
                                                        int32_t index,
                                                        const ANeuralNetworksOperandType* type,
                                                        const void* buffer, size_t length) {
  return set_argument(__func__, execution, index, type, buffer, length, true,
                      [](auto& fbb, uint64_t e, int32_t i, auto t, size_t n, bool omitted) {
                        return protocol::CreateExecutionSetInput(fbb, e, i, t, n, omitted);
                      });
}

FORWARDING_EXPORT int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution* execution,
                                                         int32_t index,
                                                         const ANeuralNetworksOperandType* type,
                                                         void* buffer, size_t length) {
  return set_argument(__func__, execution, index, type, buffer, length, false,
                      [](auto& fbb, uint64_t e, int32_t i, auto t, size_t n, bool omitted) {
                        return protocol::CreateExecutionSetOutput(fbb, e, i, t, n, omitted);
                      });
}

FORWARDING_EXPORT int ANeuralNetworksExecution_compute(ANeuralNetworksExecution* execution) {
  const uint64_t handle = handle_of(execution);
  flatbuffers::FlatBufferBuilder fbb(input_size(handle) + 1024);
  auto inputs = input_bytes(fbb, handle);
  ReplyMessage reply;
  const int rc = connection().call(__func__, fbb, protocol::CreateExecutionCompute(fbb, handle, inputs),
                                   &reply);
  return rc == ANEURALNETWORKS_NO_ERROR ? deliver_outputs(__func__, handle, reply) : rc;
}

FORWARDING_EXPORT int ANeuralNetworksExecution_burstCompute(ANeuralNetworksExecution* execution,
                                                            ANeuralNetworksBurst* burst) {
  const uint64_t handle = handle_of(execution);
  flatbuffers::FlatBufferBuilder fbb(input_size(handle) + 1024);
  auto inputs = input_bytes(fbb, handle);
  ReplyMessage reply;
  const int rc = connection().call(
      __func__, fbb, protocol::CreateExecutionBurstCompute(fbb, handle, handle_of(burst), inputs),
      &reply);
  return rc == ANEURALNETWORKS_NO_ERROR ? deliver_outputs(__func__, handle, reply) : rc;
}

FORWARDING_EXPORT int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution* execution,
                                                            ANeuralNetworksEvent** event) {
  if (event == nullptr) return unexpected_null(__func__, "event");
  const uint64_t handle = handle_of(execution);
  flatbuffers::FlatBufferBuilder fbb(input_size(handle) + 1024);
  auto inputs = input_bytes(fbb, handle);
  const int rc = forward_create(__func__, fbb,
                                protocol::CreateExecutionStartCompute(fbb, handle, inputs), event);
  if (rc == ANEURALNETWORKS_NO_ERROR) {
    std::lock_guard<std::mutex> lock(table().mutex);
    table().event_execution[handle_of(*event)] = handle;
  }
  return rc;
}

FORWARDING_EXPORT int ANeuralNetworksExecution_setMeasureTiming(ANeuralNetworksExecution* execution,
                                                                bool measure) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(
      __func__, fbb, protocol::CreateExecutionSetMeasureTiming(fbb, handle_of(execution), measure));
}

FORWARDING_EXPORT int ANeuralNetworksExecution_getDuration(const ANeuralNetworksExecution* execution,
                                                           int32_t durationCode, uint64_t* duration) {
  if (duration == nullptr) return unexpected_null(__func__, "duration");
  flatbuffers::FlatBufferBuilder fbb;
  ReplyMessage reply;
  const int rc = connection().call(
      __func__, fbb, protocol::CreateExecutionGetDuration(fbb, handle_of(execution), durationCode),
      &reply);
  if (rc == ANEURALNETWORKS_NO_ERROR) *duration = reply.reply()->duration();
  return rc;
}

FORWARDING_EXPORT int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution* execution,
                                                          uint64_t duration) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(__func__, fbb,
                        protocol::CreateExecutionSetTimeout(fbb, handle_of(execution), duration));
}

FORWARDING_EXPORT int ANeuralNetworksExecution_setLoopTimeout(ANeuralNetworksExecution* execution,
                                                              uint64_t duration) {
  flatbuffers::FlatBufferBuilder fbb;
  return forward_status(
      __func__, fbb, protocol::CreateExecutionSetLoopTimeout(fbb, handle_of(execution), duration));
}

// -- Bursts and events --------------------------------------------------------------------------

FORWARDING_EXPORT int ANeuralNetworksBurst_create(ANeuralNetworksCompilation* compilation,
                                                  ANeuralNetworksBurst** burst) {
  if (burst == nullptr) return unexpected_null(__func__, "burst");
  flatbuffers::FlatBufferBuilder fbb;
  return forward_create(__func__, fbb, protocol::CreateBurstCreate(fbb, handle_of(compilation)),
                        burst);
}

FORWARDING_EXPORT void ANeuralNetworksBurst_free(ANeuralNetworksBurst* burst) {
  if (burst == nullptr) return;
  flatbuffers::FlatBufferBuilder fbb;
  forward_free(__func__, fbb, protocol::CreateBurstFree(fbb, handle_of(burst)));
}

FORWARDING_EXPORT int ANeuralNetworksEvent_wait(ANeuralNetworksEvent* event) {
  uint64_t execution = 0;
  {
    std::lock_guard<std::mutex> lock(table().mutex);
    auto found = table().event_execution.find(handle_of(event));
    if (found != table().event_execution.end()) execution = found->second;
  }
  flatbuffers::FlatBufferBuilder fbb;
  ReplyMessage reply;
  const int rc = connection().call(__func__, fbb, protocol::CreateEventWait(fbb, handle_of(event)),
                                   &reply);
  return rc == ANEURALNETWORKS_NO_ERROR ? deliver_outputs(__func__, execution, reply) : rc;
}

FORWARDING_EXPORT void ANeuralNetworksEvent_free(ANeuralNetworksEvent* event) {
  if (event == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(table().mutex);
    table().event_execution.erase(handle_of(event));
  }
  flatbuffers::FlatBufferBuilder fbb;
  forward_free(__func__, fbb, protocol::CreateEventFree(fbb, handle_of(event)));
}

// -- Not NNAPI: per-operation durations of the host driver (docs/debugging.md) ------------------

FORWARDING_EXPORT int executorch_nnapi_host_operation_durations(
    const ANeuralNetworksExecution* execution, uint64_t* durations, uint32_t capacity,
    uint32_t* count) {
  if (count == nullptr) return unexpected_null(__func__, "count");
  flatbuffers::FlatBufferBuilder fbb;
  ReplyMessage reply;
  const int rc = connection().call(
      __func__, fbb,
      protocol::CreateOperationDurations(fbb, handle_of(execution), durations != nullptr ? capacity : 0),
      &reply);
  if (rc != ANEURALNETWORKS_NO_ERROR) return rc;
  *count = static_cast<uint32_t>(reply.reply()->number());
  const auto* times = reply.reply()->durations();
  if (durations != nullptr && times != nullptr) {
    for (uint32_t k = 0; k < times->size() && k < capacity; ++k) durations[k] = times->Get(k);
  }
  return ANEURALNETWORKS_NO_ERROR;
}
