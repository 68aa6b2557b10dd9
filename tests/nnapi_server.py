"""The NNAPI server (host_driver/forwarding_server.py) as a subprocess of a test, on a socket of
its own: tests/aarch64/ (the aarch64 runner's NNAPI) and tests/host_driver/test_forwarding_server.py."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Optional


class NnapiServer:
    """``python -m executorch_nnapi.host_driver.forwarding_server`` on a socket of its own; its
    stderr (the clients it dropped, and why) goes to ``<socket>.log``. One torch thread unless
    OMP_NUM_THREADS says otherwise: on the shared 2-core machine mobilenet_v2 took 1.5 s per run
    with torch's default, 0.1 s with one."""

    def __init__(self, socket_path: Path, env: Optional[dict] = None, timeout_ms: int = 60000) -> None:
        self.socket_path = str(socket_path)
        self.log_path = Path(f"{socket_path}.log")
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "executorch_nnapi.host_driver.forwarding_server", "--socket",
                 self.socket_path, "--timeout-ms", str(timeout_ms)],
                stdout=subprocess.PIPE, stderr=log, text=True,
                env={**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"), **(env or {})})
        ready, _, _ = select.select([self.process.stdout], [], [], 120)
        line = self.process.stdout.readline() if ready else ""
        if "listening on" not in line:
            self.stop()
            raise AssertionError(f"the NNAPI server did not start: {line}{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
