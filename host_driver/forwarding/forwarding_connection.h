// The forwarding libneuralnetworks.so's one connection to the NNAPI server.
//
// Every NNAPI call of the process becomes one Request on a Unix socket and waits for its
// Reply (host_driver/forwarding/nnapi_forwarding.fbs, docs/forwarding_protocol.md). The
// server answers with the host driver. A server that is gone, closes the connection or does
// not answer within the timeout ends the call with ANEURALNETWORKS_DEAD_OBJECT and a message,
// and the connection stays dead: the handles it gave out died with it, as an app's do when
// the NNAPI service dies.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "nnapi_forwarding_generated.h"

namespace executorch_nnapi {
namespace forwarding {

namespace protocol = ::executorch_nnapi::host_driver::forwarding_protocol;

/// Bumped with every change of nnapi_forwarding.fbs a peer of the previous version would
/// misread (host_driver/forwarding_server.py holds the same number).
constexpr uint32_t kProtocolVersion = 1;

/// The server's socket: $EXECUTORCH_NNAPI_SERVER, else executorch-nnapi.sock in
/// $XDG_RUNTIME_DIR or in $TMPDIR/executorch-nnapi-<uid>/ (TMPDIR default /tmp). The default's
/// directory must be this user's with no group or other access, and the server at either path
/// must run as this user (SO_PEERCRED), or the connection is refused with a message.
std::string server_socket_path();

/// A received Reply and the bytes it lives in (verified before it is handed out).
struct ReplyMessage {
  std::vector<uint8_t> bytes;
  const protocol::Reply* reply() const {
    return flatbuffers::GetRoot<protocol::Reply>(bytes.data());
  }
};

class Connection {
 public:
  /// The process's connection (made at the first call).
  static Connection& get();

  /// Sends `body` (a table of the Call union) as the request of NNAPI function `function`
  /// and waits for the reply. Returns the call's NNAPI result code: the server's, or
  /// ANEURALNETWORKS_DEAD_OBJECT when the server cannot be reached or does not answer in
  /// time. With ANEURALNETWORKS_NO_ERROR, *reply holds the reply.
  template <typename T>
  int call(const char* function, flatbuffers::FlatBufferBuilder& fbb,
           flatbuffers::Offset<T> body, ReplyMessage* reply) {
    return send_and_wait(function, fbb, protocol::CallTraits<T>::enum_value, body.Union(),
                         reply);
  }

  /// Records `message` as the last error (for executorch_nnapi_host_last_error) and returns
  /// `code`: a call refused before anything was sent (a NULL out-pointer, ...).
  int fail(int code, const std::string& message);

  /// The message of the last failed call, "" after a successful one.
  std::string last_error();

 private:
  Connection() = default;
  int send_and_wait(const char* function, flatbuffers::FlatBufferBuilder& fbb,
                    protocol::Call type, flatbuffers::Offset<void> body,
                    ReplyMessage* reply);
  bool ensure_connected(std::string* why);
  bool exchange(const uint8_t* data, size_t size, ReplyMessage* reply, std::string* why);
  int lose(const char* function, const std::string& why);

  std::mutex mutex_;  // one call at a time: the stream is a strict alternation
  int fd_ = -1;
  bool dead_ = false;          // the connection was lost: every call fails from now on
  std::string death_;          // why it was lost
  int timeout_ms_ = 60000;
  std::string path_;
  std::mutex error_mutex_;
  std::string last_error_;
};

}  // namespace forwarding
}  // namespace executorch_nnapi
