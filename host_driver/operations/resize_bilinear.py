"""RESIZE_BILINEAR (23): bilinear resize with the legacy, align_corners or half_pixel_centers mapping."""

import torch

from ._resize import scale_of, spatial_axes, validate_resize
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "RESIZE_BILINEAR", 23, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29, QA8: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    in_h, in_w, out_h, out_w = validate_resize(c, TYPES, 3)
    c.p.rows = _axis(in_h, out_h, c.p.align_corners, c.p.half_pixel)
    c.p.cols = _axis(in_w, out_w, c.p.align_corners, c.p.half_pixel)


def _axis(size_in: int, size_out: int, align: bool, half: bool):
    """(low index, high index, weight of high) per output position, in float32 like TFLite."""
    scale = scale_of(size_in, size_out, align)
    dst = torch.arange(size_out, dtype=torch.float32)
    src = (dst + 0.5) * scale - 0.5 if half else dst * scale
    low = torch.clamp(torch.floor(src), min=0)
    high = torch.clamp(torch.ceil(src) if half else low + 1, max=size_in - 1)
    return low.long(), high.long(), (src - low).clamp(min=0) if half else src - low


def _lerp(x: torch.Tensor, axis: int, rows) -> torch.Tensor:
    low, high, w = rows
    shape = [1] * x.dim()
    shape[axis] = -1
    a, b = torch.index_select(x, axis, low), torch.index_select(x, axis, high)
    return torch.lerp(a, b, w.view(shape))


def compute(ins, p):
    h_axis, w_axis = spatial_axes(p.nchw)
    return [_lerp(_lerp(ins[0], h_axis, p.rows), w_axis, p.cols)]
