"""Float islands (issue 21, item 2): an op NNAPI has no 8-bit form of (gelu, cumsum, erf...) between
quantized ones. convert_pt2e leaves it as dq -> op -> q; that group is no 8-bit unit, so its
nodes are decided one by one: DEQUANTIZE, the float op and QUANTIZE inside the same NNAPI
model when NNAPI has the float op (never a round trip through the CPU), only the op itself on
the CPU when it does not. The delegation report names each op that stayed float and why."""

from __future__ import annotations

import pytest
import torch

from op_harness import lower, run_pte
from quantized_reference import output_step, quantize, within_one_step
from executorch_nnapi.tools.report import NO_8BIT_LOWERING, delegation_report


class ConvThenConv(torch.nn.Module):
    """conv -> ``middle`` -> conv: the convs are 8-bit, ``middle`` has no 8-bit NNAPI form."""

    def __init__(self, middle) -> None:
        super().__init__()
        self.middle = middle
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(self.middle(self.conv1(x)))


def _gelu(y: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(y)


def _tanh_gelu(y: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(y, approximate="tanh")


def _cumsum(y: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(y, 3)


def _erf(y: torch.Tensor) -> torch.Tensor:
    return torch.erf(y)


def _lowered(middle, signed: bool, level: int = 30):
    torch.manual_seed(0)
    model = ConvThenConv(middle).eval()
    x = (torch.randn(1, 3, 12, 12),)
    gm = quantize(model, x, signed=signed, feature_level=level)
    return gm, x, lower(gm, x, feature_level=level)


def _assert_within_one_step(gm, x, pte, level: int = 30) -> None:
    (got,) = run_pte(pte, list(x), level)
    with torch.no_grad():
        want = gm(*x)
    assert within_one_step(want, got, output_step(gm)) == 1.0, (got - want).abs().max().item()


@pytest.mark.parametrize("signed", [False, True], ids=["uint8", "int8"])
def test_gelu_between_8bit_convs_is_a_float_island_inside_the_partition(signed):
    gm, x, low = _lowered(_gelu, signed)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    blob = low.blobs[0]
    precisions = list(zip(blob.operation_types, blob.operation_precisions))
    # The convs in 8 bits; the gelu's float operations between a DEQUANTIZE and a QUANTIZE inside.
    assert [op for op, p in precisions if p == "8-bit"] == ["CONV_2D", "CONV_2D"]
    assert {op for op, p in precisions if p == "conversion"} == {"DEQUANTIZE", "QUANTIZE"}
    assert any(p == "float" for _, p in precisions)
    _assert_within_one_step(gm, x, low.pte)
    (partition,) = delegation_report(low.edge, low.partitioner.decisions).partitions
    assert partition.float_islands == {"aten.gelu.default": (1, NO_8BIT_LOWERING)}
    text = "\n".join(partition.format_operations())
    assert f"float inside: aten.gelu.default x1 -- {NO_8BIT_LOWERING}" in text, text


def test_cumsum_between_8bit_convs_is_a_float_island_inside_the_partition():
    """cumsum has no 8-bit form and no NNAPI operation of its own: its float scan (PAD /
    STRIDED_SLICE / ADD along the NHWC value's width) runs between a DEQUANTIZE and a QUANTIZE."""
    gm, x, low = _lowered(_cumsum, signed=True)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    precisions = list(zip(low.blobs[0].operation_types, low.blobs[0].operation_precisions))
    assert [op for op, p in precisions if p == "8-bit"] == ["CONV_2D", "CONV_2D"]
    # 12 columns: shifts 1, 2, 4, 8, each a PAD, a STRIDED_SLICE and an ADD in float; no TRANSPOSE.
    assert [op for op, p in precisions if p == "float"] == ["PAD", "STRIDED_SLICE", "ADD"] * 4, precisions
    _assert_within_one_step(gm, x, low.pte)
    (partition,) = delegation_report(low.edge, low.partitioner.decisions).partitions
    assert partition.float_islands == {"aten.cumsum.default": (1, NO_8BIT_LOWERING)}


def test_op_nnapi_lacks_leaves_only_itself_on_the_cpu():
    """erf (no NNAPI operation at all): the DEQUANTIZE before it ends one partition and the
    QUANTIZE after it starts the next; only the float erf runs on the CPU."""
    gm, x, low = _lowered(_erf, signed=False)
    assert low.cpu_ops == ["aten.erf.default"] and low.num_delegates == 2, (low.cpu_ops, low.reasons)
    first, second = (list(zip(b.operation_types, b.operation_precisions)) for b in low.blobs)
    assert first[-1] == ("DEQUANTIZE", "edge") and second[0] == ("QUANTIZE", "edge")
    _assert_within_one_step(gm, x, low.pte)


def test_below_api_29_the_island_ends_its_partition():
    """NNAPI has no QUANTIZE of a float value before API 29: the (tanh) gelu is still delegated in
    float after its DEQUANTIZE, and the quantize after it runs on the CPU."""
    gm, x, low = _lowered(_tanh_gelu, signed=False, level=28)
    assert low.cpu_ops == ["quantized_decomposed.quantize_per_tensor.default"] * 2, (low.cpu_ops, low.reasons)
    _assert_within_one_step(gm, x, low.pte, level=28)


def _gelu_then_permute(y: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(y).permute(0, 1, 3, 2)


def test_data_movement_after_a_float_op_stays_in_the_island():
    """A permute of gelu's float result is not quantized on its own (it would quantize a value NNAPI
    may not hold, such as Swin's rank-5 mask sum): the island runs to the next 8-bit op's input."""
    gm, x, low = _lowered(_gelu_then_permute, signed=False)
    (gelu,) = [n for n in gm.graph.nodes if n.target is torch.ops.aten.gelu.default]
    assert [u.target for u in gelu.users] == [torch.ops.aten.permute.default], list(gelu.users)
    (permute,) = gelu.users
    assert [u.target.__name__ for u in permute.users] == ["quantize_per_tensor.default"], list(permute.users)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    precisions = list(zip(low.blobs[0].operation_types, low.blobs[0].operation_precisions))
    assert [p for op, p in precisions if op == "QUANTIZE"] == ["edge", "conversion"], precisions
    _assert_within_one_step(gm, x, low.pte)
