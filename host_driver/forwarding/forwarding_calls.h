// Helpers the forwarded NNAPI functions share: handles as pointers, the three shapes of a
// call (status, create, free) and the operand type as a protocol table.
#pragma once

#include <cstdint>
#include <string>

#include "forwarding_connection.h"
#include "nnapi_c_api.h"

#define FORWARDING_EXPORT extern "C" __attribute__((visibility("default")))

// Every NNAPI function declared with C linkage from the one header, so that a definition
// whose parameters differ from nnapi_c_api.h is a compile error (two C functions of one name).
extern "C" {
#define FORWARDING_DECLARE(ret, name, params, args) ret name params;
NNAPI_ALL_FUNCTIONS(FORWARDING_DECLARE)
#undef FORWARDING_DECLARE
int executorch_nnapi_host_last_error(char* buf, size_t len);
int executorch_nnapi_host_operation_durations(const ANeuralNetworksExecution* execution,
                                              uint64_t* durations, uint32_t capacity,
                                              uint32_t* count);
}

namespace executorch_nnapi {
namespace forwarding {

inline Connection& connection() { return Connection::get(); }

/// The server's handle of an NNAPI object (its pointer here is the handle itself).
inline uint64_t handle_of(const void* object) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(object));
}

template <typename T>
T* object_of(uint64_t handle) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(handle));
}

/// Refuses a call whose out-pointer (or other required pointer) is NULL, as NNAPI does.
inline int unexpected_null(const char* function, const char* what) {
  return connection().fail(ANEURALNETWORKS_UNEXPECTED_NULL,
                           std::string(function) + ": " + what + " is NULL");
}

/// A call whose reply carries only the result code.
template <typename T>
int forward_status(const char* function, flatbuffers::FlatBufferBuilder& fbb,
                   flatbuffers::Offset<T> body) {
  ReplyMessage reply;
  return connection().call(function, fbb, body, &reply);
}

/// A call that creates an object: *out gets the server's handle.
template <typename Object, typename T>
int forward_create(const char* function, flatbuffers::FlatBufferBuilder& fbb,
                   flatbuffers::Offset<T> body, Object** out) {
  ReplyMessage reply;
  const int rc = connection().call(function, fbb, body, &reply);
  if (rc == ANEURALNETWORKS_NO_ERROR) {
    *out = object_of<Object>(reply.reply()->handle());
  }
  return rc;
}

/// A *_free: nothing to report (a dead server already freed everything of this process).
template <typename T>
void forward_free(const char* function, flatbuffers::FlatBufferBuilder& fbb,
                  flatbuffers::Offset<T> body) {
  ReplyMessage reply;
  connection().call(function, fbb, body, &reply);
}

/// `type` as the protocol's OperandType (0 for NULL). False, with the call already refused
/// in *rc, for a type NNAPI rejects before looking at it (dimensions NULL with a count).
bool operand_type(const char* function, flatbuffers::FlatBufferBuilder& fbb,
                  const ANeuralNetworksOperandType* type,
                  flatbuffers::Offset<protocol::OperandType>* out, int* rc);

}  // namespace forwarding
}  // namespace executorch_nnapi
