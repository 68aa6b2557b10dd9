"""Fixtures of the aarch64 tests: the backend, the runner and the forwarding libneuralnetworks.so
built for aarch64 Linux (scripts/build_aarch64.sh, against ExecuTorch's own aarch64 wheel), and the
NNAPI server on the host that answers the forwarded calls with the host driver (how they are run:
tests/aarch64_runners.py). The tests of this folder share one xdist worker (``pytestmark`` of each
module: one build check, one server).
"""

from __future__ import annotations

import fcntl
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from aarch64_runners import BUILD, ROOT, X86_NNAPI, Runners, missing_tool
from nnapi_server import NnapiServer


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


@pytest.fixture(scope="session")
def nnapi_server(tmp_path_factory) -> Iterator[NnapiServer]:
    reason = missing_tool()
    if reason:
        pytest.skip(reason)
    server = NnapiServer(tmp_path_factory.mktemp("nnapi-server") / "server.sock")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def runners(aarch64_build, nnapi_server) -> Runners:
    assert X86_NNAPI.exists(), f"{X86_NNAPI} is missing: reinstall the package (pip install .)"
    return Runners(aarch64_build, nnapi_server.socket_path)
