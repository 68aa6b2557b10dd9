"""8-bit forms the torchvision CNNs need beyond the ops of tests/quantizer/test_quantized_ops.py
(issue 21, item 3; the whole models: tests/models/test_quantized_zoo.py).

ShuffleNet's channel shuffle, ``view(N, g, C/g, H, W) -> transpose(1, 2) -> view(N, C, H, W)``,
goes through a rank-5 tensor. convert_pt2e quantizes each view and the permute with their
input's parameters, so the shuffle is one 8-bit CHANNEL_SHUFFLE (API 29) on the input's codes:
a data movement, which the host driver computes exactly, so the result equals the convert_pt2e
model's (the convs around it are within one step, as test_quantized_ops.py checks for them).

MNASNet's classifier has an in-place dropout (aten.dropout_), which the quantizer now annotates like
aten.dropout, so no float island is left around it.
"""

from __future__ import annotations

import pytest
import torch

from op_harness import lower, run_pte
from quantized_reference import output_step, quantize, quantized_inside, within_one_step

SIGNEDNESS = [pytest.param(False, id="uint8"), pytest.param(True, id="int8")]


class ShuffleBetweenConvs(torch.nn.Module):
    """conv -> channel shuffle (ShuffleNet's, ``groups`` groups) -> conv."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups
        self.conv1 = torch.nn.Conv2d(3, 12, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(12, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv1(x)
        n, c, h, w = y.shape
        y = y.view(n, self.groups, c // self.groups, h, w).transpose(1, 2).contiguous()
        return self.conv2(y.view(n, c, h, w))


class ShuffleOutput(ShuffleBetweenConvs):
    """conv -> channel shuffle as the model's output: the shuffled codes are the result."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv1(x)
        n, c, h, w = y.shape
        return y.view(n, self.groups, c // self.groups, h, w).transpose(1, 2).contiguous().view(n, c, h, w)


def _lowered(model: torch.nn.Module, signed: bool, level: int = 30):
    torch.manual_seed(0)
    x = (torch.randn(1, 3, 10, 10),)
    gm = quantize(model.eval(), x, signed=signed, feature_level=level)
    return gm, x, lower(gm, x, feature_level=level)


@pytest.mark.parametrize("signed, groups", [(False, 2), (True, 4)], ids=["uint8", "int8"])
def test_channel_shuffle_is_one_8bit_channel_shuffle(signed, groups):
    torch.manual_seed(0)
    gm, x, low = _lowered(ShuffleBetweenConvs(groups), signed)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    ops = quantized_inside(low.raw_blobs[0])
    assert ops == ["QUANTIZE", "CONV_2D", "CHANNEL_SHUFFLE", "CONV_2D", "DEQUANTIZE"], ops
    (got,) = run_pte(low.pte, list(x))
    with torch.no_grad():
        want = gm(*x)
    assert within_one_step(want, got, output_step(gm)) == 1.0, (got - want).abs().max().item()


@pytest.mark.parametrize("signed", SIGNEDNESS)
def test_channel_shuffle_moves_codes_exactly(signed):
    """The shuffle as the output: the host's result is convert_pt2e's shuffle of the host's own
    conv codes, bit for bit (the conv alone, lowered the same way, gives those codes)."""
    torch.manual_seed(0)
    model = ShuffleOutput(3)
    gm, x, low = _lowered(model, signed)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    assert quantized_inside(low.raw_blobs[0]) == ["QUANTIZE", "CONV_2D", "CHANNEL_SHUFFLE", "DEQUANTIZE"]
    (got,) = run_pte(low.pte, list(x))
    conv_only = torch.nn.Sequential(model.conv1)
    gm_conv = quantize(conv_only.eval(), x, signed=signed)
    (conv,) = run_pte(lower(gm_conv, x).pte, list(x))
    n, c, h, w = conv.shape
    shuffled = conv.view(n, 3, c // 3, h, w).transpose(1, 2).reshape(n, c, h, w)
    assert output_step(gm) == output_step(gm_conv)
    assert torch.equal(got, shuffled)


def test_channel_shuffle_at_api_28_is_reshape_transpose_reshape_on_codes():
    """uint8 at API 28 (no CHANNEL_SHUFFLE before API 29): RESHAPE, TRANSPOSE, RESHAPE of the codes."""
    torch.manual_seed(0)
    gm, x, low = _lowered(ShuffleBetweenConvs(2), False, level=28)
    assert low.num_delegates == 1, (low.cpu_ops, low.reasons)
    ops = quantized_inside(low.raw_blobs[0])
    assert ops.count("TRANSPOSE") == 1 and "CHANNEL_SHUFFLE" not in ops, ops
    (got,) = run_pte(low.pte, list(x), 28)
    with torch.no_grad():
        want = gm(*x)
    assert within_one_step(want, got, output_step(gm)) == 1.0, (got - want).abs().max().item()


class InplaceDropoutClassifier(torch.nn.Module):
    """MNASNet's head: conv -> mean over H, W -> Dropout(inplace=True) -> linear (dropout is a
    no-op in eval mode)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.dropout = torch.nn.Dropout(0.2, inplace=True)
        self.linear = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(self.dropout(self.conv(x).mean([2, 3])))


@pytest.mark.parametrize("signed", SIGNEDNESS)
def test_inplace_dropout_keeps_its_input_codes(signed):
    """aten.dropout_ is annotated like aten.dropout (its input's parameters): no DEQUANTIZE /
    QUANTIZE pair is left around it inside the partition (it was a float island), and the result
    is the same model's without the dropout, bit for bit."""
    torch.manual_seed(0)
    model = InplaceDropoutClassifier()
    gm, x, low = _lowered(model, signed)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    ops = quantized_inside(low.raw_blobs[0])
    assert ops.count("QUANTIZE") == 1 and ops.count("DEQUANTIZE") == 1 and "FULLY_CONNECTED" in ops, ops
    (got,) = run_pte(low.pte, list(x))
    model.dropout = torch.nn.Identity()
    gm_without, _, low_without = _lowered(model, signed)
    (without,) = run_pte(low_without.pte, list(x))
    assert output_step(gm) == output_step(gm_without)
    assert torch.equal(got, without)
