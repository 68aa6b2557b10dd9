"""bench/zoo_benchmark.py's quantized mode, on a tiny CNN (the benchmark itself runs torchvision models)."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import torch

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "zoo_benchmark.py"


def _bench_module():
    spec = importlib.util.spec_from_file_location("zoo_benchmark", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_quantized_mode_measures_both_backends_on_a_tiny_cnn(capsys):
    bench = _bench_module()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 8, 3, groups=8), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                                torch.nn.Flatten(), torch.nn.Linear(8, 10)).eval()
    bench.randomize_batch_norms(model, 16)
    row = bench.bench_quantized("tiny", model, 16, runs=1, calibration_size=4, held_out=2)
    # Each backend takes the whole quantized model as one subgraph.
    assert (row.nnapi_subgraphs, row.nnapi_cpu_ops) == (1, 0)
    assert (row.xnnpack_subgraphs, row.xnnpack_cpu_ops) == (1, 0)
    assert 0 < row.nnapi_pte_mb and 0 < row.xnnpack_pte_mb and 0 < row.float_pte_mb
    assert min(row.lower_float_s, row.lower_nnapi_s, row.lower_xnnpack_s, row.xnnpack_ms) > 0
    # 8-bit results near the float model's, and the host .pte near convert_pt2e's (same calibration).
    assert row.sqnr_nnapi > 20 and row.sqnr_xnnpack > 20, row
    assert row.sqnr_nnapi >= row.sqnr_nnapi_reference - 1.0, row
    bench.print_table(bench.QUANTIZED_HEADER, [("tiny", lambda: row)])
    table = capsys.readouterr().out.splitlines()
    assert table[0] == "| " + " | ".join(bench.QUANTIZED_HEADER) + " |"
    assert table[2].startswith("| tiny | ") and table[2].count("|") == len(bench.QUANTIZED_HEADER) + 1
