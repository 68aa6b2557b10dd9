"""nnapi_executor_runner, the C++ runner, on the host.

The runner is a process that never started in Python: the host shim starts the Python driver
inside it (host_driver/shim/nnapi_host_shim.c). Its output files must match eager torch; load-time
options (--option) must reach the driver and win over CompileSpecs; without NNAPI it must run
the `forward_cpu` method when the .pte has one and fail with one clear line when it has not.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from torch.export import Dim, export

from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import runner_path
from runner_io import SmallNet, read_output, write_input, write_pte


@pytest.fixture(scope="module")
def model() -> SmallNet:
    torch.manual_seed(0)
    return SmallNet().eval()


def run_runner(*args: str, env_extra: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env_extra or {})}
    result = subprocess.run([runner_path(), *args], capture_output=True, text=True, env=env, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"runner failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def test_runner_outputs_match_eager(tmp_path, model):
    x = torch.randn(1, 3, 16, 16)
    ep = export(model, (x,))
    pte = write_pte(tmp_path / "m.pte", {"forward": ep}, {"forward": [NnapiPartitioner()]})
    x.numpy().astype("<f4").tofile(tmp_path / "x.bin")
    out = tmp_path / "out"
    out.mkdir()
    result = run_runner("--model", str(pte), "--input", str(tmp_path / "x.bin"), "--iters", "5", "--warmup", "2",
                        "--output-dir", str(out))
    assert "method: forward" in result.stdout
    assert "NNAPI compilation:" in result.stdout and "(1 compilations)" in result.stdout
    assert "latency over 5 iterations (after 2 warmup): min" in result.stdout
    expected = model(x)
    for i, want in enumerate(expected):
        got = read_output(out, i)
        assert got.shape == want.shape
        torch.testing.assert_close(got, want.detach(), rtol=1e-4, atol=1e-5)


def test_runner_dynamic_shape_input_in_steps(tmp_path, model):
    """Two sizes in one process, each a step (--then) of the one loaded method."""
    x = torch.randn(1, 3, 16, 16)
    ep = export(model, (x,), dynamic_shapes={"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}})
    pte = write_pte(tmp_path / "d.pte", {"forward": ep}, {"forward": [NnapiPartitioner()]})
    x2, x3 = torch.randn(1, 3, 24, 40), torch.randn(1, 3, 8, 12)
    out = tmp_path / "out"
    out.mkdir()
    result = run_runner("--model", str(pte), "--input", write_input(tmp_path / "x2.bin", x2), "--then",
                        "--input", write_input(tmp_path / "x3.bin", x3), "--iters", "2", "--output-dir", str(out))
    assert "(2 compilations)" in result.stdout
    for step, xs in enumerate((x2, x3)):
        torch.testing.assert_close(read_output(out / f"step_{step}", 0), model(xs)[0].detach(), rtol=1e-4, atol=1e-5)


def test_load_time_options_reach_the_driver_and_win(tmp_path, model):
    ep = export(model, (torch.randn(1, 3, 16, 16),))
    pte = write_pte(tmp_path / "o.pte", {"forward": ep},
                    {"forward": [NnapiPartitioner(execution_preference="low_power", priority="low")]})
    log = tmp_path / "driver.jsonl"
    env = {"EXECUTORCH_NNAPI_HOST_DRIVER_LOG": str(log),
           "EXECUTORCH_NNAPI_HOST_DEVICES": "nnapi-reference:cpu,host-npu:accelerator"}
    run_runner("--model", str(pte), "--iters", "3", "--warmup", "0",
               "--option", "execution_preference=sustained_speed", "--option", "priority=high",
               "--option", "accelerator_name=host-npu", "--option", "use_burst=true",
               "--option", "execution_timeout_ms=100", "--option", f"cache_dir={tmp_path}", env_extra=env)
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    by_name = {}
    for c in calls:
        by_name.setdefault(c["call"], []).append(c)
    assert by_name["setPreference"] == [{"call": "setPreference", "preference": 2}]
    assert by_name["setPriority"] == [{"call": "setPriority", "priority": 110}]
    assert by_name["createForDevices"] == [{"call": "createForDevices", "devices": ["host-npu"]}]
    assert by_name["setCaching"][0]["cache_dir"] == str(tmp_path)
    assert len(by_name["Burst_create"]) == 1 and len(by_name["burstCompute"]) == 3
    assert [c["duration_ns"] for c in by_name["Execution_setTimeout"]] == [100_000_000] * 3


def test_unknown_load_time_option_is_one_clear_error(tmp_path, model):
    ep = export(model, (torch.randn(1, 3, 16, 16),))
    pte = write_pte(tmp_path / "u.pte", {"forward": ep}, {"forward": [NnapiPartitioner()]})
    result = run_runner("--model", str(pte), "--option", "prefernce=low_power", check=False)
    assert result.returncode == 1
    assert "unknown NnapiBackend option 'prefernce'; the options are: max_cached_shapes, execution_preference" \
        in result.stderr


def two_method_pte(tmp_path: Path, model: torch.nn.Module) -> Path:
    ep = export(model, (torch.randn(1, 3, 16, 16),))
    ep_cpu = export(model, (torch.randn(1, 3, 16, 16),))
    return write_pte(tmp_path / "two.pte", {"forward": ep, "forward_cpu": ep_cpu},
                     {"forward": [NnapiPartitioner()], "forward_cpu": [XnnpackPartitioner()]})


def test_without_nnapi_the_runner_picks_forward_cpu(tmp_path, model):
    pte = two_method_pte(tmp_path, model)
    x = torch.randn(1, 3, 16, 16)
    x.numpy().astype("<f4").tofile(tmp_path / "x.bin")
    out = tmp_path / "out"
    out.mkdir()
    hidden = {"EXECUTORCH_NNAPI_LIBRARY": str(tmp_path / "hidden" / "libneuralnetworks.so")}
    result = run_runner("--model", str(pte), "--input", str(tmp_path / "x.bin"), "--output-dir", str(out),
                        env_extra=hidden)
    assert "running method 'forward_cpu' instead of 'forward'" in result.stdout
    assert "method: forward_cpu" in result.stdout
    logged = [line for line in result.stderr.splitlines() if "] NnapiBackend: NNAPI is not available" in line]
    assert len(logged) == 1 and "cannot load the NNAPI library" in logged[0]
    torch.testing.assert_close(read_output(out, 1), model(x)[1].detach(), rtol=1e-4, atol=1e-5)
    # With NNAPI present the same file runs the NNAPI method.
    assert "method: forward\n" in run_runner("--model", str(pte)).stdout


def test_without_nnapi_and_no_cpu_method_the_load_fails_in_one_line(tmp_path, model):
    ep = export(model, (torch.randn(1, 3, 16, 16),))
    pte = write_pte(tmp_path / "n.pte", {"forward": ep}, {"forward": [NnapiPartitioner()]})
    hidden = {"EXECUTORCH_NNAPI_LIBRARY": str(tmp_path / "hidden" / "libneuralnetworks.so")}
    result = run_runner("--model", str(pte), env_extra=hidden, check=False)
    assert result.returncode == 1
    # One backend log line (ET_LOG: logcat on Android), and the runner's own error repeats the
    # reason on the terminal.
    logged = [line for line in result.stderr.splitlines() if "] NnapiBackend: NNAPI is not available" in line]
    assert len(logged) == 1, result.stderr
    assert "error: loading method 'forward' failed (ExecuTorch error 0x20): NnapiBackend: NNAPI is not available: " \
           "cannot load the NNAPI library" in result.stderr


def test_a_message_longer_than_et_logs_buffer_is_logged_whole(tmp_path, model):
    # ET_LOG cuts a line at 256 bytes; a message naming a deep library path is logged over
    # several lines ("NnapiBackend: ... " continues one) so nothing of it is lost.
    ep = export(model, (torch.randn(1, 3, 16, 16),))
    pte = write_pte(tmp_path / "n.pte", {"forward": ep}, {"forward": [NnapiPartitioner()]})
    library = tmp_path / ("d" * 150) / ("e" * 150) / "libneuralnetworks.so"
    result = run_runner("--model", str(pte), env_extra={"EXECUTORCH_NNAPI_LIBRARY": str(library)}, check=False)
    assert result.returncode == 1
    pieces = [line.split("] NnapiBackend: ", 1)[1] for line in result.stderr.splitlines()
              if "] NnapiBackend: " in line]
    assert len(pieces) >= 3 and all(piece.startswith("... ") for piece in pieces[1:]), result.stderr
    logged = "".join(piece.removeprefix("... ") for piece in pieces).replace(" ", "")
    assert str(library).replace(" ", "") in logged, result.stderr
