"""PyTorch's bilinear resize below API 30 as two constant matrix products (DEPTHWISE_CONV_2D).

Why: RESIZE_BILINEAR maps PyTorch's coordinates only from API 30 (its half_pixel_centers and
align_corners flags); before, it has TF1's asymmetric mapping src = dst * in / out alone, which
matches neither PyTorch mode (and has no 8-bit form before API 29).

The exact form: with static sizes bilinear resizing is linear and separable, out = R_h . X . R_w^T
per channel, where R ([out, in], ``bilinear_matrix``) holds PyTorch's two weights per output
position, computed at lowering time by PyTorch's own rule in float32 (its scale in / out, or
1 / scale_factor, or (in - 1) / (out - 1) with align_corners; half-pixel source index clamped at
0; the upper neighbour clamped to the last sample; an axis of unchanged size copied). Each
product is one DEPTHWISE_CONV_2D whose kernel covers the resized axis whole (VALID) with a depth
multiplier of the new size: output channel k * M + j = sum_i R[j, i] * x[i, k], i.e. the new
axis comes out after the channel. On NHWC [N, H, W, C] (memory order H, W, C):

1. height: kernel H x 1, multiplier oh -> [N, 1, W, C * oh], memory (W, C, oh);
2. C moved behind oh -> (W, oh, C);
3. width: kernel W x 1 on [N, W, oh, C], multiplier ow -> [N, 1, oh, C * ow], memory (oh, C, ow);
4. C moved last -> (oh, ow, C): NHWC [N, oh, ow, C].

A move of C is a TRANSPOSE from API 28. API 27 has no TRANSPOSE: there it is a DEPTHWISE_CONV_2D
over the C axis (the width of [N, A, C, B]) with multiplier C and one-hot weights (channel
b * C + c takes 1.0 x element c): its products are by exactly 1.0 and 0.0, so the values move
unchanged. With one channel a move is a RESHAPE. RESHAPEs between the steps change no bytes.
A height kept as is (same size, identity mapping) skips steps 1-2 (step 3's kernel then spans
the width of [N, H, W, C]); a width kept as is makes steps 2-4 one TRANSPOSE from API 28
((W, C, oh) -> (oh, W, C)), and still takes step 3 at API 27 (the product is what moves W there).

Cost, per output element: W multiply-adds (step 3) plus, at API 27, C (step 4); steps 1-2 add
H (+ C at API 27) per element of the [W, C, oh] intermediate. Constants: H * C * oh + W * C * ow
floats (+ C * C * (oh + ow) at API 27), each operand at most 2^24 elements (refused beyond). For
DeepLabV3's last resize at 256x256 (16x16x21 -> 256x256x21): 54 M multiply-adds and 0.4 M
constants (1.6 MB) at API 27, 24 M and 0.17 M at API 28.

Other forms weighed: FULLY_CONNECTED with R (upsample_bicubic2d.py's form) contracts the last
axis only, so each product needs the axis moved last first and the channels moved back after; a
depthwise product reads the axis where it is, leaving one move per axis. At API 27,
FULLY_CONNECTED over [N * H, W * C] with kron(R_w, I_C) resizes the width only, at W * C
multiply-adds per output element and a W * C * ow * C weight. TF1's RESIZE_BILINEAR on an input
edge-padded by one, then a strided one-hot DEPTHWISE_CONV_2D picking PyTorch's samples, is exact
only where the two sample grids line up: for an even integer factor r the intermediate has
2r(n + 1) rows and the picking kernel 2r + 2 taps, but for DeepLabV3 at 520x520 (33 -> 520) the
common grid step is 1/1040 of a pixel and the picking kernel over 1000 taps.

The products are float32 sums of the same two weighted samples PyTorch adds (the others are exact
zeros), in another order: equal within float32 rounding. 8 bits: NNAPI's 8-bit products would
requantize each stage; the quantizer leaves the resize float below API 30 (its 8-bit form needs
API 30's flags), so this form is float32 only.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..shape_program import Dim

# Largest constant operand (elements) the form emits: 2^24 float32 values are 64 MiB.
MAX_WEIGHT_ELEMENTS = 2**24


def bilinear_matrix(in_size: int, out_size: int, align_corners: bool, scale: Optional[float] = None) -> torch.Tensor:
    """The [out_size, in_size] float32 matrix R with ``out = R @ in`` along one axis, as PyTorch's
    upsample_bilinear2d computes it (scale, source index and weights in float32).

    ``scale``: the scale_factor given to interpolate for this axis (without align_corners PyTorch
    then maps output coordinates with 1 / scale_factor rather than in / out). An axis whose size
    does not change is copied, whatever the scale_factor (PyTorch's kernel tests the sizes first)."""
    f32 = torch.float32
    if in_size == out_size:
        return torch.eye(in_size, dtype=f32)
    dst = torch.arange(out_size, dtype=f32)
    if align_corners:
        ratio = (torch.tensor(in_size - 1, dtype=f32) / (out_size - 1) if out_size > 1
                 else torch.tensor(0.0, dtype=f32))
        source = ratio * dst
    else:
        ratio = (torch.tensor(1.0 / scale, dtype=f32) if scale is not None and scale > 0
                 else torch.tensor(in_size, dtype=f32) / out_size)
        source = torch.clamp(ratio * (dst + 0.5) - 0.5, min=0.0)
    lower = torch.clamp(source.to(torch.int64), max=in_size - 1)        # source >= 0: truncation is floor
    upper = torch.clamp(lower + 1, max=in_size - 1)
    upper_weight = torch.clamp(source - lower.to(f32), 0.0, 1.0)
    matrix = torch.zeros(out_size, in_size, dtype=f32)
    rows = torch.arange(out_size)
    matrix.index_put_((rows, lower), 1.0 - upper_weight, accumulate=True)
    matrix.index_put_((rows, upper), upper_weight, accumulate=True)
    return matrix


def is_identity(matrix: torch.Tensor) -> bool:
    """Whether ``matrix`` maps an axis onto itself unchanged."""
    return matrix.shape[0] == matrix.shape[1] and torch.equal(matrix, torch.eye(matrix.shape[0]))


def _constant_sizes(in_hw: Sequence[int], out_hw: Sequence[int], channels: int, keep_height: bool,
                    level: FeatureLevel) -> dict[str, int]:
    """Each constant operand's element count (module docstring)."""
    (h, w), (oh, ow) = in_hw, out_hw
    sizes = {"width product": w * channels * ow}
    if not keep_height:
        sizes["height product"] = h * channels * oh
    if level < FeatureLevel.ANDROID_9 and channels > 1:
        sizes["channel move"] = channels * channels * max(oh, ow)
    return sizes


def matrix_resize_refusal(in_hw: Sequence[int], out_hw: Sequence[int], channels: int, keep_height: bool,
                          level: FeatureLevel) -> str | None:
    """Why the form would be too large (a constant operand over 2^24 elements), or None."""
    for what, size in _constant_sizes(in_hw, out_hw, channels, keep_height, level).items():
        if size > MAX_WEIGHT_ELEMENTS:
            return (f"bilinear resize {list(in_hw)} -> {list(out_hw)} of {channels} channels below API 30: its "
                    f"{what}'s constant has {size} elements, more than 2^24 (64 MiB)")
    return None


def _depthwise_product(lc: LoweringContext, source: int, matrix: torch.Tensor, channels: int, over_width: bool,
                       shape: Sequence[Dim], name: str) -> int:
    """DEPTHWISE_CONV_2D of 4-D ``source`` (``channels`` channels) whose kernel covers its height
    (or, ``over_width``, its width) whole, multiplier M = matrix rows: output channel k * M + j is
    sum_i matrix[j, i] * source[.., i, .., k]; the result has physical ``shape``."""
    g = lc.graph
    rows, taps = matrix.shape
    weights = matrix.t().unsqueeze(1).expand(taps, channels, rows)        # [i, k, j] = matrix[j, i]
    weights = weights.reshape((1, 1, taps, -1) if over_width else (1, taps, 1, -1))
    filt = g.emit_constant_tensor(weights.contiguous(), debug_name=f"{name} (weights)")
    bias = g.emit_constant_tensor(torch.zeros(channels * rows), debug_name=f"{name} (zero bias)")
    result = g.emit_like(source, shape, debug_name=name)
    zero, one = g.emit_int32(0), g.emit_int32(1)
    g.emit_operation(OperationCode.DEPTHWISE_CONV_2D,
                     [source, filt, bias, zero, zero, zero, zero, one, one, g.emit_int32(rows),
                      g.emit_int32(int(FuseCode.NONE))], [result], debug_name=name)
    return result


def _reshaped(lc: LoweringContext, source: int, shape: Sequence[Dim], name: str, out: int | None = None) -> int:
    g = lc.graph
    out = g.emit_like(source, shape, debug_name=name) if out is None else out
    g.emit_operation(OperationCode.RESHAPE, [source, g.emit_int32_vector(list(shape))], [out], debug_name=name)
    return out


def _channels_behind(lc: LoweringContext, source: int, dims: Sequence[Dim], name: str, out: int | None = None) -> int:
    """``source`` holding [N, A, C, B] (memory A, C, B; any 4-D shape of those bytes) as [N, A, B, C]: a
    RESHAPE (C = 1), or TRANSPOSE (API 28) or one-hot DEPTHWISE_CONV_2D over the C axis (API 27; module
    docstring) of its [N, A, C, B] view."""
    g = lc.graph
    n, a, channels, b = dims
    shape = [n, a, b, channels]
    if channels == 1:
        return _reshaped(lc, source, shape, name, out)
    source = _reshaped(lc, source, [n, a, channels, b], f"{name} (split)")
    if g.feature_level >= FeatureLevel.ANDROID_9:
        out = g.emit_like(source, shape, debug_name=name) if out is None else out
        g.emit_operation(OperationCode.TRANSPOSE, [source, g.emit_int32_vector([0, 1, 3, 2])], [out], debug_name=name)
        return out
    moved = _depthwise_product(lc, source, torch.eye(channels), b, True, [n, a, 1, b * channels],
                               f"{name} (one-hot)")
    return _reshaped(lc, moved, shape, name, out)


def emit_matrix_resize(lc: LoweringContext, source: int, out: int, dims: Sequence[Dim],
                       matrices: tuple[torch.Tensor, torch.Tensor], name: str) -> None:
    """NHWC ``source`` ([N, H, W, C] = ``dims``) resized into NHWC ``out`` by (R_h, R_w)
    = ``matrices`` (module docstring's steps)."""
    n, h, w, channels = dims
    rh, rw = matrices
    oh, ow = rh.shape[0], rw.shape[0]
    if is_identity(rh) and is_identity(rw):
        _reshaped(lc, source, [n, oh, ow, channels], f"{name} (copy)", out)
        return
    if is_identity(rh):
        product = _depthwise_product(lc, source, rw, channels, True, [n, h, 1, channels * ow], f"{name} (width)")
    else:
        tall = _depthwise_product(lc, source, rh, channels, False, [n, 1, w, channels * oh], f"{name} (height)")
        if is_identity(rw) and lc.graph.feature_level >= FeatureLevel.ANDROID_9:
            # A kept width at API 28: memory (W, C, oh) -> (oh, W, C) by one TRANSPOSE.
            tall = _reshaped(lc, tall, [n, w, channels, oh], f"{name} (height, split)")
            lc.graph.emit_operation(OperationCode.TRANSPOSE, [tall, lc.graph.emit_int32_vector([0, 3, 1, 2])], [out],
                                    debug_name=f"{name} (height first)")
            return
        tall = _channels_behind(lc, tall, [n, w, channels, oh], f"{name} (height, channels last)")
        product = _depthwise_product(lc, tall, rw, channels, False, [n, 1, oh, channels * ow], f"{name} (width)")
    _channels_behind(lc, product, [n, oh, channels, ow], f"{name} (channels last)", out)


__all__ = ["MAX_WEIGHT_ELEMENTS", "bilinear_matrix", "emit_matrix_resize", "is_identity", "matrix_resize_refusal"]
