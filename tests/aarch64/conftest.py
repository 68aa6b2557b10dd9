"""Fixtures of the aarch64 tests: the backend, the runner and the forwarding libneuralnetworks.so
built for aarch64 Linux (scripts/build_aarch64.sh, against ExecuTorch's own aarch64 wheel), run
under ``qemu-aarch64 -L /usr/aarch64-linux-gnu``, and the NNAPI server on the host that answers
the forwarded calls with the host driver.

The x86 runner runs every .pte through the same server (with the forwarding library built for
x86), so the two see the same driver process and any difference in an output is the ARM
build's. The tests of this folder share one xdist worker (``pytestmark`` of each module: one build
check, one server).
"""

from __future__ import annotations

import fcntl
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import pytest
import torch

from executorch_nnapi.runtime.backend_library import runner_path
from runner_io import read_outputs

ROOT = Path(__file__).resolve().parents[2]
SYSROOT = "/usr/aarch64-linux-gnu"
BUILD = ROOT / "build" / "aarch64-linux-gnu"
AARCH64_RUNNER = BUILD / "runtime" / "nnapi_executor_runner"
AARCH64_NNAPI_DIR = BUILD / "host_driver" / "forwarding"
X86_NNAPI = Path(runner_path()).parents[2] / "host_driver" / "forwarding" / "libneuralnetworks.so"


def missing_tool() -> Optional[str]:
    """Why the aarch64 tests cannot run here (a system tool is absent), or None."""
    if shutil.which("qemu-aarch64") is None:
        return "qemu-aarch64 is absent (apt-get install qemu-user)"
    if shutil.which("aarch64-linux-gnu-g++") is None:
        return "the aarch64 cross compiler is absent (apt-get install g++-aarch64-linux-gnu)"
    if not Path(SYSROOT, "lib", "ld-linux-aarch64.so.1").exists():
        return f"the aarch64 C library is absent from {SYSROOT} (apt-get install libc6-arm64-cross)"
    return None


@pytest.fixture(scope="session")
def aarch64_build() -> Path:
    """The aarch64 build, brought up to date (a no-op when nothing changed; set-up built it)."""
    reason = missing_tool()
    if reason:
        pytest.skip(reason)
    # Workers of another run may build at the same time: one at a time.
    BUILD.parent.mkdir(parents=True, exist_ok=True)
    with open(BUILD.parent / ".aarch64-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = subprocess.run([str(ROOT / "scripts" / "build_aarch64.sh"), str(BUILD)], capture_output=True,
                                text=True, timeout=1200)
    assert result.returncode == 0, f"scripts/build_aarch64.sh failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return BUILD


class NnapiServer:
    """``python -m executorch_nnapi.host_driver.forwarding_server`` on a socket of its own."""

    def __init__(self, socket_path: Path, env: Optional[dict] = None, timeout_ms: int = 60000) -> None:
        self.socket_path = str(socket_path)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "executorch_nnapi.host_driver.forwarding_server", "--socket", self.socket_path,
             "--timeout-ms", str(timeout_ms)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
        ready, _, _ = select.select([self.process.stdout], [], [], 120)
        line = self.process.stdout.readline() if ready else ""
        if "listening on" not in line:
            self.stop()
            raise AssertionError(f"the NNAPI server did not start: {line}{self.process.stderr.read()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="session")
def nnapi_server(tmp_path_factory) -> NnapiServer:
    reason = missing_tool()
    if reason:
        pytest.skip(reason)
    server = NnapiServer(tmp_path_factory.mktemp("nnapi-server") / "server.sock")
    yield server
    server.stop()


@dataclass
class Run:
    """One runner process: its result and the outputs of each step it wrote."""
    result: subprocess.CompletedProcess
    steps: list[list[torch.Tensor]]

    @property
    def outputs(self) -> list[torch.Tensor]:
        (only,) = self.steps
        return only


@dataclass
class Runners:
    """The aarch64 runner under qemu and the x86 runner, both on NNAPI through one server."""
    build: Path
    socket: str

    def command(self, arch: str, args: Sequence[str], nnapi: bool = True) -> tuple[list[str], dict]:
        """The command line and environment of the ``arch`` ("aarch64" / "x86") runner; with
        ``nnapi`` False the aarch64 one finds no libneuralnetworks.so."""
        env = {**os.environ, "EXECUTORCH_NNAPI_SERVER": self.socket}
        env.pop("EXECUTORCH_NNAPI_LIBRARY", None)
        if arch == "x86":
            env["EXECUTORCH_NNAPI_LIBRARY"] = str(X86_NNAPI)
            return [runner_path(), *args], env
        # As on a phone: the backend dlopens "libneuralnetworks.so" from the library path.
        guest_env = [f"EXECUTORCH_NNAPI_SERVER={self.socket}"] + ([f"LD_LIBRARY_PATH={AARCH64_NNAPI_DIR}"] if nnapi else [])
        guest_env += [f"{k}={v}" for k, v in env.items() if k == "EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS"]
        qemu = ["qemu-aarch64", "-L", SYSROOT] + [a for kv in guest_env for a in ("-E", kv)]
        return [*qemu, str(AARCH64_RUNNER), *args], env

    def run(self, arch: str, pte: Path, inputs: Sequence[Sequence[str]] = ((),), *extra: str, out: Path,
            env: Optional[dict] = None, check: bool = True, nnapi: bool = True) -> Run:
        """Runs ``pte`` once (no warmup), each entry of ``inputs`` a step of --input values."""
        args = ["--model", str(pte), "--iters", "1", "--warmup", "0", "--output-dir", str(out), *extra]
        for k, step in enumerate(inputs):
            args += (["--then"] if k else []) + [a for value in step for a in ("--input", value)]
        out.mkdir(parents=True, exist_ok=True)
        command, full_env = self.command(arch, args, nnapi)
        result = subprocess.run(command, capture_output=True, text=True, env={**full_env, **(env or {})}, timeout=600)
        if check and result.returncode != 0:
            raise AssertionError(f"{arch} runner failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
        dirs = [out] if len(inputs) == 1 else [out / f"step_{k}" for k in range(len(inputs))]
        return Run(result, [read_outputs(d) if d.exists() else [] for d in dirs])

    def both(self, pte: Path, inputs: Sequence[Sequence[str]] = ((),), *extra: str, out: Path) -> tuple[Run, Run]:
        """(aarch64 run, x86 run) of the same .pte and inputs; asserts every output is bit-identical."""
        arm = self.run("aarch64", pte, inputs, *extra, out=out / "aarch64")
        x86 = self.run("x86", pte, inputs, *extra, out=out / "x86")
        for k, (a_step, x_step) in enumerate(zip(arm.steps, x86.steps, strict=True)):
            assert len(a_step) == len(x_step) > 0, (k, len(a_step), len(x_step))
            for i, (a, x) in enumerate(zip(a_step, x_step)):
                assert a.dtype == x.dtype and a.shape == x.shape, (k, i)
                assert a.numpy().tobytes() == x.numpy().tobytes(), \
                    f"step {k} output {i}: aarch64 differs from x86 by up to {(a.double() - x.double()).abs().max()}"
        return arm, x86


@pytest.fixture(scope="session")
def runners(aarch64_build, nnapi_server) -> Runners:
    assert X86_NNAPI.exists(), f"{X86_NNAPI} is missing: reinstall the package (pip install .)"
    return Runners(aarch64_build, nnapi_server.socket_path)


def wait_for(predicate, timeout_s: float, what: str) -> None:
    """Polls ``predicate`` until it holds; fails naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
