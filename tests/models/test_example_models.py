"""ExecuTorch's own example models (``executorch.examples.models``), the quick ones: each lowers
with NnapiPartitioner to one subgraph with no compute op on the CPU, and its .pte, run through the
C++ backend on the host driver, matches eager. The large ones (torchvision CNNs, ViT, llama2) run
only in bench/example_models.py, which also measures XNNPACK beside them.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest
import torch

from op_harness import relative_max_error, run_pte

from executorch_nnapi.partitioners import NnapiPartitioner

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "example_models.py"

pytestmark = pytest.mark.slow


def _bench_module():
    spec = importlib.util.spec_from_file_location("example_models", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = _bench_module()

FLOAT32_EXAMPLES = ["mul", "linear", "add", "add_mul", "softmax", "conv1d", "lstm", "deep_autoencoder", "ds_cnn",
                    "resnet8", "mobilenet_v1_025"]


@pytest.mark.xdist_group("example_models")
@pytest.mark.parametrize("name", FLOAT32_EXAMPLES)
def test_quick_example_model_is_one_subgraph_and_matches_eager(name):
    example = bench.EXAMPLES[name]()
    _, (subgraphs, cpu_ops), pte = bench.lower(example, NnapiPartitioner(bench.FEATURE_LEVEL))
    assert (subgraphs, cpu_ops) == (1, 0)
    assert bench.max_relative_error(pte, example) < 1e-5


@pytest.mark.xdist_group("example_models")
def test_bfloat16_sdpa_example_converts_at_the_boundary_only():
    """The sdpa example's inputs are bfloat16, which NNAPI has no operand type for: the attention
    runs in float32 in one subgraph, and only the dtype conversions and the layout copies that
    read or write bfloat16 stay on the CPU."""
    example = bench.EXAMPLES["sdpa"]()
    partitioner = NnapiPartitioner(bench.FEATURE_LEVEL)
    _, (subgraphs, cpu_ops), pte = bench.lower(example, partitioner)
    assert subgraphs == 1
    refused = [d for d in partitioner.decisions if not d.supported]
    assert len(refused) == cpu_ops and all("bfloat16" in d.reason for d in refused), refused
    # The reference is float32 attention on the same (bfloat16) values: eager's own bfloat16 kernel
    # needs AVX-512 (pack_vnni2) and fails on an AVX2 machine. The .pte rounds its float32 result to
    # bfloat16 once (8 significant bits): within one step of it.
    (got,) = run_pte(pte, list(example.inputs))
    expected = torch.nn.functional.scaled_dot_product_attention(*(t.float() for t in example.inputs))
    assert got.dtype == torch.bfloat16
    assert relative_max_error(got.float(), expected) < 2 ** -7


def test_skipped_examples_say_why(capsys):
    bench.print_table(bench.HEADER, [(name, lambda name=name: bench.measure(name)) for name in ("edsr", "w2l")])
    rows = capsys.readouterr().out.splitlines()[2:]
    assert rows == [f"| {name} | skipped: needs {package} (not installed) |" + "  |" * 5
                    for name, package in (("edsr", "torchsr"), ("w2l", "torchaudio"))]
