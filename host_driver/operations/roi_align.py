"""ROI_ALIGN (81): per region, the average of bilinear samples on a regular grid in each output
bin, Android's reference arithmetic in float32 (Caffe2's: no half-pixel offset, a region at least
one cell wide and high, samples past the last row or column clamped to it).

The 8-bit form follows the reference's integer kernel: each bilinear weight rounded to a multiple
of 1/255, the weighted sums of (code - zeroPoint) accumulated in integers, and the mean brought to
the output's quantization by one fixed-point multiplier per region."""

from __future__ import annotations

import math

import torch

from ..errors import op_failed
from . import _qmath as qm
from ._roi import regions, validate_roi_operands
from .common import INT32, Ctx, f32, from_nchw

NAME, CODE, SINCE = "ROI_ALIGN", 81, 29
QUANT_COMPUTE = True

# The 8-bit kernel's bilinear weights are multiples of this float32 step.
WEIGHT_STEP = f32(1.0 / 255.0)


def validate(c: Ctx) -> None:
    c.scalar(7, INT32, "height sampling ratio")
    c.scalar(8, INT32, "width sampling ratio")
    validate_roi_operands(c, 10, 9, same_q=False)
    c.p.h_ratio, c.p.w_ratio = int(c.value(7)), int(c.value(8))
    if c.p.h_ratio < 0 or c.p.w_ratio < 0:
        c.fail(f"sampling ratios ({c.p.h_ratio}, {c.p.w_ratio}) must be >= 0 (0: adaptive)")


def _axis(start: torch.Tensor, end: torch.Tensor, bins: int, ratio: int, size: int):
    """Sample positions along one axis: (low index, high index, weight of the high one), each
    [bins, samples], in float32 as the reference computes them."""
    extent = torch.clamp(end - start, min=1.0)
    step = extent / bins
    samples = ratio if ratio > 0 else int(math.ceil(step.item()))
    sub = step / samples
    first = step * torch.arange(bins, dtype=torch.float32) + start
    pos = (first[:, None] + sub / 2) + sub * torch.arange(samples, dtype=torch.float32)[None, :]
    low = torch.floor(pos)
    frac = pos - low
    low = low.long()
    edge = low >= size - 1
    low = torch.where(edge, size - 1, low)
    high = torch.where(edge, size - 1, low + 1)
    frac = torch.where(edge, torch.zeros_like(frac), frac)
    return low, high, frac, samples


def _align_one(fmap: torch.Tensor, box: torch.Tensor, p) -> torch.Tensor:
    """[out_h, out_w, C] of one region of ``fmap`` [H, W, C]; ``box`` in cells (x1, y1, x2, y2)."""
    h, w = fmap.shape[:2]
    yl, yh, dy, ny = _axis(box[1], box[3], p.out_h, p.h_ratio, h)
    xl, xh, dx, nx = _axis(box[0], box[2], p.out_w, p.w_ratio, w)
    # Corner values [out_h, ny, out_w, nx, C] and weights [out_h, ny, out_w, nx, 1].
    wy = (1 - dy)[:, :, None, None, None], dy[:, :, None, None, None]
    wx = (1 - dx)[None, None, :, :, None], dx[None, None, :, :, None]
    total = 0
    for y_idx, y_w in ((yl, wy[0]), (yh, wy[1])):
        rows = fmap[y_idx]                         # [out_h, ny, W, C]
        for x_idx, x_w in ((xl, wx[0]), (xh, wx[1])):
            total = total + (y_w * x_w) * rows[:, :, x_idx]  # [out_h, ny, out_w, nx, C]
    return total.sum(dim=(1, 3)) / (ny * nx)


def _align_quant_one(fmap: torch.Tensor, box: torch.Tensor, p) -> torch.Tensor:
    """Accumulated int64 sums [out_h, out_w, C] of one region of ``fmap`` [H, W, C] (codes minus
    the input's zero point) and the region's number of samples."""
    h, w = fmap.shape[:2]
    yl, yh, dy, ny = _axis(box[1], box[3], p.out_h, p.h_ratio, h)
    xl, xh, dx, nx = _axis(box[0], box[2], p.out_w, p.w_ratio, w)
    wy = (1 - dy)[:, :, None, None], dy[:, :, None, None]
    wx = (1 - dx)[None, None, :, :], dx[None, None, :, :]
    total = 0
    for y_idx, y_w in ((yl, wy[0]), (yh, wy[1])):
        rows = fmap[y_idx]                         # [out_h, ny, W, C]
        for x_idx, x_w in ((xl, wx[0]), (xh, wx[1])):
            # round(weight / (1 / 255)) in float32, half away from zero.
            steps = ((y_w * x_w).to(torch.float64) / WEIGHT_STEP).to(torch.float32).to(torch.float64)
            quantized = (torch.sign(steps) * torch.floor(steps.abs() + 0.5)).to(torch.int64)
            total = total + quantized[..., None] * rows[:, :, x_idx]  # [out_h, ny, out_w, nx, C]
    return total.sum(dim=(1, 3)), ny * nx


def _compute_quant(x: torch.Tensor, boxes: torch.Tensor, batch: torch.Tensor, p) -> list[torch.Tensor]:
    (s_in, zp_in), (s_out, zp_out) = p.in_q[0], p.out_q[0]
    ch = x.shape[1] if p.nchw else x.shape[3]
    outs = []
    for fmap, box in regions(x, boxes, batch, p, eighths=True):
        acc, samples = _align_quant_one(fmap.to(torch.int64) - zp_in, box, p)
        # float32 as the reference: s_in * (1 / 255) / s_out / samples.
        real = f32(f32(f32(s_in * WEIGHT_STEP) / s_out) / float(samples))
        if not 0 <= real < 1:
            raise op_failed(f"the output multiplier {real:g} (input scale {s_in:g} / output scale {s_out:g} / "
                            f"{samples} samples) is not below 1")
        m, shift = qm.quantize_multiplier(real)
        outs.append(qm.saturate(qm.mbqm(acc, m, shift) + zp_out, x.dtype))
    y = torch.stack(outs) if outs else x.new_zeros((0, p.out_h, p.out_w, ch))
    return [from_nchw(y.permute(0, 3, 1, 2), p.nchw).contiguous()]


def compute(ins, p):
    x, boxes, batch = ins[0], ins[1], ins[2]
    if x.dtype in (torch.uint8, torch.int8):
        return _compute_quant(x, boxes, batch, p)
    ch = x.shape[1] if p.nchw else x.shape[3]
    outs = [_align_one(fmap.float(), box, p) for fmap, box in regions(x, boxes, batch, p)]
    y = torch.stack(outs) if outs else x.new_zeros((0, p.out_h, p.out_w, ch), dtype=torch.float32)
    return [from_nchw(y.permute(0, 3, 1, 2), p.nchw).contiguous().to(x.dtype)]
