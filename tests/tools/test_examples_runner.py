"""examples/run_on_host.sh: export, the C++ runner on the host, and the comparison with eager."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_on_host_example(tmp_path):
    env = {**os.environ, "PYTHON": sys.executable}
    result = subprocess.run([str(ROOT / "examples" / "run_on_host.sh"), "mobilenet_v3_small", str(tmp_path)],
                            capture_output=True, text=True, timeout=900, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "latency over 10 iterations (after 2 warmup): min" in result.stdout
    assert "runner output Float[1, 1000] vs eager: max relative error" in result.stdout
