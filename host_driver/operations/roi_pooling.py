"""ROI_POOLING (82): per region, the maximum of each output bin, Android's reference arithmetic:
the box scaled by 1 / stride (float32) and rounded half away from zero to whole cells, the
region at least one cell, bins [floor(start), ceil(end)) clipped to the map, an empty bin 0."""

from __future__ import annotations

import math

import torch

from ._box_quant import dequantize
from ._roi import regions, validate_roi_operands
from .common import Ctx, from_nchw

NAME, CODE, SINCE = "ROI_POOLING", 82, 29
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    validate_roi_operands(c, 8, 7, same_q=True)


def _round_half_away(value: float) -> int:
    """C's std::round (torch.round rounds halves to even)."""
    # Exact: a float32 value plus 0.5 is representable in a double.
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def _edges(start: int, end: int, bins: int, size: int) -> list[tuple[int, int]]:
    """[first, last) cell of each bin along one axis, computed in float32 as the reference does."""
    step = torch.tensor(float(max(end - start + 1, 1)), dtype=torch.float32) / bins
    k = torch.arange(bins + 1, dtype=torch.float32)
    at = step * k + float(start)  # float32: step * k, then + start
    lo = torch.floor(at[:-1]).long().clamp(max=size).tolist()
    hi = torch.ceil(at[1:]).long().clamp(max=size).tolist()
    return list(zip(lo, hi))


def _pool_one(fmap: torch.Tensor, box: torch.Tensor, p, empty: int) -> torch.Tensor:
    h, w, ch = fmap.shape
    x1, y1, x2, y2 = (_round_half_away(float(v)) for v in box)
    out = fmap.new_full((p.out_h, p.out_w, ch), empty)
    for i, (r0, r1) in enumerate(_edges(y1, y2, p.out_h, h)):
        for j, (c0, c1) in enumerate(_edges(x1, x2, p.out_w, w)):
            if r1 > r0 and c1 > c0:
                out[i, j] = fmap[r0:r1, c0:c1].amax(dim=(0, 1))
    return out


def compute(ins, p):
    x, boxes, batch = ins[0], ins[1], ins[2]
    ch = x.shape[1] if p.nchw else x.shape[3]
    empty = 0
    if boxes.dtype == torch.uint16:
        boxes = dequantize(boxes, *p.in_q[1])
        empty = p.in_q[0][1]  # an empty bin is the zero point's code
    outs = [_pool_one(fmap, box, p, empty) for fmap, box in regions(x, boxes, batch, p)]
    y = torch.stack(outs) if outs else x.new_zeros((0, p.out_h, p.out_w, ch))
    return [from_nchw(y.permute(0, 3, 1, 2), p.nchw).contiguous()]
