"""GENERATE_PROPOSALS (52): region proposals from a feature map's anchors, Android's reference
arithmetic in float32. Per image: every anchor placed at every cell (shifted by the cell times
the stride) and moved by its deltas as AXIS_ALIGNED_BBOX_TRANSFORM moves a box (clipped to the
image); the best ``pre_nms`` scores when 0 < pre_nms < anchors (otherwise all, in cell order);
boxes no wider or taller than ``min_size`` or centred outside the image dropped; then hard NMS
(IoU >= threshold suppresses) keeping at most ``post_nms`` (negative: all). The outputs (scores,
boxes, batch index per box) hold the survivors of every image, so their size is known only when
the operation runs. The 8-bit form converts scores, deltas, anchors (16-bit symmetric) and image
sizes (16-bit, eighths of a pixel) to float32 and the results back.

Android orders the best scores with std::sort, which leaves the order of equal scores
unspecified; the driver sorts stably.
"""

from __future__ import annotations

import torch

from ..errors import DriverError
from ._box_quant import check_box_quant, dequantize, quantize
from .axis_aligned_bbox_transform import decode_boxes
from .box_with_nms_limit import hard_nms
from .common import BOOL, F16, F32, I32T, INT32, Q16A, Q16S, QA8, QA8S, RUN, Ctx, Deferred

NAME, CODE, SINCE = "GENERATE_PROPOSALS", 52, 29
QUANT_COMPUTE = True


def _check_types(c: Ctx) -> bool:
    """Operand types and counts; returns whether the operation is the 8-bit form."""
    c.counts((11,), (3,))
    quantized = c.tensor(0, {F32: 29, F16: 29, QA8: 29, QA8S: 30}, "scores") in (QA8, QA8S)
    c.same_type(1, 0, "bounding box deltas")
    if quantized:
        c.tensor(2, {Q16S: 29}, "anchors")
        c.tensor(3, {Q16A: 29}, "image sizes")
    else:
        c.same_type(2, 0, "anchors")
        c.same_type(3, 0, "image sizes")
    for i, what in ((4, "height stride"), (5, "width stride"), (8, "IoU threshold"), (9, "minimum box size")):
        c.float_scalar_for(i, 0, what)
    c.scalar(6, INT32, "maximum boxes before NMS")
    c.scalar(7, INT32, "maximum boxes after NMS")
    c.scalar(10, BOOL, "NCHW layout")
    c.out_like(0, 0)
    c.out_is(1, Q16A if quantized else c.type(0))
    c.out_is(2, I32T)
    return quantized


def _check_shapes(c: Ctx, nchw: bool) -> tuple[int, int, int, int]:
    """(batches, height, width, anchors) after the reference's shape checks."""
    scores, deltas, anchors, image = c.dims(0), c.dims(1), c.dims(2), c.dims(3)
    for i, dims, rank, what in ((0, scores, 4, "scores"), (1, deltas, 4, "bounding box deltas"),
                                (2, anchors, 2, "anchors"), (3, image, 2, "image sizes")):
        if len(dims) != rank:
            c.fail(f"input {i} ({what}) must have rank {rank}, got {len(dims)}")
    n, h, w, a = (scores[0], scores[2], scores[3], scores[1]) if nchw else scores
    want = [n, 4 * a, h, w] if nchw else [n, h, w, 4 * a]
    if list(deltas) != want:
        c.fail(f"input 1 (bounding box deltas) must be {want} for scores {list(scores)}, got {list(deltas)}")
    if list(anchors) != [a, 4]:
        c.fail(f"input 2 (anchors) must be [{a}, 4], got {list(anchors)}")
    if list(image) != [n, 2]:
        c.fail(f"input 3 (image sizes) must be [{n}, 2], got {list(image)}")
    return n, h, w, a


def validate(c: Ctx) -> None:
    quantized = _check_types(c)
    p = c.p
    p.nchw = bool(c.value(10, "NCHW layout"))
    _check_shapes(c, p.nchw)
    if c.type(0) == QA8:  # the reference checks these for TENSOR_QUANT8_ASYMM only
        if c.operand(2).scale != 0.125:
            c.fail(f"input 2 (anchors) must have scale 0.125, got {c.operand(2).scale:g}")
        check_box_quant(c, 3, "image sizes")
        check_box_quant(c, 1, "boxes", output=True)
    p.h_stride, p.w_stride = float(c.value(4)), float(c.value(5))
    p.pre_nms, p.post_nms = int(c.value(6)), int(c.value(7))
    p.iou_threshold, p.min_size = float(c.value(8)), float(c.value(9))
    if c.stage != RUN:
        raise Deferred  # the number of proposals depends on the scores
    values = [c.value(i) for i in range(4)]
    if quantized:
        values = [dequantize(v, c.operand(i).scale, c.operand(i).zero_point) for i, v in enumerate(values)]
    try:
        p.proposals = proposals(*(v.float() for v in values), p)
    except DriverError as e:
        raise DriverError(e.code, f"{c.name} (operation #{c.index}): {e.message}") from None
    count = p.proposals[0].shape[0]
    c.set_out(0, (count,))
    c.set_out(1, (count, 4))
    c.set_out(2, (count,))


def _anchor_grid(anchors: torch.Tensor, height: int, width: int, p) -> torch.Tensor:
    """Every anchor at every cell [H * W * A, 4], cell-major: anchor + (w, h, w, h) * stride in float32."""
    h_shift = torch.arange(height, dtype=torch.float32) * p.h_stride
    w_shift = torch.arange(width, dtype=torch.float32) * p.w_stride
    shift = torch.stack([w_shift[None, :].expand(height, width), h_shift[:, None].expand(height, width)], -1)
    return (anchors[None, None, :, :] + shift.repeat(1, 1, 2)[:, :, None, :]).reshape(-1, 4)


def _inside(boxes: torch.Tensor, image: torch.Tensor, min_size: float) -> torch.Tensor:
    """filterBoxes: wider and taller than min_size, centre left of and above the image's far edges."""
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    cx = boxes[:, 0] + w / 2.0
    cy = boxes[:, 1] + h / 2.0
    return (w > min_size) & (h > min_size) & (cx < image[1]) & (cy < image[0])


def proposals(scores: torch.Tensor, deltas: torch.Tensor, anchors: torch.Tensor, image: torch.Tensor,
              p) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(scores [K], boxes [K, 4], batch indices [K]) from float32 inputs in the operation's layout."""
    if p.nchw:
        scores, deltas = scores.permute(0, 2, 3, 1), deltas.permute(0, 2, 3, 1)
    batches, height, width, _ = scores.shape
    grid = _anchor_grid(anchors, height, width, p)
    count = grid.shape[0]
    out_scores, out_boxes, out_batch = [], [], []
    for b in range(batches):
        boxes = decode_boxes(grid, deltas[b].reshape(count, 4), torch.zeros(count, dtype=torch.int32),
                             image[b:b + 1])
        flat = scores[b].reshape(count)
        order = list(range(count))
        if 0 < p.pre_nms < count:
            order = torch.sort(flat, descending=True, stable=True).indices[:p.pre_nms].tolist()
        keep = _inside(boxes, image[b], p.min_size).tolist()
        order = [k for k in order if keep[k]]
        kept = hard_nms(order, flat.tolist(), boxes, p.iou_threshold, p.post_nms)
        index = torch.tensor(kept, dtype=torch.long)
        out_scores.append(flat[index])
        out_boxes.append(boxes[index])
        out_batch.append(torch.full((len(kept),), b, dtype=torch.int32))
    return torch.cat(out_scores), torch.cat(out_boxes), torch.cat(out_batch)


def compute(ins, p):
    scores, boxes, batch = p.proposals
    if ins[0].dtype in (torch.uint8, torch.int8):
        return [quantize(scores, *p.out_q[0], ins[0].dtype), quantize(boxes, *p.out_q[1], torch.uint16), batch]
    return [scores, boxes, batch]
