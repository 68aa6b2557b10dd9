"""Programs meet devices of other feature levels: a program lowered for API 30 runs on the host
driver acting as Android 12 and NNAPI feature levels 6-8 (also when the driver's level comes from
EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL given as an API level, in a fresh process), and a program
that needs a newer level than the device's is refused at load with both levels named."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.runtime import last_error

from op_harness import Lambda, lower, relative_max_error, run_pte

TESTS = Path(__file__).resolve().parents[1]


class Api30Model(torch.nn.Module):
    """Ops of several levels up to API 30: conv, hardswish (30), mean, linear, softmax."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.hardswish(self.conv(x)).mean((2, 3))
        return torch.softmax(self.fc(y), -1)


@pytest.fixture(scope="module")
def api30_program():
    torch.manual_seed(0)
    model = Api30Model().eval()
    x = torch.randn(2, 3, 16, 16)
    lowered = lower(model, (x,), feature_level=30)
    assert lowered.num_delegates == 1 and not lowered.cpu_ops
    assert max(b.min_feature_level for b in lowered.blobs) <= 30
    with torch.no_grad():
        return lowered.pte, x, model(x)


@pytest.mark.parametrize("device_level", [31, 32, 1000006, 1000007, 1000008, 33, 34, 35])
def test_api_30_program_runs_on_newer_devices(api30_program, device_level) -> None:
    pte, x, want = api30_program
    before = get_driver().executions_computed
    try:
        got = run_pte(pte, [x], device_level)[0]
    finally:
        get_driver().feature_level = 30
    assert get_driver().executions_computed > before  # NNAPI ran it, not a CPU fallback
    assert relative_max_error(got, want) < 1e-5


def test_host_feature_level_from_the_environment_accepts_api_levels(api30_program, tmp_path) -> None:
    """EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL=34: the driver acts as NNAPI feature level 8 (a fresh process,
    so the variable is read where the runtime installs the driver) and runs the API-30 program."""
    pte, x, want = api30_program
    (tmp_path / "model.pte").write_bytes(pte)
    torch.save((x, want), tmp_path / "io.pt")
    script = textwrap.dedent(f"""
        import torch
        import executorch_nnapi.runtime  # installs the host driver at $EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL
        from executorch.runtime import Runtime
        from executorch_nnapi.host_driver import get_driver
        x, want = torch.load({str(tmp_path / 'io.pt')!r})
        program = Runtime.get().load_program(open({str(tmp_path / 'model.pte')!r}, 'rb').read())
        got = program.load_method("forward").execute([x])[0]
        print(get_driver().feature_level, get_driver().executions_computed, float((got - want).abs().max()))
    """)
    env = {**os.environ, "EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL": "34"}
    env.pop("EXECUTORCH_NNAPI_LIBRARY", None)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300,
                            cwd=TESTS)
    assert result.returncode == 0, result.stderr[-2000:]
    level, computed, err = result.stdout.split()
    assert int(level) == 1000008 and int(computed) >= 1 and float(err) < 1e-5


def test_program_of_a_newer_level_is_refused_naming_both_levels(capfd) -> None:
    lowered = lower(Lambda(lambda x: torch.flip(x, [1]) * 2), (torch.randn(2, 3),), feature_level=34)
    assert lowered.nnapi_operations == ["REVERSE", "MUL"]
    capfd.readouterr()
    with pytest.raises(RuntimeError, match="Failed to load method forward"):
        run_pte(lowered.pte, [torch.randn(2, 3)], 31)
    get_driver().feature_level = 30
    message = last_error()
    # The blob needs the highest level of the operations it holds (REVERSE's), not the target's.
    assert ("the model needs NNAPI feature level 1000007 (NNAPI feature level 7), but this NNAPI "
            "runtime is at feature level 31 (Android 12)") in message, message
