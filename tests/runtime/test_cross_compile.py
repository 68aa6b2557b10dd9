"""Every runtime and runner source compiles for aarch64 (Linux and, with stand-ins, Android) with -Werror."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("aarch64-linux-gnu-g++") is None,
                    reason="the aarch64 cross compiler is absent (apt-get install g++-aarch64-linux-gnu)")
def test_runtime_compiles_for_aarch64_linux_and_android():
    result = subprocess.run([str(ROOT / "scripts" / "cross_compile_check.sh"), sys.executable],
                            capture_output=True, text=True, timeout=900, env=os.environ)
    assert result.returncode == 0, result.stdout + result.stderr
    sources = len(list((ROOT / "runtime" / "src").glob("*.cpp"))) + len(list((ROOT / "runtime" / "runner").glob("*.cpp")))
    assert f"ok: {sources} C++ sources for aarch64-linux" in result.stdout
    assert f"ok: {sources} C++ sources for aarch64-android" in result.stdout
    assert "ok: host_driver/shim/nnapi_host_shim.c for aarch64-linux" in result.stdout
