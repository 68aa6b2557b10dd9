"""DETECTION_POSTPROCESSING (47): SSD's box decoding and non-maximum suppression (TFLite's
TFLite_Detection_PostProcess), Android's reference arithmetic in float32.

Boxes are decoded from anchors in centre-size form (y, x, h, w): centre ``anchor + anchor size *
delta / scale``, size ``anchor size * exp(delta / scale)``; the output box is (y1, x1, y2, x2).
Class 0 is the background and never selected (``is_bg_in_label`` only keeps it in the numbering
of the output classes). Regular NMS runs hard NMS per class (at most ``per_class`` each), sorts
the survivors by score and keeps ``max_detections``; fast NMS runs one hard NMS on each box's best
class score (at most ``max_detections`` boxes) and writes each kept box's ``classes_per_box`` best
classes. Candidates score strictly above the score threshold; IoU >= threshold suppresses. The
outputs are padded with zeros to their fixed size; the fourth gives the count per batch.

Android's sorts are std::sort, which leaves the order of equal scores unspecified; the driver
sorts stably.
"""

from __future__ import annotations

import torch

from .box_with_nms_limit import hard_nms
from .common import BOOL, F16, F32, I32T, INT32, Ctx

NAME, CODE, SINCE = "DETECTION_POSTPROCESSING", 47, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    c.counts((14,), (4,))
    c.tensor(0, {F32: 29, F16: 29}, "scores")
    c.same_type(1, 0, "box deltas")
    c.same_type(2, 0, "anchors")
    for i, what in ((3, "y scale"), (4, "x scale"), (5, "height scale"), (6, "width scale"),
                    (11, "score threshold"), (12, "IoU threshold")):
        c.float_scalar_for(i, 0, what)
    c.scalar(7, BOOL, "regular NMS")
    for i, what in ((8, "maximum detections"), (9, "maximum classes per detection"),
                    (10, "maximum detections per class")):
        c.scalar(i, INT32, what)
    c.scalar(13, BOOL, "background in label")
    c.out_like(0, 0)
    c.out_like(1, 0)
    c.out_is(2, I32T)
    c.out_is(3, I32T)
    scores, deltas, anchors = c.dims(0), c.dims(1), c.dims(2)
    if len(scores) != 3:
        c.fail(f"input 0 (scores) must be [batches, anchors, classes], got {list(scores)}")
    batches, count, classes = scores
    if len(deltas) != 3 or deltas[0] != batches or deltas[1] != count or deltas[2] < 4:
        c.fail(f"input 1 (box deltas) must be [{batches}, {count}, 4 or more], got {list(deltas)}")
    if list(anchors) != [count, 4]:
        c.fail(f"input 2 (anchors) must be [{count}, 4], got {list(anchors)}")
    if classes < 2:
        c.fail(f"input 0 (scores) must have at least 2 classes (class 0 is the background), got {classes}")
    p = c.p
    p.scales = [float(c.value(i)) for i in (3, 4, 5, 6)]
    if not all(s > 0 for s in p.scales):
        c.fail(f"the box scales (y, x, height, width) must be positive, got {p.scales}")
    p.score_threshold, p.iou_threshold = float(c.value(11)), float(c.value(12))
    if not (p.score_threshold >= 0 and p.iou_threshold >= 0):
        c.fail(f"the score threshold ({p.score_threshold:g}) and IoU threshold ({p.iou_threshold:g}) must be >= 0")
    p.regular, p.bg_in_label = bool(c.value(7)), bool(c.value(13))
    p.max_detections, p.classes_per_box, p.per_class = (int(c.value(i)) for i in (8, 9, 10))
    if p.max_detections <= 0:
        c.fail(f"input 8 (maximum detections) must be positive, got {p.max_detections}")
    limit, what = (p.per_class, "10 (maximum detections per class)") if p.regular else \
        (p.classes_per_box, "9 (maximum classes per detection)")
    if limit <= 0:
        c.fail(f"input {what} must be positive with {'regular' if p.regular else 'fast'} NMS, got {limit}")
    slots = p.max_detections if p.regular else p.max_detections * p.classes_per_box
    c.set_out(0, (batches, slots))
    c.set_out(1, (batches, slots, 4))
    c.set_out(2, (batches, slots))
    c.set_out(3, (batches,))


def decode(deltas: torch.Tensor, anchors: torch.Tensor, scales: list[float]) -> torch.Tensor:
    """(y1, x1, y2, x2) boxes [..., A, 4] of deltas [..., A, >= 4] on centre-size anchors [A, 4], float32."""
    scale_y, scale_x, scale_h, scale_w = scales
    y = anchors[:, 0] + anchors[:, 2] * deltas[..., 0] / scale_y
    x = anchors[:, 1] + anchors[:, 3] * deltas[..., 1] / scale_x
    half_h = anchors[:, 2] * torch.exp(deltas[..., 2] / scale_h) * 0.5
    half_w = anchors[:, 3] * torch.exp(deltas[..., 3] / scale_w) * 0.5
    return torch.stack([y - half_h, x - half_w, y + half_h, x + half_w], dim=-1)


def _regular(scores: torch.Tensor, boxes: torch.Tensor, p) -> list[tuple[int, int, float]]:
    """(anchor, class, score) of one image's detections in output order (hardNmsMultiClass)."""
    found: list[tuple[int, int, float]] = []
    for cls in range(1, scores.shape[1]):
        column = scores[:, cls].tolist()
        candidates = [a for a, s in enumerate(column) if s > p.score_threshold]
        for a in hard_nms(candidates, column, boxes, p.iou_threshold, p.per_class):
            found.append((a, cls, column[a]))
    found.sort(key=lambda d: -d[2])
    return found[:p.max_detections]


def _fast(scores: torch.Tensor, boxes: torch.Tensor, p) -> list[tuple[int, int, float]]:
    """(anchor, class, score) of one image's detections: per kept box its best classes."""
    classes = scores.shape[1] - 1
    best = scores[:, 1:].amax(dim=1).tolist()
    candidates = [a for a, s in enumerate(best) if s > p.score_threshold]
    found: list[tuple[int, int, float]] = []
    for a in hard_nms(candidates, best, boxes, p.iou_threshold, p.max_detections):
        row = scores[a].tolist()
        ranked = sorted(range(1, classes + 1), key=lambda k: -row[k])
        found += [(a, k, row[k]) for k in ranked[:min(classes, p.classes_per_box)]]
    return found


def compute(ins, p):
    scores, deltas, anchors = (t.float() for t in ins[:3])
    boxes = decode(deltas, anchors, p.scales)
    batches = scores.shape[0]
    slots = p.max_detections if p.regular else p.max_detections * p.classes_per_box
    out_scores = torch.zeros(batches, slots)
    out_boxes = torch.zeros(batches, slots, 4)
    out_classes = torch.zeros(batches, slots, dtype=torch.int32)
    counts = torch.zeros(batches, dtype=torch.int32)
    shift = 0 if p.bg_in_label else 1
    for b in range(batches):
        found = (_regular if p.regular else _fast)(scores[b], boxes[b], p)
        for j, (a, cls, score) in enumerate(found):
            out_scores[b, j] = score
            out_boxes[b, j] = boxes[b, a]
            out_classes[b, j] = cls - shift
        counts[b] = len(found)
    return [out_scores, out_boxes, out_classes, counts]
