"""Dilated convolutions below API 29 (builders/dilated_conv.py) and torch's local response norm
as LOCAL_RESPONSE_NORMALIZATION (patterns/ and builders/local_response_norm.py).

Each case is lowered, its NNAPI operations checked, run through the C++ backend on the host
driver at the target level (which refuses what the level lacks) and compared with eager torch
(float: 1e-5) or with the convert_pt2e model (8 bits: one output step). The forms' arithmetic
is also checked without NNAPI: each plan, replayed with torch's own ops, against F.conv2d."""

from __future__ import annotations

import random
from copy import deepcopy as copy_module

import pytest
import sympy
import torch
import torch.nn.functional as F
import torchvision

import executorch.kernels.quantized  # noqa: F401  (CPU kernels of the quantize / dequantize NNAPI leaves)
from executorch_nnapi.lowering.builders.dilated_conv import (
    DilatedForm, DilatedPlan, im2col_weight, one_hot_taps, plan_dilated, written_out)
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from op_harness import AfterConv, check_delegated_and_matches, lower, relative_max_error, run_pte
from quantized_reference import output_step, quantize, quantized_inside

FLOAT_TOLERANCE = 1e-5
QUANTIZE = "quantized_decomposed.quantize_per_tensor.default"


# ------------------------------------------------------------ the plans, replayed in torch
def _space_to_batch(x: torch.Tensor, bh: int, bw: int) -> torch.Tensor:
    """TensorFlow's SPACE_TO_BATCH_ND on NCHW: batch item (r_h * bw + r_w) * N + n."""
    n, c, h, w = x.shape
    return (x.reshape(n, c, h // bh, bh, w // bw, bw).permute(3, 5, 0, 1, 2, 4)
            .reshape(bh * bw * n, c, h // bh, w // bw))


def _batch_to_space(y: torch.Tensor, bh: int, bw: int) -> torch.Tensor:
    b, c, h, w = y.shape
    n = b // (bh * bw)
    return y.reshape(bh, bw, n, c, h, w).permute(2, 3, 4, 0, 5, 1).reshape(n, c, h * bh, w * bw)


def _space_to_depth(x: torch.Tensor, d: int) -> torch.Tensor:
    """TensorFlow's SPACE_TO_DEPTH on NCHW: channel (r_h * d + r_w) * C + c."""
    n, c, h, w = x.shape
    return x.reshape(n, c, h // d, d, w // d, d).permute(0, 3, 5, 1, 2, 4).reshape(n, d * d * c, h // d, w // d)


def _depth_to_space(y: torch.Tensor, d: int) -> torch.Tensor:
    n, c, h, w = y.shape
    return y.reshape(n, d, d, c // (d * d), h, w).permute(0, 3, 4, 1, 5, 2).reshape(n, c // (d * d), h * d, w * d)


def _one_hot_columns(plan: DilatedPlan, x: torch.Tensor) -> torch.Tensor:
    """Form 4's one-hot depthwise passes on NCHW ``x``: channel c·M + m holds the input at tap m."""
    for is_height, a in ((True, plan.h), (False, plan.w)):
        if a.dilation == 1:
            continue
        taps = one_hot_taps(a)                                       # [k, E]
        k, extent = taps.shape
        kernel = taps.repeat(x.shape[1], 1)                          # [C·k, E]: out channel c·k + t
        kernel = kernel.reshape(-1, 1, extent, 1) if is_height else kernel.reshape(-1, 1, 1, extent)
        pads = (0, 0, *a.pads) if is_height else (*a.pads, 0, 0)
        stride = (a.stride, 1) if is_height else (1, a.stride)
        x = F.conv2d(F.pad(x, pads), kernel, stride=stride, groups=x.shape[1])
    return x


def _replay(plan: DilatedPlan, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, groups: int) -> torch.Tensor:
    """``plan``'s operations with torch's ops (zero padding, no dilation anywhere)."""
    h, w = plan.h, plan.w
    cut = weight[:, :, h.first_tap:h.last_tap + 1, w.first_tap:w.last_tap + 1]
    stride = (1 if h.dilation > 1 else h.stride, 1 if w.dilation > 1 else w.stride)
    if plan.form is DilatedForm.DENSE:
        return F.conv2d(F.pad(x, (*w.pads, *h.pads)), cut, bias, stride, groups=groups)
    if plan.form is DilatedForm.WRITTEN_OUT:
        return F.conv2d(F.pad(x, (*w.pads, *h.pads)), written_out(cut, plan), bias, (h.stride, w.stride), groups=groups)
    if plan.form is DilatedForm.ONE_HOT_IM2COL:
        columns = _one_hot_columns(plan, x)
        ohwi = im2col_weight(cut, plan)                              # [O, kh', kw', C·M]
        spatial = [(a.pads, a.stride) if a.dilation == 1 else ((0, 0), 1) for a in (w, h)]
        return F.conv2d(F.pad(columns, (*spatial[0][0], *spatial[1][0])), ohwi.permute(0, 3, 1, 2), bias,
                        (spatial[1][1], spatial[0][1]))
    if plan.form is DilatedForm.SPACE_TO_DEPTH:
        d = max(plan.block)
        phases = F.pad(_space_to_depth(x, d), (*w.conv_pads, *h.conv_pads))
        y = F.conv2d(phases, cut.repeat(d * d, 1, 1, 1), bias.repeat(d * d), stride, groups=groups * d * d)
        return _depth_to_space(y, d)
    bh, bw = plan.block
    batch = _space_to_batch(F.pad(x, (*w.block_pads, *h.block_pads)), bh, bw)
    y = F.conv2d(F.pad(batch, (*w.conv_pads, *h.conv_pads)), cut, bias, stride, groups=groups)
    return _batch_to_space(y, bh, bw)[:, :, :h.out, :w.out]


def _nnapi_constraints_hold(plan: DilatedPlan) -> None:
    for a in (plan.h, plan.w):
        assert min(*a.pads, *a.conv_pads, *a.block_pads, a.crop) >= 0
        assert max(a.conv_pads) < a.taps, "NNAPI: a convolution pad below the kernel"
        assert max(a.pads) < (a.taps - 1) * a.dilation + 1, "NNAPI: a pad below the (written-out / one-hot) kernel"
        if plan.form is DilatedForm.SPACE_TO_BATCH:
            assert (a.size + sum(a.block_pads)) % a.dilation == 0
            assert a.crop < a.dilation


def test_every_plan_replays_the_dilated_convolution() -> None:
    """Random shapes, kernels, dilations, paddings and strides at API 27 and 28, float and 8-bit
    zero points: each plan is exact (up to float32 summation order) and keeps NNAPI's pad rules,
    and every dilated convolution of static size has one."""
    rng = random.Random(0)
    forms = set()
    for _ in range(400):
        k, d = rng.choice([(1, 3), (2, 2), (3, 2), (3, 3), (3, 12), (5, 2), (4, 5)]), rng.choice([2, 3, 4])
        kernel, dilation = (rng.choice([k[0], 1]), k[0]), (d, rng.choice([1, d, k[1]]))
        size = (rng.randint(1, 13), rng.randint(1, 13))
        padding = tuple(rng.randint(0, dil * (kk - 1)) for dil, kk in zip(dilation, kernel))
        stride = (1, 1) if rng.random() < 0.6 else (rng.choice([1, 2]), rng.choice([1, 2, 3]))
        if any(n + 2 * p < dil * (kk - 1) + 1 for n, p, dil, kk in zip(size, padding, dilation, kernel)):
            continue
        depthwise = rng.random() < 0.5
        channels, groups = (3, 3) if depthwise else (2, 1)
        level = rng.choice([FeatureLevel.ANDROID_8_1, FeatureLevel.ANDROID_9])
        plan = plan_dilated(size, kernel, list(stride), list(padding), list(dilation), depthwise, level,
                            rng.choice([None, 0, 128]))
        assert not isinstance(plan, str), plan
        forms.add(plan.form)
        assert plan.level <= level
        _nnapi_constraints_hold(plan)
        x = torch.randn(2, channels, *size)
        weight = torch.randn(3 if depthwise else 4, channels // groups, *kernel)
        bias = torch.randn(weight.shape[0])
        want = F.conv2d(x, weight, bias, stride, padding, dilation, groups)
        got = _replay(plan, x, weight, bias, groups)
        assert got.shape == want.shape and relative_max_error(got, want) < 1e-5, (plan, size, kernel, dilation)
    assert forms == set(DilatedForm)


@pytest.mark.parametrize("size,stride,depthwise,level,zero_point,form", [
    ((8, 8), [1, 1], False, 28, None, DilatedForm.SPACE_TO_BATCH),
    ((8, 8), [1, 1], False, 27, None, DilatedForm.ONE_HOT_IM2COL),          # no SPACE_TO_BATCH_ND at API 27
    ((8, 8), [1, 1], False, 28, 128, DilatedForm.ONE_HOT_IM2COL),           # Android 9 pads with code 0
    ((9, 9), [2, 2], False, 28, None, DilatedForm.ONE_HOT_IM2COL),          # a strided dilated axis
    ((8, 8), [1, 1], True, 27, None, DilatedForm.SPACE_TO_DEPTH),
    ((7, 8), [1, 1], True, 27, None, DilatedForm.WRITTEN_OUT),              # 7 is no multiple of 2
    ((9, 9), [2, 2], True, 28, 0, DilatedForm.WRITTEN_OUT),
], ids=["regular_28", "regular_27", "zero_point_128_at_28", "strided_28", "depthwise_27", "depthwise_odd_27",
        "depthwise_strided_28"])
def test_plan_picks_the_form(size, stride, depthwise, level, zero_point, form) -> None:
    plan = plan_dilated(size, (3, 3), stride, [2, 2], [2, 2], depthwise, FeatureLevel(level), zero_point)
    assert plan.form is form and plan.level <= level


def test_plan_refuses_a_dynamic_size_only() -> None:
    dynamic = plan_dilated((8, sympy.Symbol("w")), (3, 3), [1, 1], [2, 2], [2, 2], False, FeatureLevel.ANDROID_9,
                           None)
    assert "dynamic height or width" in dynamic


# ------------------------------------------------------------ float, end to end
class Dilated1d(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv1d(3, 4, 3, padding=2, dilation=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


FLOAT_CASES = {
    # name: (module, input shape, level, NNAPI operations in order)
    "same_padding": (lambda: torch.nn.Conv2d(4, 6, 3, padding=2, dilation=2), (1, 4, 8, 8), 28,
                     ["SPACE_TO_BATCH_ND", "CONV_2D", "BATCH_TO_SPACE_ND"]),
    "odd_size_cropped": (lambda: torch.nn.Conv2d(3, 5, 3, padding=2, dilation=2), (2, 3, 7, 9), 28,
                         ["SPACE_TO_BATCH_ND", "CONV_2D", "BATCH_TO_SPACE_ND", "STRIDED_SLICE"]),
    "no_padding": (lambda: torch.nn.Conv2d(3, 4, 3, dilation=3), (1, 3, 11, 10), 28,
                   ["SPACE_TO_BATCH_ND", "CONV_2D", "BATCH_TO_SPACE_ND", "STRIDED_SLICE"]),
    "depthwise_multiplier": (lambda: torch.nn.Conv2d(4, 8, 5, padding=4, dilation=2, groups=4), (1, 4, 9, 9), 28,
                             ["SPACE_TO_BATCH_ND", "DEPTHWISE_CONV_2D", "BATCH_TO_SPACE_ND", "STRIDED_SLICE"]),
    "height_only_strided_width": (lambda: torch.nn.Conv2d(3, 4, 3, stride=(1, 2), padding=(2, 1), dilation=(2, 1)),
                                  (1, 3, 8, 9), 28, ["SPACE_TO_BATCH_ND", "CONV_2D", "BATCH_TO_SPACE_ND"]),
    "dead_taps_cut": (lambda: torch.nn.Conv2d(3, 4, 5, padding=8, dilation=4), (1, 3, 6, 6), 28,
                      ["SPACE_TO_BATCH_ND", "CONV_2D", "BATCH_TO_SPACE_ND", "STRIDED_SLICE"]),
    "conv1d": (Dilated1d, (1, 3, 10), 28, ["RESHAPE", "SPACE_TO_BATCH_ND", "CONV_2D", "BATCH_TO_SPACE_ND", "RESHAPE"]),
    "fused_relu": (lambda: torch.nn.Sequential(torch.nn.Conv2d(4, 4, 3, padding=2, dilation=2), torch.nn.ReLU()),
                   (1, 4, 8, 8), 28, ["SPACE_TO_BATCH_ND", "CONV_2D", "BATCH_TO_SPACE_ND"]),
    "aspp_rate_beyond_the_map": (lambda: torch.nn.Conv2d(5, 3, 3, padding=12, dilation=12), (1, 5, 4, 4), 27,
                                 ["CONV_2D"]),
    "depthwise_at_27": (lambda: torch.nn.Conv2d(4, 4, 3, padding=2, dilation=2, groups=4), (2, 4, 8, 6), 27,
                        ["SPACE_TO_DEPTH", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE"]),
    "native_at_29": (lambda: torch.nn.Conv2d(4, 6, 3, padding=2, dilation=2), (1, 4, 7, 7), 29, ["CONV_2D"]),
    # Form 4: one one-hot DEPTHWISE_CONV_2D per dilated axis, then the CONV_2D.
    "regular_at_27": (lambda: torch.nn.Conv2d(4, 6, 3, padding=2, dilation=2), (1, 4, 8, 8), 27,
                      ["DEPTHWISE_CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D"]),
    "aspp_rate_12_on_16x16_at_27": (lambda: torch.nn.Conv2d(8, 5, 3, padding=12, dilation=12), (1, 8, 16, 16), 27,
                                    ["DEPTHWISE_CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D"]),
    "strided_at_28": (lambda: torch.nn.Conv2d(4, 6, 3, stride=2, padding=2, dilation=2), (1, 4, 9, 9), 28,
                      ["DEPTHWISE_CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D"]),
    # Only the height dilated: its taps join the channels, the CONV_2D keeps the width's taps and stride.
    "height_dilated_width_strided_at_27": (
        lambda: torch.nn.Conv2d(3, 5, 3, stride=(1, 2), padding=(2, 1), dilation=(2, 1)), (2, 3, 8, 9), 27,
        ["DEPTHWISE_CONV_2D", "CONV_2D"]),
    "conv1d_at_27": (Dilated1d, (1, 3, 10), 27, ["RESHAPE", "DEPTHWISE_CONV_2D", "CONV_2D", "RESHAPE"]),
    "fused_relu6_at_27": (lambda: torch.nn.Sequential(torch.nn.Conv2d(4, 4, 3, padding=3, dilation=3),
                                                      torch.nn.ReLU6()), (2, 4, 8, 7), 27,
                          ["DEPTHWISE_CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D"]),
    # Form 5: a depthwise one the SPACE_TO_DEPTH form cannot take, its kernel written out.
    "depthwise_odd_size_at_27": (lambda: torch.nn.Conv2d(4, 4, 3, padding=2, dilation=2, groups=4), (1, 4, 7, 8), 27,
                                 ["DEPTHWISE_CONV_2D"]),
    "depthwise_strided_multiplier_at_28": (
        lambda: torch.nn.Conv2d(4, 8, 3, stride=(2, 1), padding=2, dilation=2, groups=4), (1, 4, 9, 8), 28,
        ["DEPTHWISE_CONV_2D"]),
    # Dead taps cut on the dilated axis, the other axis keeping its padding (a plain CONV_2D).
    "dead_taps_cut_padded_width": (lambda: torch.nn.Conv2d(3, 4, 3, padding=(12, 1), dilation=(12, 1)),
                                   (1, 3, 4, 4), 27, ["CONV_2D"]),
}


@pytest.mark.parametrize("name", list(FLOAT_CASES))
def test_dilated_convolution_float(name: str) -> None:
    make, shape, level, operations = FLOAT_CASES[name]
    torch.manual_seed(0)
    low = check_delegated_and_matches(make(), (torch.randn(*shape),), feature_level=level,
                                      tolerance=FLOAT_TOLERANCE)
    assert low.num_delegates == 1 and low.nnapi_operations == operations


def test_dilated_convolution_of_dynamic_size_refused_with_reason() -> None:
    """The form depends on the sizes (the taps reading only padding, the crops): a dynamic height
    or width below API 29 stays on the CPU."""
    low = lower(torch.nn.Conv2d(4, 6, 3, padding=2, dilation=2), (torch.randn(1, 4, 8, 8),),
                dynamic_shapes=({3: torch.export.Dim("w", min=4, max=32)},), feature_level=27)
    assert low.cpu_ops == ["aten.convolution.default"]
    assert "dynamic height or width below API 29" in low.reasons["aten.convolution.default"][0]


# ------------------------------------------------------------ 8 bits
class ReluThenDilated(torch.nn.Module):
    """A dilated convolution reading a ReLU's 8-bit result: zero point 0 (uint8)."""

    def __init__(self, depthwise: bool = False) -> None:
        super().__init__()
        self.first = torch.nn.Conv2d(3, 4, 1)
        self.dilated = torch.nn.Conv2d(4, 4, 3, padding=2, dilation=2, groups=4 if depthwise else 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dilated(torch.relu(self.first(x)))


QUANTIZED_CASES = {
    # name: (module, input shape, level, the dilated form's operations)
    "zero_point_0_space_to_batch": (ReluThenDilated, (1, 3, 8, 8), 28, ["SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND"]),
    "zero_point_0_cropped": (ReluThenDilated, (1, 3, 7, 9), 28,
                             ["SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND", "STRIDED_SLICE"]),
    "zero_point_not_0_depthwise_space_to_depth": (
        lambda: torch.nn.Conv2d(3, 6, 3, padding=2, dilation=2, groups=3), (1, 3, 8, 8), 28,
        ["SPACE_TO_DEPTH", "DEPTH_TO_SPACE"]),
    "depthwise_at_27": (lambda: ReluThenDilated(depthwise=True), (2, 3, 8, 8), 27,
                        ["SPACE_TO_DEPTH", "DEPTH_TO_SPACE"]),
    # Form 4: the one-hot depthwise keeps the codes (filter 2 x 0.5), the CONV_2D the original codes.
    "regular_at_27_im2col": (ReluThenDilated, (1, 3, 8, 8), 27, ["DEPTHWISE_CONV_2D", "CONV_2D"]),
    "zero_point_not_0_regular_at_28_im2col": (lambda: torch.nn.Conv2d(3, 4, 3, padding=2, dilation=2), (1, 3, 8, 8),
                                               28, ["DEPTHWISE_CONV_2D", "CONV_2D"]),
    "strided_at_27_im2col": (lambda: torch.nn.Conv2d(3, 4, 3, stride=2, padding=3, dilation=3), (1, 3, 9, 9), 27,
                             ["DEPTHWISE_CONV_2D", "CONV_2D"]),
    # Form 5: the written-out kernel's zeros are the weight's zero point.
    "depthwise_odd_size_at_27_written_out": (lambda: torch.nn.Conv2d(3, 3, 3, padding=2, dilation=2, groups=3),
                                             (1, 3, 7, 8), 27, ["DEPTHWISE_CONV_2D"]),
}


@pytest.mark.parametrize("name", list(QUANTIZED_CASES))
def test_dilated_convolution_8_bit(name: str) -> None:
    """uint8 (int8 needs API 30, where dilation is native): the forms move the codes, the
    convolution pads with the zero point; within one output step of convert_pt2e."""
    make, shape, level, operations = QUANTIZED_CASES[name]
    torch.manual_seed(0)
    example = (torch.randn(*shape),)
    gm = quantize(make(), example, signed=False, feature_level=level)
    low = lower(gm, example, feature_level=level)
    # No QUANTIZE before API 29: the program's input is quantized on the CPU.
    assert low.num_delegates == 1 and set(low.cpu_ops) <= {QUANTIZE}, (low.cpu_ops, low.reasons)
    ops = quantized_inside(low.raw_blobs[0])
    assert all(op in ops for op in operations), ops
    step = output_step(gm)
    for inputs in (example, (torch.randn(*shape) * 2,)):
        err = (run_pte(low.pte, list(inputs), level)[0] - gm(*inputs)).abs().max().item()
        assert err <= step * 1.0001, f"max error {err} > one step {step}"


def test_8_bit_one_hot_columns_are_the_input_codes() -> None:
    """Form 4 in 8 bits: the columns (the one-hot depthwise results) are exactly the input's codes
    (exact, not within a step): the CONV_2D then sums the original convolution's integers, so
    the result equals the same convolution lowered at API 29 with its dilation operands."""
    torch.manual_seed(0)
    example = (torch.randn(1, 3, 8, 8),)
    gm = quantize(torch.nn.Conv2d(3, 4, 3, padding=2, dilation=2), example, signed=False, feature_level=28)
    at_27, at_29 = (lower(gm, example, feature_level=level) for level in (27, 29))
    assert "CONV_2D" in at_27.nnapi_operations and at_27.nnapi_operations.count("DEPTHWISE_CONV_2D") == 2
    for inputs in (example, (torch.randn(1, 3, 8, 8) * 2,)):
        assert torch.equal(run_pte(at_27.pte, list(inputs), 27)[0], run_pte(at_29.pte, list(inputs), 29)[0])


# ------------------------------------------------------------ DeepLabV3
class SegmentationOut(torch.nn.Module):
    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)["out"]


@pytest.mark.parametrize("level", [27, 28])
def test_deeplabv3_mobilenet_v3_large_below_api_29(level: int) -> None:
    """One subgraph at API 27 and 28: the backbone's dilated depthwise convolutions take the
    SPACE_TO_DEPTH (27) or SPACE_TO_BATCH_ND (28) form, ASPP's rates reach past the 4x4 map (a
    plain CONV_2D), its pooling branch's resize from 1x1 is a RESIZE_BILINEAR without flags, and
    the last resize (4x4 -> 64x64) the interpolation matrices of test_resize_before_api30.py.
    (At 256x256 the rate-12 convolution is live: tests/models/test_feature_levels_zoo.py.)"""
    torch.manual_seed(0)
    model = SegmentationOut(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None)).eval()
    x = torch.randn(1, 3, 64, 64)
    low = lower(model, (x,), feature_level=level)
    assert low.cpu_ops == [] and low.num_delegates == 1, low.reasons
    expected = {27: "SPACE_TO_DEPTH", 28: "SPACE_TO_BATCH_ND"}[level]
    assert low.nnapi_operations.count(expected) == 3   # the 3 dilated depthwise convolutions
    assert low.nnapi_operations.count("RESIZE_BILINEAR") == 1
    assert low.nnapi_operations.count("TRANSPOSE") == {27: 0, 28: 2}[level]
    (got,) = run_pte(low.pte, [x], level)
    with torch.no_grad():
        assert relative_max_error(got, model(x)) < 1e-4


# ------------------------------------------------------------ local response norm
LRN_CASES = {
    # name: (LocalResponseNorm(size, alpha, beta, k), level); alpha large enough to matter
    "size_5": ((5, 2.0, 0.75, 2.0), 27),
    "size_3_beta_1": ((3, 0.5, 1.0, 1.0), 28),
    "size_1": ((1, 1.0, 0.5, 0.5), 29),
    "size_7_wider_than_half_the_channels": ((7, 4.0, 0.6, 3.0), 30),
    "torch_defaults": ((5, 1e-4, 0.75, 1.0), 27),
    "k_0": ((3, 1.0, 0.75, 0.0), 30),
}


@pytest.mark.parametrize("name", list(LRN_CASES))
def test_local_response_norm_after_conv(name: str) -> None:
    """NHWC after a convolution: one LOCAL_RESPONSE_NORMALIZATION on the last axis, at every level."""
    (size, alpha, beta, k), level = LRN_CASES[name]
    torch.manual_seed(0)
    model = AfterConv(torch.nn.LocalResponseNorm(size, alpha, beta, k), 3, 7)
    low = check_delegated_and_matches(model, (torch.randn(2, 3, 6, 5),), feature_level=level,
                                      tolerance=FLOAT_TOLERANCE)
    assert low.nnapi_operations == ["CONV_2D", "LOCAL_RESPONSE_NORMALIZATION"]


@pytest.mark.parametrize("level,operations", [
    (28, ["TRANSPOSE", "LOCAL_RESPONSE_NORMALIZATION"]),     # to NHWC (the runtime permutes the result back)
    (29, ["LOCAL_RESPONSE_NORMALIZATION"]),                  # its axis operand: 1
])
def test_local_response_norm_of_a_value_in_pytorch_order(level: int, operations: list[str]) -> None:
    torch.manual_seed(0)
    low = check_delegated_and_matches(torch.nn.LocalResponseNorm(3, 1.0, 0.75, 1.0), (torch.randn(1, 6, 4, 5),),
                                      feature_level=level, tolerance=FLOAT_TOLERANCE)
    assert low.nnapi_operations == operations


def test_local_response_norm_in_pytorch_order_at_27_is_decided_node_by_node() -> None:
    """No TRANSPOSE and no axis operand at API 27: the pattern is dropped and its nodes are
    decided alone (the pool delegated: ExecuTorch's CPU kernels have no avg_pool3d)."""
    torch.manual_seed(0)
    model = torch.nn.LocalResponseNorm(3, 1.0, 0.75, 1.0)
    x = torch.randn(1, 6, 4, 5)
    low = lower(model, (x,), feature_level=27)
    assert "LOCAL_RESPONSE_NORMALIZATION" not in low.nnapi_operations
    assert "aten.avg_pool3d.default" not in low.cpu_ops
    (got,) = run_pte(low.pte, [x], 27)
    assert relative_max_error(got, model(x)) < FLOAT_TOLERANCE


def test_local_response_norm_of_even_size_is_not_one_operation() -> None:
    """torch's window of an even size is c - size/2 .. c + size/2 - 1, NNAPI's symmetric: the
    nodes go to their own builders (the rank-5 view and pad stay on the CPU), and the program runs."""
    torch.manual_seed(0)
    model = AfterConv(torch.nn.LocalResponseNorm(4, 2.0, 0.75, 2.0), 3, 7)
    x = torch.randn(2, 3, 6, 5)
    low = lower(model, (x,), feature_level=30)
    assert "LOCAL_RESPONSE_NORMALIZATION" not in low.nnapi_operations
    assert "aten.constant_pad_nd.default" in low.cpu_ops
    assert any("rank 5" in r or "rank-5" in r for reasons in low.reasons.values() for r in reasons), low.reasons
    (got,) = run_pte(low.pte, [x], 30)
    with torch.no_grad():
        assert relative_max_error(got, model(x)) < FLOAT_TOLERANCE


class _Replacing(torch.fx.Interpreter):
    """Runs a GraphModule with the values of ``nodes`` replaced by ``value``."""

    def __init__(self, gm: torch.fx.GraphModule, nodes: set, value: torch.Tensor) -> None:
        super().__init__(gm)
        self.nodes, self.value = nodes, value

    def run_node(self, n: torch.fx.Node):
        return self.value if n in self.nodes else super().run_node(n)


def _up_to(gm: torch.fx.GraphModule, node: torch.fx.Node) -> torch.fx.GraphModule:
    """A copy of ``gm`` whose output is ``node``'s value."""
    copy = copy_module(gm)
    inner = next(n for n in copy.graph.nodes if n.name == node.name)
    out = next(n for n in copy.graph.nodes if n.op == "output")
    out.args = ((inner,),)
    copy.graph.eliminate_dead_code()
    copy.recompile()
    return copy


@pytest.mark.parametrize("level", [27, 30])
def test_local_response_norm_in_a_quantized_model(level: int) -> None:
    """NNAPI's operation is float only: it squares the dequantized input in float32. NnapiQuantizer
    leaves the squares float too (only float operations read them), so convert_pt2e's model computes
    the same float arithmetic from the convolution's codes. On the convolution's 8-bit result as
    NNAPI computes it (the same program cut after the convolution, run alone), the result equals
    torch's local response norm and convert_pt2e's model (1e-5)."""
    size, alpha, beta, k = 5, 2.0, 0.75, 2.0
    torch.manual_seed(0)
    model = AfterConv(torch.nn.LocalResponseNorm(size, alpha, beta, k), 3, 7)
    example = (torch.randn(1, 3, 6, 5),)
    gm = quantize(model, example, signed=False, feature_level=level)
    low = lower(gm, example, feature_level=level)
    assert low.num_delegates == 1 and set(low.cpu_ops) <= {QUANTIZE}, (low.cpu_ops, low.reasons)
    assert low.nnapi_operations[-2:] == ["DEQUANTIZE", "LOCAL_RESPONSE_NORMALIZATION"]

    square = next(n for n in gm.graph.nodes if n.op == "call_function" and "mul" in str(n.target))
    assert not any("quantize" in str(u.target) for u in square.users)   # the squares stay float
    conv_codes = square.args[0].args[0]
    readers = {u for u in conv_codes.users}           # the square's and the division's dequantize
    conv_alone = _up_to(gm, square.args[0])
    conv_lowered = lower(conv_alone, example, feature_level=level)
    for inputs in (example, (torch.randn(1, 3, 6, 5) * 2,)):
        x = run_pte(conv_lowered.pte, list(inputs), level)[0]
        assert (x - conv_alone(*inputs)).abs().max() <= float(square.args[0].args[1]) * 1.0001
        got = run_pte(low.pte, list(inputs), level)[0]
        assert relative_max_error(got, F.local_response_norm(x, size, alpha, beta, k)) < FLOAT_TOLERANCE
        assert relative_max_error(got, _Replacing(gm, readers, x).run(*inputs)) < FLOAT_TOLERANCE


def test_pattern_needs_the_whole_decomposition() -> None:
    """A hand-written x / (k + alpha * x^2)^beta is no local response norm (no channel window)."""
    model = AfterConv(lambda y: y / (2.0 + 0.5 * y * y) ** 0.75, 3, 4)
    low = lower(model, (torch.randn(1, 3, 5, 5),), feature_level=30)
    assert "LOCAL_RESPONSE_NORMALIZATION" not in low.nnapi_operations

