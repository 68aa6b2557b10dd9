"""Quantized ops end to end: NnapiQuantizer -> prepare_pt2e -> calibrate ->
convert_pt2e -> NnapiPartitioner -> the C++ backend on the host driver.

Each op is lowered alone, with uint8 and with signed int8 activations: it must
be delegated whole, every operation inside the partition must run on 8-bit
operands (QUANTIZE only on a partition input, DEQUANTIZE only into a partition
output), and every element of the host result must be within one output
quantization step of the convert_pt2e reference model.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import executorch.kernels.quantized  # noqa: F401  (CPU kernels of the quantize / dequantize NNAPI leaves)
from op_harness import Lowered, lower, run_pte
from quantized_reference import output_step, quantize, quantized_inside, within_one_step

SIGNEDNESS = [pytest.param(False, id="uint8"), pytest.param(True, id="int8")]


def check(model: torch.nn.Module, example: tuple, *, signed: bool, expect: str, feature_level: int = 30,
          dynamic_shapes=None, test_inputs: list[tuple] | None = None) -> Lowered:
    """Quantizes, lowers and runs ``model``; asserts delegation, 8-bit operations
    (``expect`` among them) and one-step agreement with convert_pt2e."""
    gm = quantize(model, example, signed=signed, feature_level=feature_level, dynamic_shapes=dynamic_shapes)
    low = lower(gm, example, dynamic_shapes=dynamic_shapes, feature_level=feature_level)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    ops = quantized_inside(low.raw_blobs[0])
    assert expect in ops, ops
    step = output_step(gm)
    for inputs in test_inputs or [example]:
        expected = gm(*inputs)
        actual = run_pte(low.pte, list(inputs), feature_level)[0]
        assert actual.shape == expected.shape
        err = (actual - expected).abs().max().item()
        assert err <= step * 1.0001, f"max error {err} > one step {step}"
    return low


class Unary(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class ConvAct(torch.nn.Module):
    """A convolution (then an activation): every unary op test reads a conv's output,
    so that its input is quantized by a real producer."""

    def __init__(self, conv: torch.nn.Module, act=None) -> None:
        super().__init__()
        self.conv, self.act = conv, act

    def forward(self, x):
        y = self.conv(x)
        return self.act(y) if self.act is not None else y


def image(c=4, h=8, w=8):
    torch.manual_seed(0)
    return (torch.randn(1, c, h, w),)


CONVS = {
    "conv": (lambda: torch.nn.Conv2d(4, 6, 3, padding=1), "CONV_2D"),
    "conv_stride2_nobias": (lambda: torch.nn.Conv2d(4, 8, 3, stride=2, bias=False), "CONV_2D"),
    "depthwise": (lambda: torch.nn.Conv2d(4, 8, 3, padding=1, groups=4), "DEPTHWISE_CONV_2D"),
    "grouped": (lambda: torch.nn.Conv2d(4, 6, 1, groups=2), "GROUPED_CONV_2D"),
    "dilated": (lambda: torch.nn.Conv2d(4, 4, 3, padding=2, dilation=2), "CONV_2D"),
    "transposed": (lambda: torch.nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
                   "TRANSPOSE_CONV_2D"),
}


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("kind", list(CONVS))
def test_convolutions(kind, signed):
    make, op = CONVS[kind]
    torch.manual_seed(0)
    check(make(), image(), signed=signed, expect=op)


ACTIVATIONS = {"relu": torch.nn.ReLU(), "relu6": torch.nn.ReLU6(), "hardtanh": torch.nn.Hardtanh()}


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("act", list(ACTIVATIONS))
def test_conv_fused_activation(act, signed):
    torch.manual_seed(0)
    low = check(ConvAct(torch.nn.Conv2d(4, 6, 3), ACTIVATIONS[act]), image(), signed=signed, expect="CONV_2D")
    # The clamp is CONV_2D's fused-activation operand, not an operation of its own.
    assert low.nnapi_operations == ["QUANTIZE", "CONV_2D", "DEQUANTIZE"]


@pytest.mark.parametrize("signed", SIGNEDNESS)
def test_linear_rank3(signed):
    torch.manual_seed(0)
    low = check(torch.nn.Linear(16, 8), (torch.randn(2, 3, 16),), signed=signed, expect="FULLY_CONNECTED")
    assert low.nnapi_operations == ["QUANTIZE", "FULLY_CONNECTED", "RESHAPE", "DEQUANTIZE"]


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("relu", [False, True])
def test_linear(relu, signed):
    torch.manual_seed(0)
    layers = [torch.nn.Linear(16, 8)] + ([torch.nn.ReLU()] if relu else [])
    low = check(torch.nn.Sequential(*layers), (torch.randn(3, 16),), signed=signed, expect="FULLY_CONNECTED")
    assert low.nnapi_operations == ["QUANTIZE", "FULLY_CONNECTED", "DEQUANTIZE"]


class Binary(torch.nn.Module):
    def __init__(self, fn, relu: bool = False) -> None:
        super().__init__()
        self.fn, self.relu = fn, relu

    def forward(self, a, b):
        y = self.fn(a, b)
        return torch.relu(y) if self.relu else y


BINARY = {
    "add": (torch.add, False, "ADD"),
    "add_relu": (torch.add, True, "ADD"),
    "mul": (torch.mul, False, "MUL"),
    "add_broadcast": (torch.add, False, "ADD"),
}


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("kind", list(BINARY))
def test_binary(kind, signed):
    fn, relu, op = BINARY[kind]
    torch.manual_seed(0)
    b = torch.randn(1, 4, 1, 8) if kind == "add_broadcast" else torch.randn(1, 4, 8, 8)
    low = check(Binary(fn, relu), (torch.randn(1, 4, 8, 8), b), signed=signed, expect=op)
    assert "RELU" not in low.nnapi_operations  # fused into ADD


UNARY = {
    "max_pool": (lambda x: F.max_pool2d(x, 2), "MAX_POOL_2D"),
    "max_pool_pad": (lambda x: F.max_pool2d(x, 3, 2, padding=1), "MAX_POOL_2D"),
    "avg_pool": (lambda x: F.avg_pool2d(x, 2), "AVERAGE_POOL_2D"),
    "avg_pool_count_pad": (lambda x: F.avg_pool2d(x, 3, 1, padding=1), "PAD"),
    # Quantized, a static whole-image pool rounds (AVERAGE_POOL_2D) rather than truncating (MEAN).
    "adaptive_avg_pool": (lambda x: F.adaptive_avg_pool2d(x, 1), "AVERAGE_POOL_2D"),
    "mean": (lambda x: x.mean(dim=(2, 3), keepdim=True), "AVERAGE_POOL_2D"),  # rounds, unlike MEAN
    "mean_no_keepdim": (lambda x: x.mean(dim=(2, 3)), "AVERAGE_POOL_2D"),
    "mean_channels": (lambda x: x.mean(dim=1, keepdim=True), "MEAN"),
    "flatten": (lambda x: x.flatten(1), "RESHAPE"),
    "reshape": (lambda x: x.reshape(1, 2, 3, -1), "RESHAPE"),
    # A permute relabels the dim order: no operation (the runtime writes the output in PyTorch's order).
    "permute": (lambda x: x.permute(0, 3, 1, 2), "DEQUANTIZE"),
    "relu": (torch.relu, "RELU"),
    "hardswish": (F.hardswish, "HARD_SWISH"),
    # x/6 + 1/2 as a 1x1 depthwise convolution; the output range (1/256 from the lowest code) clamps.
    "hardsigmoid": (F.hardsigmoid, "DEPTHWISE_CONV_2D"),
    "sigmoid": (torch.sigmoid, "LOGISTIC"),
    "tanh": (torch.tanh, "TANH"),
    "softmax": (lambda x: torch.softmax(x, dim=1), "SOFTMAX"),
}


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("kind", list(UNARY))
def test_unary(kind, signed):
    fn, op = UNARY[kind]
    torch.manual_seed(0)
    # The op reads a quantized input directly (no conv), as the quantizer sees it alone.
    check(Unary(fn), (torch.randn(1, 6, 4, 4),), signed=signed, expect=op)


@pytest.mark.parametrize("shape", [(1, 6, 4, 4), (3, 8)], ids=["4d", "2d"])
@pytest.mark.parametrize("level", [27, 28, 29])
@pytest.mark.parametrize("kind", ["hardswish", "hardsigmoid"])
def test_hard_activations_before_api_30(kind, level, shape):
    """No HARD_SWISH before API 30: hardswish is x * hardsigmoid(x), the gate a 1x1
    DEPTHWISE_CONV_2D rounded to 1/256, then MUL (below rank 4 on a RESHAPE to 4-D);
    the input spans hardsigmoid's whole range. (No QUANTIZE before API 29: the input
    is quantized on the CPU.)"""
    fn, _ = UNARY[kind]
    torch.manual_seed(0)
    example = (torch.randn(*shape) * 3,)
    gm = quantize(Unary(fn), example, signed=False, feature_level=level)
    low = lower(gm, example, feature_level=level)
    assert low.num_delegates == 1 and set(low.cpu_ops) <= {"quantized_decomposed.quantize_per_tensor.default"}
    ops = quantized_inside(low.raw_blobs[0])
    assert "DEPTHWISE_CONV_2D" in ops and ("MUL" in ops) == (kind == "hardswish")
    for inputs in (example, (torch.randn(*shape) * 4,)):
        err = (run_pte(low.pte, list(inputs), level)[0] - gm(*inputs)).abs().max().item()
        assert err <= output_step(gm) * 1.0001


@pytest.mark.parametrize("signed", SIGNEDNESS)
def test_cat(signed):
    torch.manual_seed(0)

    class CatInputs(torch.nn.Module):
        def forward(self, a, b):
            return torch.cat([a, b], dim=1)

    check(CatInputs(), (torch.randn(1, 3, 4, 4), torch.randn(1, 5, 4, 4)), signed=signed, expect="CONCATENATION")


@pytest.mark.parametrize("signed", SIGNEDNESS)
def test_dynamic_height_width(signed):
    """One .pte, three image sizes: the quantized conv runs at each within one step."""
    torch.manual_seed(0)
    model = ConvAct(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU6())
    h, w = torch.export.Dim("h", min=4, max=32), torch.export.Dim("w", min=4, max=32)
    sizes = [(8, 8), (12, 16), (20, 6)]
    check(model, (torch.randn(1, 3, 8, 8),), signed=signed, expect="CONV_2D",
          dynamic_shapes=({2: h, 3: w},), test_inputs=[(torch.randn(1, 3, a, b),) for a, b in sizes])


class ConvFlattenLinear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv, self.fc = torch.nn.Conv2d(3, 4, 3), torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


@pytest.mark.parametrize("level, delegates", [(27, 2), (28, 1)])
def test_before_api_29(level, delegates):
    """Per-tensor uint8 weights; no QUANTIZE below API 29, so the input is quantized on
    the CPU and the partition takes 8-bit codes (at API 27 the flatten of an NHWC
    value, which needs TRANSPOSE, stays on the CPU between two partitions)."""
    torch.manual_seed(0)
    example = (torch.randn(1, 3, 8, 8),)
    gm = quantize(ConvFlattenLinear(), example, signed=False, feature_level=level)
    low = lower(gm, example, feature_level=level)
    assert low.num_delegates == delegates
    assert "quantize_per_tensor.default needs API 29" in " ".join(low.reasons["quantized_decomposed.quantize_per_tensor.default"])
    for raw in low.raw_blobs:
        ops = quantized_inside(raw)
        assert "QUANTIZE" not in ops
    assert {"CONV_2D", "FULLY_CONNECTED"} <= set(low.nnapi_operations)
    err = (run_pte(low.pte, list(example), level)[0] - gm(*example)).abs().max().item()
    assert err <= output_step(gm) * 1.0001


def test_op_refused_at_level_stays_on_cpu_with_reason():
    """A model quantized for API 30 (per-channel conv weights) lowered for API 28: the
    conv unit stays on the CPU with the reason, never a lowering error, and the
    model still runs."""
    torch.manual_seed(0)
    example = (torch.randn(1, 3, 8, 8),)
    gm = quantize(ConvFlattenLinear(), example, signed=False, feature_level=30)
    low = lower(gm, example, feature_level=28)
    assert "aten.convolution.default" in low.cpu_ops
    assert any("per-channel quantized weights" in r and "API 29" in r for r in low.reasons["aten.convolution.default"])
    assert "FULLY_CONNECTED" in low.nnapi_operations  # per-tensor weights: still delegated
    err = (run_pte(low.pte, list(example), 28)[0] - gm(*example)).abs().max().item()
    assert err <= output_step(gm) * 1.0001


# -- pad, nearest resize, maximum / minimum, where, prelu (API 29) -------------------------------------------
SHAPE_OPS = {
    "pad_zero": (lambda x: F.pad(x, (1, 2, 0, 1)), "PAD"),
    "pad_value": (lambda x: F.pad(x, (1, 1, 2, 0), value=0.25), "PAD_V2"),
    "nearest_size": (lambda x: F.interpolate(x, size=(8, 12), mode="nearest"), "RESIZE_NEAREST_NEIGHBOR"),
    "nearest_scale": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), "RESIZE_NEAREST_NEIGHBOR"),
    "prelu": (torch.nn.PReLU(6, init=0.2), "PRELU"),
    "prelu_single": (torch.nn.PReLU(1, init=-0.3), "PRELU"),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), "PRELU"),
    "leaky_relu_negative_slope": (lambda x: F.leaky_relu(x, -0.7), "PRELU"),
}


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("kind", list(SHAPE_OPS))
def test_pad_resize_prelu(kind, signed):
    fn, op = SHAPE_OPS[kind]
    torch.manual_seed(0)
    model = Unary(fn)
    if isinstance(fn, torch.nn.PReLU):
        with torch.no_grad():  # distinct slopes per channel
            fn.weight.copy_(torch.linspace(-0.5, 0.5, fn.weight.numel()))
    check(model, (torch.randn(1, 6, 4, 4),), signed=signed, expect=op)


class Select(torch.nn.Module):
    """where on a bool input (a comparison of float values would be a float op in the partition)."""

    def forward(self, c, a, b):
        return torch.where(c, a, b)


PICKING = {
    "maximum": (Binary(torch.maximum), "MAXIMUM"),
    "minimum": (Binary(torch.minimum), "MINIMUM"),
    "maximum_broadcast": (Binary(torch.maximum), "MAXIMUM"),
}


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("kind", list(PICKING))
def test_maximum_minimum(kind, signed):
    model, op = PICKING[kind]
    torch.manual_seed(0)
    # Inputs of different ranges: each gets its own scale, requantized to the output's.
    b = torch.randn(1, 4, 1, 8) * 3 if kind.endswith("broadcast") else torch.randn(1, 4, 8, 8) * 3
    check(model, (torch.randn(1, 4, 8, 8), b), signed=signed, expect=op)


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("broadcast", [False, True], ids=["same_shape", "broadcast_value"])
def test_where(signed, broadcast):
    torch.manual_seed(0)
    y = torch.randn(4, 1, 6) * 4 if broadcast else torch.randn(1, 4, 6, 6) * 4
    example = (torch.randn(1, 4, 6, 6) > 0, torch.randn(1, 4, 6, 6), y)
    low = check(Select(), example, signed=signed, expect="SELECT")
    if broadcast:  # the 8-bit value brought to the output's shape
        assert {"EXPAND_DIMS", "TILE"} <= set(low.nnapi_operations)


BILINEAR = {
    "up_half_pixel": dict(size=(9, 12)),
    "down_half_pixel": dict(size=(3, 4)),
    "up_scale_factor": dict(scale_factor=2),
    "up_align_corners": dict(size=(11, 8), align_corners=True),
    "down_align_corners": dict(size=(4, 3), align_corners=True),
}


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("kind", list(BILINEAR))
def test_bilinear(kind, signed):
    """8-bit RESIZE_BILINEAR (API 30) keeps the input's parameters; its truncated sum
    (docs/nnapi_facts.md §9.14) stays within one step of convert_pt2e's rounded one."""
    torch.manual_seed(0)
    low = check(Unary(lambda x: F.interpolate(x, mode="bilinear", **BILINEAR[kind])), (torch.randn(1, 5, 6, 7),),
                signed=signed, expect="RESIZE_BILINEAR")
    assert low.nnapi_operations == ["QUANTIZE", "RESIZE_BILINEAR", "DEQUANTIZE"]


@pytest.mark.parametrize("signed", SIGNEDNESS)
def test_bilinear_after_conv(signed):
    """conv -> bilinear in one partition on 8-bit operands. The conv's codes are already one step
    from convert_pt2e's at near-ties (here 1 of 210), and the resize's truncation can add one more
    where it reads such a code: within two steps, and nearly everywhere within one."""
    torch.manual_seed(0)
    model = ConvAct(torch.nn.Conv2d(3, 5, 1), lambda y: F.interpolate(y, size=(9, 12), mode="bilinear"))
    example = (torch.randn(1, 3, 6, 7),)
    gm = quantize(model, example, signed=signed)
    low = lower(gm, example, feature_level=30)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    assert quantized_inside(low.raw_blobs[0]) == ["QUANTIZE", "CONV_2D", "RESIZE_BILINEAR", "DEQUANTIZE"]
    actual, expected, step = run_pte(low.pte, list(example), 30)[0], gm(*example), output_step(gm)
    assert (actual - expected).abs().max().item() <= 2 * step * 1.0001
    assert within_one_step(expected, actual, step) >= 0.99


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("align", [False, True], ids=["half_pixel", "align_corners"])
def test_bilinear_dynamic_height_width(signed, align):
    """One .pte, three image sizes, the output size following the input's."""
    torch.manual_seed(0)
    model = Unary(lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=align))
    h, w = torch.export.Dim("h", min=2, max=24), torch.export.Dim("w", min=2, max=24)
    sizes = [(5, 7), (2, 13), (16, 3)]
    check(model, (torch.randn(1, 4, 6, 6),), signed=signed, expect="RESIZE_BILINEAR",
          dynamic_shapes=({2: h, 3: w},), test_inputs=[(torch.randn(1, 4, a, b),) for a, b in sizes])


@pytest.mark.parametrize("align", [False, True], ids=["half_pixel", "align_corners"])
def test_bilinear_below_api_30_stays_on_cpu_with_reason(align):
    """Quantized for API 30, lowered for API 29 (8-bit RESIZE_BILINEAR exists there, but neither
    PyTorch mapping does): the resize stays on the CPU with the reason, the program still matches.
    Quantized for API 29, the quantizer leaves it float."""
    torch.manual_seed(0)
    model = ConvAct(torch.nn.Conv2d(3, 4, 1), lambda y: F.interpolate(y, size=(8, 8), mode="bilinear",
                                                                       align_corners=align))
    example = (torch.randn(1, 3, 4, 4),)
    gm = quantize(model, example, signed=False, feature_level=30)
    low = lower(gm, example, feature_level=29)
    op = "aten.upsample_bilinear2d.vec"
    assert op in low.cpu_ops, (low.cpu_ops, low.reasons)
    assert any("API 30" in r for r in low.reasons[op]), low.reasons[op]
    err = (run_pte(low.pte, list(example), 29)[0] - gm(*example)).abs().max().item()
    assert err <= output_step(gm) * 1.0001
    at_29 = quantize(model, example, signed=False, feature_level=29)
    (bilinear,) = [n for n in at_29.graph.nodes if n.target == torch.ops.aten.upsample_bilinear2d.vec]
    assert not any("quantize_per_tensor" in str(u.target) for u in bilinear.users)  # its result is not quantized


@pytest.mark.parametrize("model, example, op, reason", [
    (Binary(torch.maximum), (torch.randn(1, 4, 4, 4), torch.randn(1, 4, 4, 4)), "aten.maximum.default", "MAXIMUM"),
    (Select(), (torch.randn(1, 4, 4, 4) > 0, torch.randn(1, 4, 4, 4), torch.randn(1, 4, 4, 4)), "aten.where.self",
     "SELECT"),
    # Not taken, prelu is decomposed for the CPU (where(x > 0, x, w x)): its where stays there.
    (Unary(torch.nn.PReLU(4)), (torch.randn(1, 4, 4, 4),), "aten.where.self", "aten.where.self"),
    (Unary(lambda x: F.interpolate(x, scale_factor=2, mode="nearest")), (torch.randn(1, 4, 4, 4),),
     "aten.upsample_nearest2d.vec", "RESIZE_NEAREST_NEIGHBOR"),
    (Unary(lambda x: F.pad(x, (1, 1))), (torch.randn(1, 4, 4, 4),), "aten.constant_pad_nd.default", "zero point"),
    # TANH takes 8-bit operands from API 29 only (float from 27): it was once delegated at 28 and
    # then refused by the driver when the model was built.
    (ConvAct(torch.nn.Conv2d(4, 4, 1), torch.tanh), (torch.randn(1, 4, 4, 4),), "aten.tanh.default", "tanh"),
], ids=["maximum", "where", "prelu", "nearest", "pad", "tanh"])
def test_api_29_ops_below_their_level_stay_on_cpu_with_reason(model, example, op, reason):
    """Quantized for API 29, lowered for API 28: the op stays on the CPU with the reason (no
    lowering error) and the program still matches convert_pt2e."""
    gm = quantize(model, example, signed=False, feature_level=29)
    low = lower(gm, example, feature_level=28)
    assert op in low.cpu_ops, (low.cpu_ops, low.reasons)
    assert any(reason in r and "API 29" in r for r in low.reasons[op]), low.reasons[op]
    err = (run_pte(low.pte, list(example), 28)[0] - gm(*example)).abs().max().item()
    assert err <= output_step(gm) * 1.0001


def test_pad_value_outside_the_code_range_stays_on_cpu_with_reason():
    """PAD_V2 takes the pad value as a code of the input's parameters: a value (here edited into
    the converted program, since the quantizer's shared observer sees it) whose code is out of
    range leaves the pad on the CPU with the reason, and the program still matches."""
    torch.manual_seed(0)
    example = (torch.randn(1, 4, 4, 4),)
    gm = quantize(Unary(lambda x: F.pad(x, (1, 1), value=0.5)), example, signed=False)
    (pad,) = [n for n in gm.graph.nodes if n.target == torch.ops.aten.pad.default]
    pad.args = (*pad.args[:3], 1000.0)
    gm.recompile()
    low = lower(gm, example, feature_level=30)
    assert "aten.constant_pad_nd.default" in low.cpu_ops
    assert any("quantized pad value 1000.0 is code" in r and "outside [0, 255]" in r
               for r in low.reasons["aten.constant_pad_nd.default"])
    err = (run_pte(low.pte, list(example), 30)[0] - gm(*example)).abs().max().item()
    assert err <= output_step(gm) * 1.0001


class ConstantOperand(torch.nn.Module):
    """conv -> relu, then ``combine(parameter, y, *rest)``: a quantized op reading a dequantized
    8-bit constant (convnext's layer scale, vit's class token, an addend)."""

    def __init__(self, combine, shape: tuple[int, ...]) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.param = torch.nn.Parameter(torch.rand(shape) + 0.5)
        self.combine = combine

    def forward(self, x, *rest):
        return self.combine(self.param, torch.relu(self.conv(x)), *rest)


def _class_token_cat(token, y):
    tokens = y.flatten(2).transpose(1, 2)
    return torch.cat((token.expand(tokens.shape[0], -1, -1), tokens), dim=1)


# name -> (combine, the constant's shape, the operation expected, whether a bool mask is an input)
CONSTANT_OPERANDS = {
    "layer_scale_mul": (lambda p, y: p * y, (8, 1, 1), "MUL", False),
    "class_token_cat": (_class_token_cat, (1, 1, 8), "CONCATENATION", False),
    "constant_add": (lambda p, y: y + p, (8, 1, 1), "ADD", False),
    "constant_maximum": (lambda p, y: torch.maximum(y, p), (8, 1, 1), "MAXIMUM", False),
    # broadcast at lowering time (EXPAND_DIMS / TILE are for run-time values)
    "constant_where": (lambda p, y, mask: torch.where(mask, y, p), (8, 1, 1), "SELECT", True),
}


@pytest.mark.parametrize("kind", CONSTANT_OPERANDS)
@pytest.mark.parametrize("signed", SIGNEDNESS)
def test_constant_operand(kind, signed):
    """The constant is an 8-bit operand with its own scale and zero point (it once was a float
    operand of a quantized MUL / ADD / CONCATENATION: a .pte that lowered but failed to load)."""
    combine, shape, expect, masked = CONSTANT_OPERANDS[kind]
    torch.manual_seed(0)
    model = ConstantOperand(combine, shape).eval()

    def inputs():
        x = torch.randn(1, 3, 8, 8)
        return (x, torch.randn(1, 8, 8, 8) > 0) if masked else (x,)

    check(model, inputs(), signed=signed, expect=expect, test_inputs=[inputs(), inputs()])
