"""NnapiQuantizer leaves float what only float operations read or give (issue 41: a detector's
post-processing). An op without 8-bit weights whose result only float operations read (top-k, an
NMS, an op the quantizer leaves float), never coming back to an 8-bit op, is not quantized: its codes
would only be rounded and dequantized again; and one that reads only float results and constants (a
detector's boxes after its NMS, scaled back to the image) stays float with them. A model output
still counts as an 8-bit reader, a float op whose result comes back to 8 bits keeps the ops before
it 8-bit (shufflenet's split), and a weighted op is quantized whatever reads it. Also: an 8-bit
read after an in-place write is refused."""

from __future__ import annotations

import pytest
import torch
from torch.fx import GraphModule, Node

from quantized_reference import quantize

aten = torch.ops.aten


def _quantized(node: Node) -> bool:
    """Whether the converted model rounds ``node``'s result to 8-bit codes (a quantize reads it)."""
    return any("quantize_per_tensor" in str(u.target) and "dequantize" not in str(u.target) for u in node.users)


def _reads_codes(node: Node, index: int = 0) -> bool:
    return "dequantize" in str(node.args[index].target)


def _only(gm: GraphModule, target) -> Node:
    (node,) = [n for n in gm.graph.nodes if n.target is target]
    return node


class ConvOffsetTopk(torch.nn.Module):
    """conv (8-bit) -> + offset -> flatten -> topk: the add and the flatten are read by the top-k only."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.register_buffer("offset", torch.randn(1, 4, 1, 1))

    def forward(self, x):
        return torch.topk((self.conv(x) + self.offset).flatten(1), 5).values


def test_an_op_only_float_operations_read_stays_float():
    torch.manual_seed(0)
    gm = quantize(ConvOffsetTopk(), (torch.randn(1, 3, 8, 8),), signed=False)
    conv, add = _only(gm, aten.conv2d.default), _only(gm, aten.add.Tensor)
    assert _quantized(conv), "the weighted conv keeps its 8-bit output"
    assert not _quantized(add) and not _quantized(_only(gm, aten.flatten.using_ints))
    assert _reads_codes(add), "the add reads the conv's dequantized codes, in float"


class SplitBetweenConvs(torch.nn.Module):
    """conv -> + offset -> chunk -> conv of one half: the split is float (no 8-bit unit takes two
    quantized results yet) but its result comes back to an 8-bit conv."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.conv2 = torch.nn.Conv2d(3, 8, 3), torch.nn.Conv2d(4, 4, 1)
        self.register_buffer("offset", torch.randn(1, 8, 1, 1))

    def forward(self, x):
        _, second = (self.conv1(x) + self.offset).chunk(2, dim=1)
        return self.conv2(second)


def test_an_op_whose_float_readers_come_back_to_8_bits_stays_8bit():
    torch.manual_seed(0)
    gm = quantize(SplitBetweenConvs(), (torch.randn(1, 3, 8, 8),), signed=False)
    add = _only(gm, aten.add.Tensor)
    assert _quantized(add) and _reads_codes(add), "the float island is the split alone"


class TopkThenScale(torch.nn.Module):
    """conv (8-bit) -> topk -> * scale -> + shift, returned: after the top-k only float results and
    constants, as a detector's boxes after its NMS."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.register_buffer("scale", torch.rand(5) + 0.5)
        self.register_buffer("shift", torch.rand(5))

    def forward(self, x):
        return torch.topk(self.conv(x).flatten(1), 5).values * self.scale + self.shift


def test_an_op_of_float_results_and_constants_stays_float_up_to_the_output():
    torch.manual_seed(0)
    gm = quantize(TopkThenScale(), (torch.randn(1, 3, 8, 8),), signed=False)
    mul, add = _only(gm, aten.mul.Tensor), _only(gm, aten.add.Tensor)
    assert not _quantized(mul) and not _quantized(add)
    assert not any("quantize" in str(n.target) for n in (mul.args[1], add.args[1])), "constants stay float"
    with torch.no_grad():
        x = torch.randn(1, 3, 8, 8)
        assert gm(x).shape == (1, 5)


class ConvSigmoid(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return torch.sigmoid(self.conv(x)), torch.topk(self.conv(x).flatten(1), 3).values


def test_a_model_output_is_an_8bit_reader():
    torch.manual_seed(0)
    gm = quantize(ConvSigmoid(), (torch.randn(1, 3, 8, 8),), signed=False)
    sigmoid = _only(gm, aten.sigmoid.default)
    assert _quantized(sigmoid) and _reads_codes(sigmoid)
    (scale,) = {float(u.args[1]) for u in sigmoid.users}
    assert scale == 1 / 256  # LOGISTIC's fixed output parameters


class PaddedByWrite(torch.nn.Module):
    """A zero tensor the input is written into (copy_, as torchvision's batch_images), then a conv."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        batch = x.new_full((1, 3, 10, 10), 0)
        batch[0, :, :8, :8].copy_(x[0])
        return self.conv(batch)


def test_an_8bit_read_after_an_in_place_write_is_refused():
    with pytest.raises(ValueError, match="writes in place into new_full"):
        quantize(PaddedByWrite(), (torch.randn(1, 3, 8, 8),), signed=False)
