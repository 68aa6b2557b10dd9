"""A dead or hung NNAPI server ends the aarch64 runner's NNAPI call with DEAD_OBJECT and a message
(the forwarding library's timeout, host_driver/forwarding/forwarding_connection.cpp), never a
hung runner; a server that was stopped serves the next client when it resumes."""

from __future__ import annotations

import json
import re
import signal
import subprocess

import pytest
import torch
from torch.export import export

from aarch64_runners import Runners, wait_for
from executorch_nnapi.partitioners import NnapiPartitioner
from nnapi_server import NnapiServer
from runner_io import SmallNet, write_pte

pytestmark = pytest.mark.xdist_group("aarch64")

TIMEOUT_MS = 3000


def _computations(log) -> int:
    """burstCompute calls the server's driver has run so far (its JSON-lines call log)."""
    if not log.exists():
        return 0
    return sum(json.loads(line)["call"] == "burstCompute" for line in log.read_text().splitlines() if line)


def _start_endless_run(runners: Runners, pte, tmp_path) -> subprocess.Popen:
    """The aarch64 runner on ``pte`` for a million iterations, each a burst computation."""
    command, env = runners.command("aarch64", ["--model", str(pte), "--iters", "1000000", "--warmup", "0",
                                               "--option", "use_burst=true"])
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**env, "EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS": str(TIMEOUT_MS)})


def _wait_until_computing(run: subprocess.Popen, log, count: int) -> None:
    wait_for(lambda: _computations(log) >= count or run.poll() is not None, 120, "the runner's computations")
    assert run.poll() is None, f"the runner ended before the server was stopped: {run.communicate()}"


def _ended_with_dead_object(run: subprocess.Popen, server: NnapiServer, how: str) -> str:
    try:
        _, stderr = run.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        run.kill()
        raise AssertionError("the runner hung after its NNAPI server stopped answering")
    assert run.returncode == 1, stderr
    error = [line for line in stderr.splitlines() if line.startswith("error: running method 'forward' failed")]
    assert error, stderr
    # The call that met the dead server may be one whose failure the backend does not report (an
    # Execution_free); then the next call reports it, saying the connection was lost earlier.
    socket_path = re.escape(server.socket_path)
    assert re.search(rf"DEAD_OBJECT \(14\): ANeuralNetworks\w+: the (NNAPI server at {socket_path}|connection "
                     rf"to the NNAPI server at {socket_path} was lost earlier: it) {how}", error[0]), error[0]
    return error[0]


def test_a_hung_then_a_killed_server_end_the_run_with_dead_object(aarch64_build, tmp_path):
    torch.manual_seed(0)
    model = SmallNet().eval()
    pte = write_pte(tmp_path / "m.pte", {"forward": export(model, (torch.randn(1, 3, 16, 16),))},
                    {"forward": [NnapiPartitioner()]})
    log = tmp_path / "driver.jsonl"
    server = NnapiServer(tmp_path / "s.sock", env={"EXECUTORCH_NNAPI_HOST_DRIVER_LOG": str(log)})
    runners = Runners(aarch64_build, server.socket_path)
    try:
        # Hung: the server stops (SIGSTOP) in the middle of the run; the call times out.
        run = _start_endless_run(runners, pte, tmp_path)
        _wait_until_computing(run, log, 3)
        server.process.send_signal(signal.SIGSTOP)
        _ended_with_dead_object(run, server, f"did not answer within {TIMEOUT_MS} ms")
        # Resumed, the server drops the timed-out client and serves a new one.
        server.process.send_signal(signal.SIGCONT)
        done = runners.run("aarch64", pte, out=tmp_path / "after")
        assert len(done.outputs) == 2
        # Killed: the connection closes under the call.
        before = _computations(log)
        run = _start_endless_run(runners, pte, tmp_path)
        _wait_until_computing(run, log, before + 3)
        server.process.kill()
        _ended_with_dead_object(run, server, r"(closed the connection|failed \()")
    finally:
        server.stop()
