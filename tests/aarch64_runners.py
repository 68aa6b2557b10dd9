"""The aarch64 nnapi_executor_runner under ``qemu-aarch64 -L /usr/aarch64-linux-gnu`` and the x86
one, both with NNAPI forwarded to one NNAPI server (host_driver/forwarding_server.py), for the
tests in tests/aarch64/.

The aarch64 build is scripts/build_aarch64.sh's (build/aarch64-linux-gnu/): the backend and the
runner against ExecuTorch's aarch64 wheel, and the forwarding libneuralnetworks.so, which the
backend dlopens from the library path as on a phone. The x86 runner is the installed one with the
forwarding library built for x86, so both runners see the same driver process and any difference
in an output is the ARM build's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import torch

from executorch_nnapi.runtime.backend_library import runner_path
from runner_io import read_outputs

ROOT = Path(__file__).resolve().parents[1]
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


def wait_for(predicate, timeout_s: float, what: str) -> None:
    """Polls ``predicate`` until it holds; fails naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
