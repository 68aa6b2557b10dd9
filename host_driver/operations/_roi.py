"""What ROI_ALIGN (81) and ROI_POOLING (82) share: their operand list up to the strides, the
output shape, and the checks Android's reference implementation makes on each region while
it runs (a malformed region fails the execution, it is never clamped; docs/nnapi_facts.md §7.8)."""

from __future__ import annotations

from typing import Iterator

import torch

from ..errors import op_failed
from ._box_quant import check_box_quant
from .common import (F16, F32, FLOAT32, I32T, INT32, Q16A, QA8, QA8S, Ctx, layout_dims, layout_flag, layout_value,
                     nhwc_dims)

# The 8-bit forms take 16-bit boxes in eighths of a pixel.
FEATURE_TYPES = {F32: 29, F16: 29, QA8: 29, QA8S: 30}


def validate_roi_operands(c: Ctx, count: int, layout_index: int, same_q: bool) -> None:
    """Inputs 0-6 (feature map, boxes [K, 4], batch indices [K], output height and width,
    height and width strides) and the layout flag; sets the output shape and ``c.p``."""
    c.counts((count,))
    quantized = c.tensor(0, FEATURE_TYPES, "feature map") in (QA8, QA8S)
    if quantized:
        c.tensor(1, {Q16A: 29}, "boxes")
    else:
        c.same_type(1, 0, "boxes")
    c.tensor(2, {I32T: 29}, "batch indices")
    c.scalar(3, INT32, "output height")
    c.scalar(4, INT32, "output width")
    for i, what in ((5, "height stride"), (6, "width stride")):
        if quantized:
            c.scalar(i, FLOAT32, what)
        else:
            c.float_scalar_for(i, 0, what)
    layout_flag(c, layout_index, required=True)
    c.out_like(0, 0, same_q=same_q)
    c.p.nchw = layout_value(c, layout_index)
    dims, boxes, batch = c.dims(0), c.dims(1), c.dims(2)
    if len(dims) != 4:
        c.fail(f"input 0 (feature map) must have rank 4, got {len(dims)}")
    if len(boxes) != 2 or boxes[1] != 4:
        c.fail(f"input 1 (boxes) must be [num_rois, 4], got {list(boxes)}")
    if list(batch) != [boxes[0]]:
        c.fail(f"input 2 (batch indices) must be [{boxes[0]}] (one per box), got {list(batch)}")
    n, h, w, ch = nhwc_dims(dims, c.p.nchw)
    if min(n, h, w, ch) <= 0:
        c.fail(f"input 0 (feature map) must have positive dimensions, got {list(dims)}")
    if quantized:
        check_box_quant(c, 1, "boxes")
    c.p.out_h, c.p.out_w = int(c.value(3)), int(c.value(4))
    c.p.h_stride, c.p.w_stride = float(c.value(5)), float(c.value(6))
    if c.p.out_h <= 0 or c.p.out_w <= 0:
        c.fail(f"output size {c.p.out_h}x{c.p.out_w} must be positive")
    if not (c.p.h_stride > 0 and c.p.w_stride > 0):
        c.fail(f"strides ({c.p.h_stride}, {c.p.w_stride}) must be positive")
    c.set_out(0, layout_dims(boxes[0], c.p.out_h, c.p.out_w, ch, c.p.nchw))


def regions(x: torch.Tensor, boxes: torch.Tensor, batch: torch.Tensor, p,
            eighths: bool = False) -> Iterator[tuple[torch.Tensor, list]]:
    """Per region, its NHWC feature map [H, W, C] and its box in feature-map cells (float32,
    scaled by 1 / stride in float32 as the reference does), after the reference's checks.

    ``boxes`` are float32 values, or with ``eighths`` the 16-bit codes of 8-bit ROI_ALIGN, which
    the reference scales as ``code * (1 / stride) * 0.125`` and checks after scaling."""
    fmap = x.permute(0, 2, 3, 1) if p.nchw else x
    n, h, w = fmap.shape[:3]
    # The reference computes 1 / stride and the products in float32.
    scale = (torch.ones(2) / torch.tensor([p.w_stride, p.h_stride], dtype=torch.float32)).repeat(2)
    boxes = boxes.float()
    for k in range(boxes.shape[0]):
        b = int(batch[k])
        raw = boxes[k]
        scaled = raw * scale * 0.125 if eighths else raw * scale
        if not 0 <= b < n:
            raise op_failed(f"region {k}: batch index {b} is outside [0, {n})")
        x1, y1, x2, y2 = (float(v) for v in scaled)
        if not bool((raw >= 0).all()) or x1 > w or x2 > w or y1 > h or y2 > h:
            raise op_failed(f"region {k}: box {raw.tolist()} is not inside the {h}x{w} feature map "
                            f"(strides {p.h_stride:g}, {p.w_stride:g})")
        if (x1 > x2 or y1 > y2) if eighths else (raw[0] > raw[2] or raw[1] > raw[3]):
            raise op_failed(f"region {k}: box {raw.tolist()} has x2 < x1 or y2 < y1")
        yield fmap[b], scaled
