"""The NNAPI server (host_driver/forwarding_server.py) on the host, without qemu: the x86 runner with
the forwarding libneuralnetworks.so built for x86 runs a .pte through it (load-time options
reach the driver across the socket), and the server keeps its side of the protocol: a client that
stalls in the middle of a message is dropped after the timeout while others are served, a client
of another protocol version is refused, and handles belong to the connection that made them.
The aarch64 runs through the same server are in tests/aarch64/."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time

import flatbuffers
import pytest
import torch
from torch.export import export

from aarch64_runners import X86_NNAPI
from executorch_nnapi.host_driver.errors import BAD_DATA, NO_ERROR, OP_FAILED
from executorch_nnapi.host_driver.forwarding_calls import PROTOCOL_VERSION, protocol_module, protocol_table
from executorch_nnapi.host_driver.forwarding_server import read_message, send_message
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import runner_path
from nnapi_server import NnapiServer
from runner_io import SmallNet, read_output, write_input, write_pte

SERVER_TIMEOUT_MS = 1000


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
