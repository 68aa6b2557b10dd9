#include "forwarding_connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "nnapi_c_api.h"

namespace executorch_nnapi {
namespace forwarding {
namespace {

// A message larger than this is a broken peer, not a model (weights come one operand at a time).
constexpr uint32_t kMaxMessageBytes = 1u << 30;

using Clock = std::chrono::steady_clock;

int read_timeout_ms() {
  const char* text = std::getenv("EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS");
  if (text != nullptr && text[0] != '\0') {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end == '\0' && value > 0 && value <= 24L * 3600 * 1000) {
      return static_cast<int>(value);
    }
    std::fprintf(stderr, "executorch-nnapi forwarding NNAPI: ignoring EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS=%s "
                 "(not a positive number of milliseconds)\n", text);
  }
  return 60000;
}

// Waits until `fd` is ready for `events` or the deadline passes. False with *why on timeout.
bool wait_ready(int fd, short events, Clock::time_point deadline, std::string* why) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      *why = "timeout";
      return false;
    }
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) {
      return true;
    }
    if (n < 0 && errno != EINTR) {
      *why = std::string("failed (poll: ") + std::strerror(errno) + ")";
      return false;
    }
  }
}

bool send_all(int fd, const uint8_t* data, size_t size, Clock::time_point deadline, std::string* why) {
  while (size > 0) {
    if (!wait_ready(fd, POLLOUT, deadline, why)) {
      return false;
    }
    // MSG_NOSIGNAL: a server that died must fail the call, not kill this process with SIGPIPE.
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) {
        continue;
      }
      *why = std::string("failed (send: ") + std::strerror(errno) + ")";
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool receive_all(int fd, uint8_t* data, size_t size, Clock::time_point deadline, std::string* why) {
  while (size > 0) {
    if (!wait_ready(fd, POLLIN, deadline, why)) {
      return false;
    }
    const ssize_t n = recv(fd, data, size, 0);
    if (n == 0) {
      *why = "closed the connection";
      return false;
    }
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) {
        continue;
      }
      *why = std::string("failed (recv: ") + std::strerror(errno) + ")";
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

const char* nonempty_env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : nullptr;
}

// $XDG_RUNTIME_DIR, else $TMPDIR/executorch-nnapi-<uid> (forwarding_server.py's
// default_socket_directory).
std::string default_socket_directory() {
  if (const char* runtime = nonempty_env("XDG_RUNTIME_DIR")) {
    return runtime;
  }
  const char* tmp = nonempty_env("TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/executorch-nnapi-" + std::to_string(getuid());
}

// Empty when `directory` is this user's own and no one else may enter it; else why not.
std::string private_directory_refusal(const std::string& directory) {
  struct stat info{};
  if (lstat(directory.c_str(), &info) != 0) {
    return "cannot be reached: its directory " + directory + " cannot be used: " + std::strerror(errno) +
           " (start the server with: python -m executorch_nnapi.host_driver.forwarding_server)";
  }
  std::string refusal;
  if (!S_ISDIR(info.st_mode)) {
    refusal = "it is not a directory";
  } else if (info.st_uid != getuid()) {
    refusal = "it is owned by uid " + std::to_string(info.st_uid) + ", not by this user (uid " +
              std::to_string(getuid()) + ")";
  } else if ((info.st_mode & 077) != 0) {
    std::ostringstream mode;
    mode.width(4);
    mode.fill('0');
    mode << std::oct << (info.st_mode & 07777);
    refusal = "its mode is " + mode.str() + ", not 0700 (other users could reach the socket)";
  }
  if (refusal.empty()) {
    return refusal;
  }
  return "is refused: its directory " + directory + " is unsafe: " + refusal +
         "; remove it or set EXECUTORCH_NNAPI_SERVER to a socket in a directory of your own";
}

// Empty when the server at the other end of `fd` runs as this user; else why it is refused.
std::string server_user_refusal(int fd) {
  ucred credentials{};
  socklen_t size = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
    return std::string("cannot be checked: SO_PEERCRED: ") + std::strerror(errno);
  }
  if (credentials.uid == getuid()) {
    return "";
  }
  return "is refused: it runs as uid " + std::to_string(credentials.uid) + ", not as this user (uid " +
         std::to_string(getuid()) + "); models and inputs go only to a server of one's own user";
}

}  // namespace

std::string server_socket_path() {
  if (const char* explicit_path = nonempty_env("EXECUTORCH_NNAPI_SERVER")) {
    return explicit_path;
  }
  return default_socket_directory() + "/executorch-nnapi.sock";
}

Connection& Connection::get() {
  static Connection* connection = new Connection();  // never destroyed: calls may come at exit
  return *connection;
}

int Connection::fail(int code, const std::string& message) {
  std::lock_guard<std::mutex> lock(error_mutex_);
  last_error_ = message;
  return code;
}

std::string Connection::last_error() {
  std::lock_guard<std::mutex> lock(error_mutex_);
  return last_error_;
}

int Connection::lose(const char* function, const std::string& why) {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  dead_ = true;
  death_ = why;
  return fail(ANEURALNETWORKS_DEAD_OBJECT,
              std::string(function) + ": the NNAPI server at " + path_ + " " + why);
}

bool Connection::ensure_connected(std::string* why) {
  if (fd_ >= 0) {
    return true;
  }
  path_ = server_socket_path();
  timeout_ms_ = read_timeout_ms();
  if (nonempty_env("EXECUTORCH_NNAPI_SERVER") == nullptr) {
    *why = private_directory_refusal(default_socket_directory());
    if (!why->empty()) {
      return false;
    }
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path_.size() >= sizeof(address.sun_path)) {
    *why = "cannot be reached: the socket path is longer than " +
           std::to_string(sizeof(address.sun_path) - 1) + " bytes";
    return false;
  }
  std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *why = std::string("cannot be reached: socket: ") + std::strerror(errno);
    return false;
  }
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    *why = std::string("cannot be reached: ") + std::strerror(errno) +
           " (start it with: python -m executorch_nnapi.host_driver.forwarding_server)";
    close(fd);
    return false;
  }
  *why = server_user_refusal(fd);
  if (!why->empty()) {
    close(fd);
    return false;
  }
  fd_ = fd;
  // Hello: the server checks that it speaks this protocol version.
  flatbuffers::FlatBufferBuilder fbb;
  auto body = protocol::CreateHello(fbb, kProtocolVersion);
  fbb.Finish(protocol::CreateRequest(fbb, protocol::Call::Hello, body.Union()));
  ReplyMessage reply;
  if (!exchange(fbb.GetBufferPointer(), fbb.GetSize(), &reply, why)) {
    return false;
  }
  if (reply.reply()->result() != ANEURALNETWORKS_NO_ERROR) {
    const auto* message = reply.reply()->message();
    *why = "refused the connection: " + (message != nullptr ? message->str() : std::string("?"));
    return false;
  }
  return true;
}

// One request out, its reply in, all within the timeout.
bool Connection::exchange(const uint8_t* data, size_t size, ReplyMessage* reply,
                          std::string* why) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms_);
  const uint32_t length = static_cast<uint32_t>(size);
  const uint8_t header[4] = {static_cast<uint8_t>(length), static_cast<uint8_t>(length >> 8),
                             static_cast<uint8_t>(length >> 16), static_cast<uint8_t>(length >> 24)};
  std::string failure;
  uint8_t reply_header[4];
  if (!send_all(fd_, header, sizeof(header), deadline, &failure) ||
      !send_all(fd_, data, size, deadline, &failure) ||
      !receive_all(fd_, reply_header, sizeof(reply_header), deadline, &failure)) {
    *why = failure == "timeout" ? "did not answer within " + std::to_string(timeout_ms_) +
                                      " ms (EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS)"
                                : failure;
    return false;
  }
  const uint32_t reply_size = reply_header[0] | (reply_header[1] << 8) |
                              (reply_header[2] << 16) | (static_cast<uint32_t>(reply_header[3]) << 24);
  if (reply_size == 0 || reply_size > kMaxMessageBytes) {
    *why = "sent a malformed reply (length " + std::to_string(reply_size) + ")";
    return false;
  }
  reply->bytes.resize(reply_size);
  if (!receive_all(fd_, reply->bytes.data(), reply_size, deadline, &failure)) {
    *why = failure == "timeout" ? "did not finish its reply within " +
                                      std::to_string(timeout_ms_) + " ms"
                                : failure;
    return false;
  }
  flatbuffers::Verifier verifier(reply->bytes.data(), reply->bytes.size());
  if (!verifier.VerifyBuffer<protocol::Reply>(nullptr)) {
    *why = "sent a reply that is not a valid Reply FlatBuffer";
    return false;
  }
  return true;
}

int Connection::send_and_wait(const char* function, flatbuffers::FlatBufferBuilder& fbb,
                              protocol::Call type, flatbuffers::Offset<void> body,
                              ReplyMessage* reply) {
  fbb.Finish(protocol::CreateRequest(fbb, type, body));
  std::lock_guard<std::mutex> lock(mutex_);
  if (dead_) {
    return fail(ANEURALNETWORKS_DEAD_OBJECT, std::string(function) +
                    ": the connection to the NNAPI server at " + path_ +
                    " was lost earlier: it " + death_);
  }
  std::string why;
  if (fd_ < 0) {
    if (!ensure_connected(&why)) {
      // Nothing was created yet, so a later call may try again (the server may start late).
      if (fd_ >= 0) {
        close(fd_);
        fd_ = -1;
      }
      return fail(ANEURALNETWORKS_DEAD_OBJECT,
                  std::string(function) + ": the NNAPI server at " + path_ + " " + why);
    }
  }
  if (!exchange(fbb.GetBufferPointer(), fbb.GetSize(), reply, &why)) {
    return lose(function, why);
  }
  const int result = reply->reply()->result();
  if (result != ANEURALNETWORKS_NO_ERROR) {
    const auto* message = reply->reply()->message();
    return fail(result, message != nullptr ? message->str() : std::string());
  }
  fail(ANEURALNETWORKS_NO_ERROR, "");
  return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace forwarding
}  // namespace executorch_nnapi
