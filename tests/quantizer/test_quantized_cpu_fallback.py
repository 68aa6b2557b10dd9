"""Issue 21, item 1: whatever NnapiPartitioner leaves on the CPU in a quantized model (an op NNAPI
lacks, the quantize / dequantize around it, a unit NNAPI refuses in 8 bits) does not break the
program. Each model goes through the documented flow (NnapiQuantizer, prepare_pt2e, calibration,
convert_pt2e, export, ``to_edge_transform_and_lower(..., partitioner=[NnapiPartitioner()])``,
``to_executorch()``) in a fresh process that imports nothing but torch, torchao, ExecuTorch's export
API and executorch_nnapi, and the .pte runs with ExecuTorch's ``Runtime`` in another fresh process
after ``import executorch_nnapi.runtime`` alone (quantized_user_flow.py): this process may already
hold ExecuTorch's quantized kernels from other tests, a user's does not. The result must be within
one output step of the convert_pt2e model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from quantized_reference import within_one_step

FLOW = Path(__file__).with_name("quantized_user_flow.py")
QUANTIZE = "quantized_decomposed.quantize_per_tensor"
DEQUANTIZE = "quantized_decomposed.dequantize_per_tensor"

# case -> the ops that must stay on the CPU (so that the case tests what it names)
CASES = {
    "start_flip_api28": ["aten.flip", QUANTIZE],
    # (A float op with no 8-bit form, cumsum, between 8-bit ones no longer leaves its quantize pair
    # on the CPU: DEQUANTIZE and QUANTIZE are delegated around it, tests/quantizer/test_float_islands.py.)
    "middle_dilated_max_pool": [DEQUANTIZE, "aten.max_pool2d_with_indices", QUANTIZE],
    "end_dilated_max_pool": [DEQUANTIZE, "aten.max_pool2d_with_indices", QUANTIZE],
    # (channel_shuffle's rank-5 view / transpose between 8-bit convs no longer stays on the CPU: its
    # exact quantize / dequantize pairs are removed and it is one view chain, test_quantized_views.py.)
    # (Nor does a rank-5 permute that also swaps H and W: one view chain, test_quantized_views.py.)
    "bilinear_upsample_api29": [DEQUANTIZE, "aten.upsample_bilinear2d", QUANTIZE],
}


def flow(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, str(FLOW), *args], capture_output=True, text=True, env=env, timeout=600)


def test_quantized_models_with_cpu_ops_lower_and_run_through_the_documented_api(tmp_path):
    """Every case of CASES, lowered in one fresh process and run in another (process starts are
    most of a small case's time, so the cases share them)."""
    lowered = flow("lower", ",".join(CASES), str(tmp_path))
    assert lowered.returncode == 0, lowered.stderr[-3000:]
    ran = flow("run", str(tmp_path))
    assert ran.returncode == 0, ran.stderr[-3000:]
    for case, on_cpu in CASES.items():
        expected = torch.load(tmp_path / case / "expected.pt")
        actual = torch.load(tmp_path / case / "actual.pt")
        cpu_ops = " ".join(expected["cpu_ops"])
        for op in on_cpu:
            assert op in cpu_ops, f"{case}: {op} is not on the CPU: {expected['cpu_ops']}"
        # The runtime process got the CPU kernels of quantize / dequantize from executorch_nnapi.runtime.
        assert "executorch.kernels.quantized" not in actual["modules"], case
        for want, got in zip(expected["expected"], actual["actual"], strict=True):
            assert got.shape == want.shape, case
            assert within_one_step(want, got, expected["step"]) == 1.0, \
                f"{case}: max error {(got - want).abs().max().item()} > one step {expected['step']}"


def test_without_the_quantized_library_lowering_stops_in_one_line_saying_what_to_install(tmp_path):
    lowered = flow("lower-without-quantized-library", "middle_dilated_max_pool", str(tmp_path))
    assert lowered.returncode != 0
    last = lowered.stderr.strip().splitlines()[-1]
    assert last.startswith("executorch_nnapi.partitioners.cpu_kernels.NoCpuKernelError: "), lowered.stderr[-3000:]
    # The node, its op and source line, and what to install or load.
    assert "quantized_decomposed::" in last and "quantized_user_flow.py" in last, last
    assert "install an executorch build that ships executorch.kernels.quantized" in last, last
    assert "torch.ops.load_library" in last, last


def test_the_runner_runs_a_quantized_model_with_quantize_and_dequantize_on_the_cpu(tmp_path):
    """nnapi_executor_runner links ExecuTorch's quantized CPU kernels (runtime/CMakeLists.txt)."""
    from executorch_nnapi.runtime.backend_library import runner_path

    lowered = flow("lower", "bilinear_upsample_api29", str(tmp_path))
    assert lowered.returncode == 0, lowered.stderr[-3000:]
    case = tmp_path / "bilinear_upsample_api29"
    expected = torch.load(case / "expected.pt")
    x, want = expected["inputs"][1], expected["expected"][1]
    x.numpy().astype("<f4").tofile(tmp_path / "x.bin")
    ran = subprocess.run([runner_path(), "--model", str(case / "model.pte"), "--input",
                          f"{tmp_path / 'x.bin'}:{','.join(map(str, x.shape))}", "--output-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0 and (tmp_path / "output_0.bin").exists(), ran.stdout + ran.stderr[-3000:]
    assert json.loads((tmp_path / "output_0.json").read_text())["dtype"] == "Float"
    got = torch.from_numpy(np.fromfile(tmp_path / "output_0.bin", dtype="<f4").reshape(want.shape))
    assert within_one_step(want, got, expected["step"]) == 1.0, \
        f"max error {(got - want).abs().max().item()} > one step {expected['step']}"
