"""The NNAPI server: answers the calls of the forwarding libneuralnetworks.so with the host driver.

A process with no NNAPI of its own (the aarch64 runner under qemu-user) loads the forwarding
library built from ``host_driver/forwarding/``; it sends every NNAPI call over a Unix socket to
this server, which makes the call on the host driver and answers (the protocol:
``host_driver/forwarding/nnapi_forwarding.fbs``, docs/forwarding_protocol.md)::

    python -m executorch_nnapi.host_driver.forwarding_server [--socket PATH] [--feature-level 30]

Each connection is served by a thread of its own and its objects are freed when it ends. A
client that stops in the middle of a message, or stops reading its reply, is dropped after the
timeout; one that is idle between calls is not (an app may hold a compiled model for long).

Only its own user talks to the server (docs/forwarding_protocol.md, "Who may connect"): the
default socket is in a directory only that user can reach ($XDG_RUNTIME_DIR, else
``$TMPDIR/executorch-nnapi-<uid>/``, created 0700 and refused with another owner or a wider
mode), the socket file is 0600, and a peer of another uid (SO_PEERCRED) is refused.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import stat
import struct
import sys
import threading
import time
from typing import Any, Optional

import flatbuffers

from . import install
from .errors import OP_FAILED
from .forwarding_calls import Answer, ProtocolError, Session, bind_shim, protocol_module, protocol_table

__all__ = ["ForwardingServer", "UnsafeSocketDirectory", "check_private_directory", "default_socket_directory",
           "default_socket_path", "main", "peer_uid"]

logger = logging.getLogger("executorch_nnapi.host_driver.forwarding_server")

_MAX_MESSAGE_BYTES = 1 << 30
SOCKET_NAME = "executorch-nnapi.sock"
# How long a refused peer may take to read its refusal before the server hangs up.
_REFUSAL_DRAIN_S = 2.0


class UnsafeSocketDirectory(RuntimeError):
    """The default socket's directory could be reached by another user."""


def default_socket_directory() -> str:
    """$XDG_RUNTIME_DIR when set, else ``$TMPDIR/executorch-nnapi-<uid>`` (TMPDIR default /tmp):
    where the default socket lives (forwarding_connection.cpp computes the same)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return runtime
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", f"executorch-nnapi-{os.getuid()}")


def check_private_directory(path: str, create: bool = False) -> None:
    """Raises UnsafeSocketDirectory unless ``path`` is a directory (not a symbolic link) owned by
    this user that no one else may enter (no group or other permission bits). ``create``: make it
    with mode 0700 when it does not exist."""
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError as e:
            raise UnsafeSocketDirectory(f"cannot create the socket directory {path}: {e.strerror}") from None
    try:
        info = os.lstat(path)
    except OSError as e:
        raise UnsafeSocketDirectory(f"the socket directory {path} cannot be used: {e.strerror}") from None
    refusal = None
    if not stat.S_ISDIR(info.st_mode):
        refusal = "it is not a directory"
    elif info.st_uid != os.getuid():
        refusal = f"it is owned by uid {info.st_uid}, not by this user (uid {os.getuid()})"
    elif info.st_mode & 0o077:
        refusal = f"its mode is {stat.S_IMODE(info.st_mode):04o}, not 0700 (other users could reach the socket)"
    if refusal:
        raise UnsafeSocketDirectory(f"refusing the socket directory {path}: {refusal}; remove it or set "
                                    "EXECUTORCH_NNAPI_SERVER to a socket in a directory of your own")


def default_socket_path(create: bool = False) -> str:
    """$EXECUTORCH_NNAPI_SERVER (used as given), else ``executorch-nnapi.sock`` in
    default_socket_directory(), whose owner and mode are checked (and, with ``create``, made
    0700 when missing). The library's default too."""
    explicit = os.environ.get("EXECUTORCH_NNAPI_SERVER")
    if explicit:
        return explicit
    directory = default_socket_directory()
    check_private_directory(directory, create=create)
    return os.path.join(directory, SOCKET_NAME)


def peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end of a connected Unix socket (SO_PEERCRED)."""
    credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return uid


def _receive_exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the client closed the connection in the middle of a message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_message(sock: socket.socket, timeout_s: float) -> Optional[bytes]:
    """The next message, or None when the client hung up between messages. Waiting for a message
    to begin has no limit; once begun it must arrive within ``timeout_s``."""
    sock.settimeout(None)
    first = sock.recv(1)
    if not first:
        return None
    sock.settimeout(timeout_s)
    (size,) = struct.unpack("<I", first + _receive_exactly(sock, 3))
    if size == 0 or size > _MAX_MESSAGE_BYTES:
        raise ConnectionError(f"a message of {size} bytes")
    return _receive_exactly(sock, size)


def send_message(sock: socket.socket, data: bytes, timeout_s: float) -> None:
    sock.settimeout(timeout_s)
    sock.sendall(struct.pack("<I", len(data)) + data)


def encode_reply(answer: Answer) -> bytes:
    """The Reply FlatBuffer of ``answer``."""
    module, buffer = protocol_module("Reply"), protocol_module("Buffer")
    b = flatbuffers.Builder(1024 + sum(len(data) for _, data in answer.outputs or ()))
    message = b.CreateString(answer.message) if answer.message else None
    text = b.CreateString(answer.text) if answer.text is not None else None
    outputs = None
    if answer.outputs is not None:
        tables = []
        for index, data in answer.outputs:
            vector = b.CreateByteVector(data)
            buffer.BufferStart(b)
            buffer.BufferAddIndex(b, index)
            buffer.BufferAddData(b, vector)
            tables.append(buffer.BufferEnd(b))
        module.ReplyStartOutputsVector(b, len(tables))
        for table in reversed(tables):
            b.PrependUOffsetTRelative(table)
        outputs = b.EndVector()
    durations = None
    if answer.durations is not None:
        module.ReplyStartDurationsVector(b, len(answer.durations))
        for value in reversed(answer.durations):
            b.PrependUint64(value)
        durations = b.EndVector()
    module.ReplyStart(b)
    module.ReplyAddResult(b, answer.result)
    for add, value in ((module.ReplyAddMessage, message), (module.ReplyAddText, text),
                       (module.ReplyAddOutputs, outputs), (module.ReplyAddDurations, durations)):
        if value is not None:
            add(b, value)
    module.ReplyAddHandle(b, answer.handle)
    module.ReplyAddNumber(b, answer.number)
    module.ReplyAddDuration(b, answer.duration)
    b.Finish(module.ReplyEnd(b))
    return bytes(b.Output())


def _call_names() -> dict[int, str]:
    """Request.call's union type -> the name of its table."""
    call = protocol_table("Call")
    return {value: name for name, value in vars(call).items() if not name.startswith("_") and name != "NONE"}


class ForwardingServer:
    """Listens on a Unix socket and answers each connection's requests with the host driver.

    ``feature_level``: the host driver's (as ``host_driver.install``); ``timeout_s``: how long a
    message that has begun may take to arrive, and a reply to be taken.
    """

    def __init__(self, socket_path: str, feature_level: int = 30, timeout_s: float = 60.0) -> None:
        self.socket_path = socket_path
        self.timeout_s = timeout_s
        self.lib = bind_shim(install(feature_level))
        self.feature_level = feature_level
        # The driver's last error is process-wide: a call and the reading of its message go together.
        self.lock = threading.Lock()
        self.calls = _call_names()
        self.listener = self._listen(socket_path)
        self.connections = 0

    @staticmethod
    def _listen(path: str) -> socket.socket:
        if os.path.exists(path):
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(path)
            except OSError:
                os.unlink(path)   # a socket left by a server that died
            else:
                raise RuntimeError(f"another NNAPI server is listening on {path}")
            finally:
                probe.close()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # 0600 from the start (connecting needs write permission): no moment when others may connect.
        umask = os.umask(0o177)
        try:
            listener.bind(path)
        finally:
            os.umask(umask)
        listener.listen(16)
        return listener

    def answer(self, session: Session, data: bytes) -> Answer:
        """Runs one request; every failure becomes a result code and a message."""
        try:
            request = protocol_table("Request").GetRootAs(data, 0)
            name = self.calls.get(request.CallType())
            if name is None:
                return Answer(result=OP_FAILED, message=f"unknown request type {request.CallType()}")
            if not session.hello and name != "Hello":
                return Answer(result=OP_FAILED, message="the first request of a connection must be Hello")
            table = request.Call()
            body = protocol_table(name)()
            body.Init(table.Bytes, table.Pos)
            with self.lock:
                return session.handler(name)(body)
        except ProtocolError as e:
            return Answer(result=e.code, message=str(e))
        except Exception as e:  # a malformed request must not end the server
            logger.exception("request failed")
            return Answer(result=OP_FAILED, message=f"the server could not run the request: {type(e).__name__}: {e}")

    def refuse_other_user(self, conn: socket.socket) -> bool:
        """True when the peer is another user's process: it gets one Reply (OP_FAILED and why),
        which is what its Hello waits for, and the server logs one line."""
        uid = peer_uid(conn)
        if uid == os.getuid():
            return False
        logger.warning("refused a connection from uid %d: this server serves only its own user (uid %d)",
                       uid, os.getuid())
        refusal = Answer(result=OP_FAILED, message=f"this NNAPI server serves only its own user (uid {os.getuid()}); "
                                                   f"the connecting process is uid {uid}")
        try:
            send_message(conn, encode_reply(refusal), self.timeout_s)
            # Let it read the refusal: closing with its request unread would reset the connection.
            conn.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + _REFUSAL_DRAIN_S
            conn.settimeout(_REFUSAL_DRAIN_S)
            while conn.recv(1 << 16) and time.monotonic() < deadline:
                pass
        except OSError:
            pass
        return True

    def serve_connection(self, conn: socket.socket) -> None:
        """Answers one client until it hangs up, breaks the protocol or times out. A peer of
        another user is refused."""
        try:
            if self.refuse_other_user(conn):
                conn.close()
                return
        except OSError as e:
            logger.warning("dropping a client whose credentials cannot be read: %s", e)
            conn.close()
            return
        session = Session(self.lib)
        try:
            while True:
                data = read_message(conn, self.timeout_s)
                if data is None:
                    break
                send_message(conn, encode_reply(self.answer(session, data)), self.timeout_s)
        except (OSError, ConnectionError) as e:
            logger.warning("dropping a client: %s", e)
        finally:
            with self.lock:
                session.close()
            conn.close()

    def serve_forever(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return   # closed
            self.connections += 1
            threading.Thread(target=self.serve_connection, args=(conn,), daemon=True,
                             name=f"nnapi-client-{self.connections}").start()

    def close(self) -> None:
        self.listener.close()
        if os.path.exists(self.socket_path):
            os.unlink(self.socket_path)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m executorch_nnapi.host_driver.forwarding_server",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", help="the Unix socket to listen on (default: $EXECUTORCH_NNAPI_SERVER, "
                        "else executorch-nnapi.sock in $XDG_RUNTIME_DIR or in $TMPDIR/executorch-nnapi-<uid>/)")
    parser.add_argument("--feature-level", type=int,
                        default=int(os.environ.get("EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL", "30")))
    parser.add_argument("--timeout-ms", type=int, default=60000,
                        help="how long a begun message may take to arrive (and a reply to be taken)")
    args = parser.parse_args(argv)
    try:
        socket_path = args.socket or default_socket_path(create=True)
        logging.basicConfig(level=logging.WARNING, format="executorch-nnapi NNAPI server: %(message)s")
        server = ForwardingServer(socket_path, args.feature_level, args.timeout_ms / 1000)
    except (RuntimeError, OSError) as e:
        print(f"executorch-nnapi NNAPI server: error: {e}", file=sys.stderr)
        return 1

    def stop(signum: int, frame: Any) -> None:
        server.close()
        # Not sys.exit: finalizing torch and the driver's threads took seconds; the clients' objects
        # die with the process, as their connections do.
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"executorch-nnapi NNAPI server: listening on {socket_path} (host driver at feature level "
          f"{args.feature_level})", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
