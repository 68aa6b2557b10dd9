"""A builder whose check fails with something other than a refusal (a bug, a node form it did not
foresee) never stops lowering: its node stays on the CPU with the exception named in its reason
and a warning, the rest is delegated, and the program matches eager. And the partition that
keeps an op whole is the one that delegates it (issue 33 item 0)."""

from __future__ import annotations

import logging

import torch

from executorch_nnapi.lowering.builders import get_builder
from op_harness import Lambda, check_delegated_and_matches, lower, relative_max_error, run_pte


def test_a_check_that_raises_leaves_its_node_on_the_cpu(monkeypatch, caplog):
    builder = get_builder(torch.ops.aten.convolution.default)

    def broken_check(node, ctx):
        raise IndexError("list index out of range")

    monkeypatch.setattr(builder, "check", broken_check)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(64, 5))
    x = torch.randn(1, 3, 6, 6)
    with caplog.at_level(logging.WARNING, logger="executorch_nnapi.partitioners.nnapi_partitioner"):
        lowered = lower(model, (x,))
    (reason,) = lowered.reasons["aten.convolution.default"]
    assert "IndexError: list index out of range" in reason
    assert any("IndexError" in r.getMessage() for r in caplog.records)
    assert lowered.num_delegates >= 1 and "FULLY_CONNECTED" in lowered.nnapi_operations
    (got,) = run_pte(lowered.pte, [x])
    assert relative_max_error(got, model(x)) < 1e-5


def test_valid_and_same_string_padding_convolutions():
    """conv2d(padding="valid") reaches aten.convolution as padding=[0] (one element for two dims)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 4, stride=4, padding="valid"),
                                torch.nn.Conv2d(8, 8, 3, padding="same"))
    check_delegated_and_matches(model, (torch.randn(1, 3, 16, 16),), expect_operations=["CONV_2D"])
    conv1d = torch.nn.Conv1d(4, 6, 3, padding="valid")
    check_delegated_and_matches(conv1d, (torch.randn(1, 4, 10),), expect_operations=["CONV_2D"])


def test_a_constant_computation_read_by_the_cpu_and_by_nnapi_is_folded_in_the_partition():
    """Hugging Face's mask functions: a mask built from ``arange`` with ``aten.index`` (no NNAPI
    lowering, but foldable) is also read by the CPU; the partition gets its own copy and folds it,
    so the linear that reads the masked scores is delegated (it used to be kept whole by to_edge
    and then left undelegated, stopping lowering)."""
    torch.manual_seed(0)
    linear = torch.nn.Linear(6, 6)

    def fn(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        positions = torch.arange(6)
        mask = positions[None, :] <= positions[:, None]               # index of a constant
        scores = linear(x).masked_fill(~mask, -1e4).softmax(-1)
        return scores, torch.cumsum(positions, 0) * x.shape[0]         # the CPU also reads positions

    x = torch.randn(6, 6)
    lowered = lower(Lambda(fn), (x,))
    assert "aten.linear.default" not in lowered.reasons, lowered.reasons
    got = run_pte(lowered.pte, [x])
    want = fn(x)
    assert relative_max_error(got[0], want[0]) < 1e-5 and torch.equal(got[1], want[1])


def test_index_arithmetic_between_cpu_ops_stays_on_the_cpu():
    """int64 indices computed from float64 (which NNAPI refuses) and read by a float64 gather:
    their clamps alone would be a partition that only converts int64 back and forth."""
    def gather_rows(x):
        idx = (x[:, 0] * 3.0).floor().long().clamp(0, 3) + 0
        return x.index_select(0, idx.clamp(0, 3))

    x = torch.rand(4, 3, dtype=torch.float64)
    lowered = lower(Lambda(gather_rows), (x,))
    assert lowered.num_delegates == 0
    reasons = [r for rs in lowered.reasons.values() for r in rs]
    assert any("integer index arithmetic between CPU operations" in r for r in reasons), reasons
    (got,) = run_pte(lowered.pte, [x])
    assert torch.equal(got, gather_rows(x))


def test_integer_arithmetic_on_a_program_input_is_delegated():
    """The same clamps on an int64 program input have no CPU op to stay beside."""
    def clamp_indices(i):
        return i.clamp(0, 3) + 1

    i = torch.tensor([-2, 0, 5, 3])
    check_delegated_and_matches(Lambda(clamp_indices), (i,))
