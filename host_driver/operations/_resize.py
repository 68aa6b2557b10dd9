"""Shared parts of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (docs/nnapi_facts.md §6.5, §7.6)."""

from __future__ import annotations

import math

import torch

from ..operand_types import BOOL, FLOAT16, FLOAT32, INT32
from .common import F16, Ctx, layout_dims, layout_flag, layout_value, nhwc_dims


def validate_resize(c: Ctx, types: dict[int, int], min_inputs: int) -> tuple[int, int, int, int]:
    """Checks the size/scale form, layout, align_corners and half_pixel_centers flags.

    Sets p.nchw, p.align_corners, p.half_pixel and returns (in_h, in_w, out_h, out_w).
    """
    c.counts(range(min_inputs, 7))
    t = c.tensor(0, types)
    scale_type = FLOAT16 if t == F16 else FLOAT32
    by_scale = c.scalar(1, (INT32, scale_type), "output width or width scale") != INT32
    c.scalar(2, scale_type if by_scale else INT32, "output height or height scale")
    if by_scale:
        c.require_level(29, "resizing by scale")
    layout_flag(c, 3)
    for i, name in ((4, "align_corners"), (5, "half_pixel_centers")):
        if c.n_in > i:
            c.scalar(i, BOOL, name)
            c.require_level(30, name)
    c.out_like(0, 0)
    c.p.nchw = nchw = layout_value(c, 3)
    c.p.align_corners = c.n_in > 4 and bool(c.value(4, "align_corners"))
    c.p.half_pixel = c.n_in > 5 and bool(c.value(5, "half_pixel_centers"))
    if c.p.align_corners and c.p.half_pixel:
        c.fail("align_corners and half_pixel_centers cannot both be true")
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    n, in_h, in_w, ch = nhwc_dims(c.dims(0), nchw)
    if by_scale:
        sw, sh = c.value(1, "width_scale"), c.value(2, "height_scale")
        # new = floor(size * scale) with a float32 product.
        out_w = math.floor(_f32(in_w) * _f32(sw)) if sw > 0 else 0
        out_h = math.floor(_f32(in_h) * _f32(sh)) if sh > 0 else 0
    else:
        out_w, out_h = c.value(1, "output width"), c.value(2, "output height")
    if out_w <= 0 or out_h <= 0:
        c.fail(f"the output size {out_h}x{out_w} (height x width) must be positive")
    c.set_out(0, layout_dims(n, out_h, out_w, ch, nchw))
    return in_h, in_w, out_h, out_w


def _f32(x: float) -> float:
    return float(torch.tensor(x, dtype=torch.float32))


def scale_of(size_in: int, size_out: int, align_corners: bool) -> torch.Tensor:
    """The float32 coordinate scale."""
    if align_corners and size_out > 1:
        size_in, size_out = size_in - 1, size_out - 1
    return torch.tensor(size_in, dtype=torch.float32) / torch.tensor(size_out, dtype=torch.float32)


def spatial_axes(nchw: bool) -> tuple[int, int]:
    """(H axis, W axis) of a rank-4 tensor in the op's layout."""
    return (2, 3) if nchw else (1, 2)
