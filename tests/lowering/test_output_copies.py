"""A partition's output that NNAPI cannot name as a model output (the same value returned twice, an
input or a constant) is copied by an operation of its own: RESHAPE to its dims for float and 8-bit
values; for int32 values, which RESHAPE takes only from feature level 6, an identity CAST at API 30
and a TILE by ones at API 29; for bool values LOGICAL_OR of the value with itself. Found by issue 42's sweep: hf:cpmant's int32 mask (a cast of an int64
input) copied out by RESHAPE was refused at addOperation, so its .pte did not load."""

from __future__ import annotations

import pytest
import torch

from op_harness import Lambda, lower, run_pte


def copies(x: torch.Tensor, counts: torch.Tensor):
    """The int64 input, which the partition takes as int32, cast to int32: its own input, an output
    NNAPI must make with an operation."""
    return x * 2, counts.to(torch.int32)


@pytest.mark.parametrize("level, copy", [(29, "TILE"), (30, "CAST")])
def test_an_int32_input_handed_back(level, copy):
    g = torch.Generator().manual_seed(0)
    inputs = (torch.randn(3, 5, generator=g), torch.randint(-9, 9, (3, 5), generator=g))
    lowered = lower(Lambda(copies), inputs, feature_level=level)
    assert lowered.num_delegates == 1 and lowered.cpu_ops == [], lowered.reasons
    operations = lowered.nnapi_operations
    assert copy in operations and "RESHAPE" not in operations
    got = run_pte(lowered.pte, list(inputs), level)
    for value, want in zip(got, copies(*inputs)):
        assert value.dtype == want.dtype and torch.equal(value, want)


def relabeled(x: torch.Tensor, y: torch.Tensor):
    """A bool mask returned and returned again through a view of its own shape (the same NNAPI
    operand): the second output is a copy, which RESHAPE cannot make of a TENSOR_BOOL8
    (hf:deepseek_v4's mask did not load)."""
    mask = x <= y
    return mask, x * 2, mask.view(x.shape)


@pytest.mark.parametrize("level", [29, 30])
def test_a_bool_output_returned_twice(level):
    g = torch.Generator().manual_seed(1)
    inputs = (torch.randn(4, 6, generator=g), torch.randn(4, 6, generator=g))
    lowered = lower(Lambda(relabeled), inputs, feature_level=level)
    assert lowered.num_delegates == 1 and lowered.cpu_ops == [], lowered.reasons
    assert "LOGICAL_OR" in lowered.nnapi_operations
    got = run_pte(lowered.pte, list(inputs), level)
    for value, want in zip(got, relabeled(*inputs)):
        assert value.dtype == want.dtype and torch.equal(value, want)
