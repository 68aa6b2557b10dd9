"""The whole-model 8-bit checks under a second CPU capability.

torch's float kernels differ by instruction set (AVX-512, AVX2, none), which moves batch-norm
statistics, observer ranges and so every quantization scale of a model. The 8-bit whole-model
expectations (tests/models/test_quantized_models.py) must hold on any user's CPU, so those of
mobilenet_v3_large (uint8 at API 30; the model that once failed on an AVX2 machine) run once
more here in a child process whose torch uses another capability than this one's. All six
(three models, uint8 and int8) ran so once (466 s); the suite's time budget keeps the child to
this one: int8 differs from uint8 only by the zero points' offset of 128 (their mean SQNR
within 0.02 dB of each other).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
import torch

pytestmark = pytest.mark.slow

HERE = pathlib.Path(__file__).resolve().parent
# The capability the child uses, by the one this process has (ATEN_CPU_CAPABILITY's names).
OTHER = {"AVX512": "avx2", "AVX2": "default"}


def other_capability() -> str:
    return OTHER.get(torch.backends.cpu.get_cpu_capability(), "default")


def _child_env(capability: str) -> dict[str, str]:
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def test_the_child_runs_under_the_other_capability():
    wanted = other_capability()
    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                         env=_child_env(wanted), capture_output=True, text=True, check=True).stdout.strip()
    assert out.lower() == wanted.lower() != torch.backends.cpu.get_cpu_capability().lower()


def test_whole_model_8bit_checks_hold_under_another_capability():
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-s",
               str(HERE / "test_quantized_models.py"), "-k", "test_model_quantized and mobilenet_v3_large and uint8"]
    done = subprocess.run(command, env=_child_env(other_capability()), cwd=HERE.parents[1], capture_output=True,
                          text=True)
    figures = "\n".join(line for line in done.stdout.splitlines() if "SQNR" in line)
    assert done.returncode == 0, f"under ATEN_CPU_CAPABILITY={other_capability()}:\n{done.stdout[-4000:]}"
    assert figures.count("SQNR") == 1, done.stdout[-2000:]
