"""RESIZE_BILINEAR (23): bilinear resize with the legacy, align_corners or half_pixel_centers mapping.

8-bit operands are interpolated on their codes as Android 11's CPU implementation does
(docs/nnapi_facts.md §9.14): TFLite's reference ResizeBilinear of that generation, a float32
weighted sum of the four neighbouring codes, truncated toward zero.
"""

import torch

from ._resize import scale_of, spatial_axes, validate_resize
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "RESIZE_BILINEAR", 23, 27
QUANT_COMPUTE = True
TYPES = {F32: 27, F16: 29, QA8: 29, QA8S: 30}
_CODE_RANGE = {torch.uint8: (0, 255), torch.int8: (-128, 127)}


def validate(c: Ctx) -> None:
    in_h, in_w, out_h, out_w = validate_resize(c, TYPES, 3)
    c.p.quant = c.type(0) in (QA8, QA8S)
    axis = _code_axis if c.p.quant else _axis
    c.p.rows = axis(in_h, out_h, c.p.align_corners, c.p.half_pixel)
    c.p.cols = axis(in_w, out_w, c.p.align_corners, c.p.half_pixel)


def _source(size_in: int, size_out: int, align: bool, half: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The float32 source coordinate of each output position and its low index max(floor, 0), as TFLite's
    ComputeInterpolationValues forms them."""
    scale = scale_of(size_in, size_out, align)
    dst = torch.arange(size_out, dtype=torch.float32)
    src = (dst + 0.5) * scale - 0.5 if half else dst * scale
    return src, torch.clamp(torch.floor(src), min=0)


def _axis(size_in: int, size_out: int, align: bool, half: bool):
    """(low index, high index, weight of high) per output position, in float32 like TFLite."""
    src, low = _source(size_in, size_out, align, half)
    high = torch.clamp(torch.ceil(src) if half else low + 1, max=size_in - 1)
    return low.long(), high.long(), (src - low).clamp(min=0) if half else src - low


def _code_axis(size_in: int, size_out: int, align: bool, half: bool):
    """(low, high, weight of high) per output position exactly as TFLite's reference kernel forms them:
    high = min(ceil, in - 1), weight = source - low, not clamped (a half-pixel source of -0.25 weighs the
    edge 1.25 and -0.25)."""
    src, low = _source(size_in, size_out, align, half)
    high = torch.clamp(torch.ceil(src), max=size_in - 1)
    return low.long(), high.long(), src - low


def _lerp(x: torch.Tensor, axis: int, rows) -> torch.Tensor:
    low, high, w = rows
    shape = [1] * x.dim()
    shape[axis] = -1
    a, b = torch.index_select(x, axis, low), torch.index_select(x, axis, high)
    return torch.lerp(a, b, w.view(shape))


def _interpolate_codes(x: torch.Tensor, p) -> torch.Tensor:
    """The codes' weighted sum, each float32 operation in the C expression's order
    ``q00*(1-fy)*(1-fx) + q10*fy*(1-fx) + q01*(1-fy)*fx + q11*fy*fx``, truncated toward zero
    (``static_cast`` to the code type)."""
    h_axis, w_axis = spatial_axes(p.nchw)
    (y0, y1, fy), (x0, x1, fx) = p.rows, p.cols
    shape_h, shape_w = [1] * 4, [1] * 4
    shape_h[h_axis], shape_w[w_axis] = -1, -1
    fy, fx = fy.view(shape_h), fx.view(shape_w)
    gy, gx = 1 - fy, 1 - fx
    v = x.to(torch.float32)
    top, bottom = torch.index_select(v, h_axis, y0), torch.index_select(v, h_axis, y1)
    q00, q01 = torch.index_select(top, w_axis, x0), torch.index_select(top, w_axis, x1)
    q10, q11 = torch.index_select(bottom, w_axis, x0), torch.index_select(bottom, w_axis, x1)
    total = q00 * gy * gx + q10 * fy * gx + q01 * gy * fx + q11 * fy * fx
    # The weights sum to 1, so the sum stays in the code range up to float32 rounding; the clamp only
    # keeps such a rounding (255.00002) from wrapping.
    return torch.trunc(total).clamp(*_CODE_RANGE[x.dtype]).to(x.dtype)


def compute(ins, p):
    if p.quant:
        return [_interpolate_codes(ins[0], p)]
    h_axis, w_axis = spatial_axes(p.nchw)
    return [_lerp(_lerp(ins[0], h_axis, p.rows), w_axis, p.cols)]
