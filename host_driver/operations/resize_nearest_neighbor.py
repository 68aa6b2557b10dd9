"""RESIZE_NEAREST_NEIGHBOR (94): nearest-neighbour resize (legacy, align_corners or half_pixel_centers)."""

import torch

from ._resize import scale_of, spatial_axes, validate_resize
from .common import FLOAT_QUANT_29, Ctx

NAME, CODE, SINCE = "RESIZE_NEAREST_NEIGHBOR", 94, 29
QUANT_COMPUTE = True  # copies codes


def validate(c: Ctx) -> None:
    # The reference implementation needs the layout input (4 inputs at least).
    in_h, in_w, out_h, out_w = validate_resize(c, FLOAT_QUANT_29, 4)
    c.p.rows = _indices(in_h, out_h, c.p.align_corners, c.p.half_pixel)
    c.p.cols = _indices(in_w, out_w, c.p.align_corners, c.p.half_pixel)


def _indices(size_in: int, size_out: int, align: bool, half: bool) -> torch.Tensor:
    scale = scale_of(size_in, size_out, align)
    dst = torch.arange(size_out, dtype=torch.float32)
    if align:
        v = dst * scale
        idx = torch.floor(v.abs() + 0.5) * torch.sign(v)  # round half away from zero
    elif half:
        idx = torch.floor((dst + 0.5) * scale)
    else:
        idx = torch.floor(dst * scale)
    return idx.clamp(0, size_in - 1).long()


def compute(ins, p):
    h_axis, w_axis = spatial_axes(p.nchw)
    x = torch.index_select(ins[0], h_axis, p.rows)
    return [torch.index_select(x, w_axis, p.cols)]
