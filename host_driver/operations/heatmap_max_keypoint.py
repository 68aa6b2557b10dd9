"""HEATMAP_MAX_KEYPOINT (56): per box and keypoint, the maximum of its heatmap refined to sub-cell
precision and mapped into the box, Android's reference arithmetic in float32: the first maximum of
the heatmap, the 3x3 grid around it (mirrored at the borders), a quadratic fit of that grid (a
Newton step, clipped to 1.5 cells), the fitted score, and the refined position as a fraction of the
heatmap scaled into the box. The 8-bit form converts heatmap and boxes (16-bit, eighths of a pixel)
to float32 and the results back."""

from __future__ import annotations

import torch

from ..errors import op_failed
from ._box_quant import check_box_quant, dequantize, quantize
from .common import BOOL, F16, F32, Q16A, QA8, QA8S, Ctx

NAME, CODE, SINCE = "HEATMAP_MAX_KEYPOINT", 56, 29
QUANT_COMPUTE = True

# The fit is skipped when |det A| < atol + rtol * A00 * A11 (float16 uses looser bounds).
FIT_TOLERANCE = {F32: 1e-5, QA8: 1e-5, QA8S: 1e-5, F16: 1e-3}


def validate(c: Ctx) -> None:
    c.counts((3,), (2,))
    heatmap_type = c.tensor(0, {F32: 29, F16: 29, QA8: 29, QA8S: 30}, "heatmap")
    quantized = heatmap_type in (QA8, QA8S)
    if quantized:
        c.tensor(1, {Q16A: 29}, "boxes")
    else:
        c.same_type(1, 0, "boxes")
    c.scalar(2, BOOL, "NCHW layout")
    c.out_like(0, 0, same_q=False)
    c.out_like(1, 1, same_q=False)
    c.p.tolerance = FIT_TOLERANCE[heatmap_type]
    nchw = bool(c.value(2, "NCHW layout"))
    dims, boxes = c.dims(0), c.dims(1)
    if len(dims) != 4:
        c.fail(f"input 0 (heatmap) must have rank 4, got {len(dims)}")
    count, size = dims[0], dims[2]
    other, keypoints = (dims[3], dims[1]) if nchw else (dims[1], dims[3])
    if other != size:
        c.fail(f"input 0 (heatmap) must be square, got {list(dims)} ({'NCHW' if nchw else 'NHWC'})")
    if size < 2:
        c.fail(f"input 0 (heatmap) must be at least 2x2, got {size}x{size}")
    if list(boxes) != [count, 4]:
        c.fail(f"input 1 (boxes) must be [{count}, 4], got {list(boxes)}")
    if quantized:
        check_box_quant(c, 1, "boxes")
        check_box_quant(c, 1, "keypoints", output=True)
    c.p.nchw = nchw
    c.set_out(0, (count, keypoints))
    c.set_out(1, (count, keypoints, 2))


def _mirrored(index: torch.Tensor, size: int) -> torch.Tensor:
    """A neighbour's row or column: -1 reads row 1 and `size` reads row size - 2."""
    return torch.where(index < 0, 1, torch.where(index >= size, size - 2, index))


def _fit(grid: torch.Tensor, tolerance: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(dx, dy, score) of the quadratic fit of each 3x3 ``grid`` [..., 3, 3] (rows y, columns x)
    in float32, in the reference's order of operations; (0, 0, centre) where A is singular."""
    g = [[grid[..., r, k] for k in range(3)] for r in range(3)]
    b0 = -(g[1][2] - g[1][0]) / 2.0
    b1 = -(g[2][1] - g[0][1]) / 2.0
    a00 = g[1][0] - 2.0 * g[1][1] + g[1][2]
    a01 = (g[2][2] - g[2][0] - g[0][2] + g[0][0]) / 4.0
    a11 = g[0][1] - 2.0 * g[1][1] + g[2][1]
    cross1, cross2 = a00 * a11, a01 * a01
    det = cross1 - cross2
    solvable = ~(det.abs() < (tolerance + tolerance * cross1))
    safe_det = torch.where(solvable, det, torch.ones_like(det))
    d0 = (a11 * b0 - a01 * b1) / safe_det
    d1 = (a00 * b1 - a01 * b0) / safe_det
    # A step longer than 1.5 cells on either axis is shortened to 1.5 on its longer axis.
    longest = torch.maximum(d0.abs(), d1.abs())
    clip = longest > 1.5
    # A tensor numerator: torch computes `scalar / tensor` as a reciprocal times the scalar.
    shrink = torch.full_like(longest, 1.5) / torch.where(clip, longest, torch.ones_like(longest))
    d0 = torch.where(clip, d0 * shrink, d0)
    d1 = torch.where(clip, d1 * shrink, d1)
    score = g[1][1] - b0 * d0 - b1 * d1 + ((a00 * d0 + a01 * d1) * d0 + (a01 * d0 + a11 * d1) * d1) / 2.0
    zero = torch.zeros_like(d0)
    return torch.where(solvable, d0, zero), torch.where(solvable, d1, zero), torch.where(solvable, score, g[1][1])


def keypoints(heatmap: torch.Tensor, boxes: torch.Tensor, tolerance: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Scores [N, K] and (x, y) keypoints [N, K, 2] of an NHWC float32 ``heatmap`` [N, S, S, K]
    and float32 ``boxes`` [N, 4] (x1, y1, x2, y2)."""
    count, size, _, kps = heatmap.shape
    bad = ~((boxes[:, 0] <= boxes[:, 2]) & (boxes[:, 1] <= boxes[:, 3]))
    if bool(bad.any()):
        k = int(bad.nonzero()[0])
        raise op_failed(f"box {k}: {boxes[k].tolist()} has x2 < x1 or y2 < y1")
    flat = heatmap.reshape(count, size * size, kps)
    best = flat.argmax(dim=1)                     # the first maximum, [N, K]
    row, col = best // size, best % size
    offsets = torch.arange(-1, 2)
    rows = _mirrored(row[..., None] + offsets, size)          # [N, K, 3]
    cols = _mirrored(col[..., None] + offsets, size)
    n_idx = torch.arange(count)[:, None, None, None]
    k_idx = torch.arange(kps)[None, :, None, None]
    grid = heatmap[n_idx, rows[..., :, None], cols[..., None, :], k_idx]   # [N, K, 3, 3]
    dx, dy, score = _fit(grid, tolerance)
    x1, y1, x2, y2 = (boxes[:, i:i + 1] for i in range(4))
    x_rel = (col.float() + dx + 0.5) / float(size)
    y_rel = (row.float() + dy + 0.5) / float(size)
    points = torch.stack([x_rel * (x2 - x1) + x1, y_rel * (y2 - y1) + y1], dim=-1)
    return score, points


def compute(ins, p):
    heatmap, boxes = ins[0], ins[1]
    quantized = heatmap.dtype in (torch.uint8, torch.int8)
    values = dequantize(heatmap, *p.in_q[0]) if quantized else heatmap.float()
    box_values = dequantize(boxes, *p.in_q[1]) if quantized else boxes.float()
    if p.nchw:
        values = values.permute(0, 2, 3, 1)
    score, points = keypoints(values, box_values, p.tolerance)
    if quantized:
        return [quantize(score, *p.out_q[0], heatmap.dtype), quantize(points, *p.out_q[1], torch.uint16)]
    return [score, points]
