"""The NNAPI server (host_driver/forwarding_server.py) on the host, without qemu: the x86 runner with
the forwarding libneuralnetworks.so built for x86 runs a .pte through it (load-time options
reach the driver across the socket), and the server keeps its side of the protocol: a client that
stalls in the middle of a message is dropped after the timeout while others are served, a client
of another protocol version is refused, and handles belong to the connection that made them.
Only its own user talks to the server: the default socket's directory is created 0700 and
refused with another owner or a wider mode (by the server and by the library), the socket file is
0600, a peer of another uid is refused by the server and a server of another uid by the library.
The aarch64 runs through the same server are in tests/aarch64/."""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

import flatbuffers
import pytest
import torch
from torch.export import export

from aarch64_runners import X86_NNAPI
from executorch_nnapi.host_driver.errors import BAD_DATA, NO_ERROR, OP_FAILED
from executorch_nnapi.host_driver.forwarding_calls import PROTOCOL_VERSION, protocol_module, protocol_table
from executorch_nnapi.host_driver.forwarding_server import SOCKET_NAME, main, read_message, send_message
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import runner_path
from nnapi_server import NnapiServer
from runner_io import SmallNet, read_output, write_input, write_pte

SERVER_TIMEOUT_MS = 1000
NOBODY = 65534


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    directory = tmp_path_factory.mktemp("forwarding")
    log = directory / "driver.jsonl"
    server = NnapiServer(directory / "s.sock", env={"EXECUTORCH_NNAPI_HOST_DRIVER_LOG": str(log)},
                         timeout_ms=SERVER_TIMEOUT_MS)
    server.driver_log = log
    yield server
    server.stop()


def _connect(server: NnapiServer) -> socket.socket:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(server.socket_path)
    return client


def _call(client: socket.socket, name: str, **fields) -> object:
    """Sends request ``name`` with scalar ``fields`` (the generated Add<Field> functions) and
    returns the Reply."""
    b = flatbuffers.Builder(64)
    table = protocol_module(name)
    getattr(table, f"{name}Start")(b)
    for field, value in fields.items():
        getattr(table, f"{name}Add{field}")(b, value)
    body = getattr(table, f"{name}End")(b)
    request = protocol_module("Request")
    request.RequestStart(b)
    request.RequestAddCallType(b, getattr(protocol_table("Call"), name))
    request.RequestAddCall(b, body)
    b.Finish(request.RequestEnd(b))
    send_message(client, bytes(b.Output()), 10)
    return protocol_table("Reply").GetRootAs(read_message(client, 10), 0)


def test_the_x86_runner_through_the_server_matches_eager_and_its_options_reach_the_driver(server, tmp_path):
    torch.manual_seed(0)
    model = SmallNet().eval()
    x = torch.randn(1, 3, 16, 16)
    pte = write_pte(tmp_path / "m.pte", {"forward": export(model, (x,))}, {"forward": [NnapiPartitioner()]})
    env = {**os.environ, "EXECUTORCH_NNAPI_LIBRARY": str(X86_NNAPI), "EXECUTORCH_NNAPI_SERVER": server.socket_path}
    out = tmp_path / "out"
    out.mkdir()
    result = subprocess.run([runner_path(), "--model", str(pte), "--input", write_input(tmp_path / "x.bin", x),
                             "--iters", "3", "--output-dir", str(out), "--option", "use_burst=true",
                             "--option", "execution_preference=sustained_speed", "--option", f"cache_dir={tmp_path}"],
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    with torch.no_grad():
        for i, want in enumerate(model(x)):
            torch.testing.assert_close(read_output(out, i), want, rtol=1e-4, atol=1e-5)
    calls = [json.loads(line) for line in server.driver_log.read_text().splitlines()]
    names = [c["call"] for c in calls]
    assert {"call": "setPreference", "preference": 2} in calls
    assert any(c["call"] == "setCaching" and c["cache_dir"] == str(tmp_path) for c in calls)
    assert names.count("Burst_create") >= 1 and names.count("burstCompute") >= 4  # warmup + 3


class RunningSum(torch.nn.Module):
    """A buffer the program mutates: the delegate keeps it as its state."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("total", torch.zeros(2, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.total.add_(x)
        return self.total * 2.0


def test_delegate_state_through_a_library_without_memory_functions(server, tmp_path):
    """The forwarding library exports no ANeuralNetworksMemory functions: the runtime keeps the
    delegate's state in ordinary memory, given by pointer, and it still carries over the steps of
    one loaded method."""
    xs = [torch.randn(2, 4, generator=torch.Generator().manual_seed(k)) for k in range(3)]
    with torch.no_grad():
        program = export(RunningSum(), (xs[0],))
    pte = write_pte(tmp_path / "sum.pte", {"forward": program}, {"forward": [NnapiPartitioner()]})
    env = {**os.environ, "EXECUTORCH_NNAPI_LIBRARY": str(X86_NNAPI), "EXECUTORCH_NNAPI_SERVER": server.socket_path}
    out = tmp_path / "out"
    out.mkdir()
    args = [runner_path(), "--model", str(pte), "--iters", "1", "--warmup", "0", "--output-dir", str(out)]
    for k, x in enumerate(xs):
        args += (["--then"] if k else []) + ["--input", write_input(tmp_path / f"x{k}.bin", x)]
    result = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "kept in ordinary memory and given to NNAPI by pointer" in result.stderr
    for k in range(3):
        torch.testing.assert_close(read_output(out / f"step_{k}", 0), 2 * sum(xs[:k + 1]))


def test_a_client_that_stalls_mid_message_is_dropped_while_others_are_served(server):
    stalled = _connect(server)
    stalled.sendall(b"\x40\x00")   # half of a message's length
    started = time.monotonic()
    other = _connect(server)
    assert _call(other, "Hello", Version=PROTOCOL_VERSION).Result() == NO_ERROR
    assert _call(other, "GetRuntimeFeatureLevel").Number() == 30
    stalled.settimeout(30)
    assert stalled.recv(1) == b""   # the server hung up on it
    assert time.monotonic() - started >= SERVER_TIMEOUT_MS / 1000 * 0.9
    assert "dropping a client" in server.log()
    stalled.close()
    other.close()


def test_another_protocol_version_and_a_call_before_hello_are_refused(server):
    client = _connect(server)
    reply = _call(client, "GetDeviceCount")
    assert reply.Result() == OP_FAILED and b"the first request of a connection must be Hello" in reply.Message()
    reply = _call(client, "Hello", Version=PROTOCOL_VERSION + 98)
    assert reply.Result() == OP_FAILED
    assert f"version {PROTOCOL_VERSION + 98}, this server {PROTOCOL_VERSION}".encode() in reply.Message()
    client.close()


def test_a_handle_belongs_to_the_connection_that_made_it(server):
    owner, other = _connect(server), _connect(server)
    for client in (owner, other):
        assert _call(client, "Hello", Version=PROTOCOL_VERSION).Result() == NO_ERROR
    created = _call(owner, "ModelCreate")
    assert created.Result() == NO_ERROR and created.Handle() != 0
    reply = _call(other, "ModelFinish", Model=created.Handle())
    assert reply.Result() == BAD_DATA
    assert f"model {created.Handle():#x} is not a live model of this connection".encode() in reply.Message()
    # The owner may use it (whatever the driver then says of an empty model).
    reply = _call(owner, "ModelFinish", Model=created.Handle())
    assert b"not a live model of this connection" not in (reply.Message() or b"")
    owner.close()
    other.close()


# -- Only its own user talks to the server ---------------------------------------------------------

# A process of the forwarding library alone: its first NNAPI call connects (and says why not on stderr).
LIBRARY_CLIENT = """
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.ANeuralNetworks_getRuntimeFeatureLevel.restype = ctypes.c_int64
print(lib.ANeuralNetworks_getRuntimeFeatureLevel())
"""


@pytest.fixture
def short_tmp_path() -> Iterator[Path]:
    """A temporary directory with a short path: a socket path must fit AF_UNIX's 108 bytes, which
    pytest's tmp_path under an xdist worker (.../pytest-N/popen-gwK/<test name>0/) can exceed."""
    directory = Path(tempfile.mkdtemp(prefix="enn-", dir="/tmp"))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _default_path_env(tmp_path: Path) -> dict:
    """An environment whose default socket is ``<tmp_path>/executorch-nnapi-<uid>/executorch-nnapi.sock``."""
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "EXECUTORCH_NNAPI_SERVER")}
    return {**env, "TMPDIR": str(tmp_path)}


def _library_client(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LIBRARY_CLIENT, str(X86_NNAPI)], env=env, capture_output=True,
                          text=True, timeout=120)


def _one_line(text: str, marker: str) -> str:
    (line,) = [line for line in text.splitlines() if marker in line]
    return line


@pytest.mark.parametrize("owner, mode, refusal", [
    (0, 0o755, "its mode is 0755, not 0700 (other users could reach the socket)"),
    (NOBODY, 0o700, f"it is owned by uid {NOBODY}, not by this user (uid 0)"),
])
def test_a_socket_directory_of_another_owner_or_a_wider_mode_is_refused(tmp_path, monkeypatch, capsys,
                                                                        owner, mode, refusal):
    assert os.getuid() == 0, "the test makes a directory of another owner: it runs as root"
    directory = tmp_path / f"executorch-nnapi-{os.getuid()}"
    directory.mkdir()
    os.chown(directory, owner, owner)
    directory.chmod(mode)
    env = _default_path_env(tmp_path)
    for name in ("XDG_RUNTIME_DIR", "EXECUTORCH_NNAPI_SERVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    # The server: one line, nothing listening, the directory left as it was.
    assert main([]) == 1
    line = _one_line(capsys.readouterr().err, "refusing")
    assert line == (f"executorch-nnapi NNAPI server: error: refusing the socket directory {directory}: {refusal}; "
                    "remove it or set EXECUTORCH_NNAPI_SERVER to a socket in a directory of your own")
    assert not (directory / SOCKET_NAME).exists()
    assert (directory.stat().st_uid, directory.stat().st_mode & 0o777) == (owner, mode)
    # The library: NNAPI unavailable, and the same reason.
    client = _library_client(env)
    assert client.stdout.strip() == "0"
    assert _one_line(client.stderr, "forwarding NNAPI") == (
        f"executorch-nnapi forwarding NNAPI: ANeuralNetworks_getRuntimeFeatureLevel: the NNAPI server at "
        f"{directory / SOCKET_NAME} is refused: its directory {directory} is unsafe: {refusal}; remove it or set "
        "EXECUTORCH_NNAPI_SERVER to a socket in a directory of your own")


def test_an_xdg_runtime_dir_open_to_others_is_refused(tmp_path, monkeypatch, capsys):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    runtime.chmod(0o750)
    monkeypatch.delenv("EXECUTORCH_NNAPI_SERVER", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert main([]) == 1
    assert f"refusing the socket directory {runtime}: its mode is 0750, not 0700" in capsys.readouterr().err


def test_the_default_path_works_in_a_directory_made_0700(short_tmp_path):
    """No EXECUTORCH_NNAPI_SERVER on either side: the server makes its directory 0700 and its socket
    0600, and the library finds it there."""
    tmp_path = short_tmp_path
    env = _default_path_env(tmp_path)
    directory = tmp_path / f"executorch-nnapi-{os.getuid()}"
    server = subprocess.Popen([sys.executable, "-m", "executorch_nnapi.host_driver.forwarding_server"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        ready, _, _ = select.select([server.stdout], [], [], 120)
        line = server.stdout.readline() if ready else ""
        assert f"listening on {directory / SOCKET_NAME}" in line, line
        assert directory.stat().st_mode & 0o777 == 0o700
        assert (directory / SOCKET_NAME).stat().st_mode & 0o777 == 0o600
        client = _library_client(env)
        assert client.stdout.strip() == "30", client.stderr
    finally:
        server.terminate()
        server.wait(30)


def _as_nobody(work) -> bytes:
    """Runs ``work()`` (returning bytes) in a child process that became uid/gid 65534; returns
    what it returned. The child uses only what this process has already imported."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child's report is the pipe)
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.write(write_end, work())
            os._exit(0)
        except BaseException as e:
            os.write(write_end, f"child failed: {type(e).__name__}: {e}".encode())
            os._exit(1)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 1 << 16):
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks)


@pytest.fixture
def open_directory():
    """A directory under /tmp that every user may enter (the tests' own are 0700 from the root)."""
    directory = Path(tempfile.mkdtemp(prefix="nnapi-open-", dir="/tmp"))
    directory.chmod(0o755)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def _hello_request() -> bytes:
    b = flatbuffers.Builder(64)
    hello, request = protocol_module("Hello"), protocol_module("Request")
    hello.HelloStart(b)
    hello.HelloAddVersion(b, PROTOCOL_VERSION)
    body = hello.HelloEnd(b)
    request.RequestStart(b)
    request.RequestAddCallType(b, protocol_table("Call").Hello)
    request.RequestAddCall(b, body)
    b.Finish(request.RequestEnd(b))
    return bytes(b.Output())


def test_a_peer_of_another_uid_is_refused(open_directory):
    assert os.getuid() == 0, "the test connects as uid 65534: it runs as root"
    server = NnapiServer(open_directory / "s.sock", timeout_ms=SERVER_TIMEOUT_MS)
    try:
        # Open the socket file itself, so that only the server's own check stands in the way.
        os.chmod(server.socket_path, 0o666)
        hello = _hello_request()

        def connect_and_say_hello() -> bytes:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.connect(server.socket_path)
                send_message(client, hello, 10)
                return read_message(client, 10) or b""

        reply = protocol_table("Reply").GetRootAs(_as_nobody(connect_and_say_hello), 0)
        assert reply.Result() == OP_FAILED
        assert reply.Message().decode() == (f"this NNAPI server serves only its own user (uid 0); the connecting "
                                            f"process is uid {NOBODY}")
        # The server said so in one line, and still serves its own user.
        assert _one_line(server.log(), "refused") == (
            f"executorch-nnapi NNAPI server: refused a connection from uid {NOBODY}: this server serves only its "
            "own user (uid 0)")
        own = _connect(server)
        assert _call(own, "Hello", Version=PROTOCOL_VERSION).Result() == NO_ERROR
        own.close()
    finally:
        server.stop()


def test_a_server_of_another_uid_is_refused_by_the_library(open_directory):
    """A listener that uid 65534 made where the library was told to look: the library hangs up
    before sending anything."""
    assert os.getuid() == 0, "the test listens as uid 65534: it runs as root"
    home = open_directory / "nobody"
    home.mkdir()
    os.chown(home, NOBODY, NOBODY)
    path = home / "s.sock"
    ready_read, ready_write = os.pipe()

    def listen_and_record_what_arrives() -> bytes:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(str(path))
            os.chmod(path, 0o666)
            listener.listen(1)
            os.write(ready_write, b"1")
            listener.settimeout(60)
            conn, _ = listener.accept()
            conn.settimeout(60)
            received = conn.recv(1 << 16)   # b"" once the library hangs up
            conn.close()
            return b"received %d bytes" % len(received)

    outcome: list[bytes] = []
    runner = threading.Thread(target=lambda: outcome.append(_as_nobody(listen_and_record_what_arrives)))
    runner.start()
    try:
        ready, _, _ = select.select([ready_read], [], [], 60)
        assert ready, "the uid 65534 listener did not start"
        client = _library_client({**os.environ, "EXECUTORCH_NNAPI_SERVER": str(path)})
    finally:
        runner.join(90)
        os.close(ready_read)
        os.close(ready_write)
    assert client.stdout.strip() == "0"
    assert _one_line(client.stderr, "forwarding NNAPI") == (
        f"executorch-nnapi forwarding NNAPI: ANeuralNetworks_getRuntimeFeatureLevel: the NNAPI server at {path} is "
        f"refused: it runs as uid {NOBODY}, not as this user (uid 0); models and inputs go only to a server of "
        "one's own user")
    assert outcome == [b"received 0 bytes"]
