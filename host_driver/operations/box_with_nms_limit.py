"""BOX_WITH_NMS_LIMIT (44): per image, per class except class 0 (background), the boxes scoring
above a threshold go through greedy (soft) non-maximum suppression; the survivors of all classes
are sorted by score, cut to the maximum number of detections, and written grouped by class
(ascending) then score (descending). The number of outputs is known only when it runs.

Android's reference arithmetic (docs/nnapi_facts.md §7.10): one soft-NMS loop serves the three
kernels (0 hard: a box whose IoU with the kept one is >= the IoU threshold gets score 0; 1 linear:
score * (1 - IoU) from that threshold on; 2 gaussian: score * exp(-IoU^2 / sigma)), and a box
leaves when its score drops below the NMS score threshold. The kept box is the first maximum of
the remaining candidates in their current order, which the loop permutes by swapping (so among
equal scores the choice is Android's, reproduced here). Android's final sorts are std::sort, which
leaves the order of equal scores unspecified; the driver sorts stably.

The 8-bit form (8-bit scores, 16-bit boxes in eighths of a pixel) computes on the float32 values
of the codes and writes the scores back in the input's quantization and the boxes as they came.
`hard_nms` is the reference's hard-NMS loop that GENERATE_PROPOSALS and DETECTION_POSTPROCESSING
share.
"""

from __future__ import annotations

import math

import torch

from ..errors import op_failed
from ._box_quant import check_box_quant, dequantize, quantize
from .common import F16, F32, I32T, INT32, Q16A, QA8, QA8S, RUN, Ctx, Deferred, f32

NAME, CODE, SINCE = "BOX_WITH_NMS_LIMIT", 44, 29
QUANT_COMPUTE = True
# From this many candidates a pass of the soft-NMS loop rescales their scores as tensors.
VECTOR_FROM = 64


def validate(c: Ctx) -> None:
    c.counts((9,), (4,))
    quantized = c.tensor(0, {F32: 29, F16: 29, QA8: 29, QA8S: 30}, "scores") in (QA8, QA8S)
    if quantized:
        c.tensor(1, {Q16A: 29}, "boxes")
    else:
        c.same_type(1, 0, "boxes")
    c.tensor(2, {I32T: 29}, "batch indices")
    c.out_like(0, 0)
    c.out_like(1, 1, same_q=False)
    c.out_is(2, I32T)
    c.out_is(3, I32T)
    for i, what in ((3, "score threshold"), (6, "IoU threshold"), (7, "sigma"), (8, "NMS score threshold")):
        c.float_scalar_for(i, 0, what)
    c.scalar(4, INT32, "maximum number of detections")
    c.scalar(5, INT32, "NMS kernel")
    scores, boxes, batch = c.dims(0), c.dims(1), c.dims(2)
    if len(scores) != 2:
        c.fail(f"input 0 (scores) must be [num_rois, num_classes], got {list(scores)}")
    if list(boxes) != [scores[0], scores[1] * 4]:
        c.fail(f"input 1 (boxes) must be [{scores[0]}, {scores[1] * 4}], got {list(boxes)}")
    if list(batch) != [scores[0]]:
        c.fail(f"input 2 (batch indices) must be [{scores[0]}], got {list(batch)}")
    if scores[1] < 2:
        c.fail(f"input 0 (scores) must have at least 2 classes (class 0 is the background), got {scores[1]}")
    if quantized:
        check_box_quant(c, 1, "boxes")
        check_box_quant(c, 1, "boxes", output=True)
    p = c.p
    p.score_threshold, p.max_detections, p.kernel = float(c.value(3)), int(c.value(4)), int(c.value(5))
    p.iou_threshold, p.sigma, p.nms_score_threshold = float(c.value(6)), float(c.value(7)), float(c.value(8))
    if p.kernel not in (0, 1, 2):
        c.fail(f"NMS kernel {p.kernel} is not 0 (hard), 1 (linear) or 2 (gaussian)")
    if c.stage != RUN:
        raise Deferred  # the number of detections depends on the scores
    scores_in, boxes_in = c.value(0), c.value(1)
    if quantized:
        scores_in = dequantize(scores_in, c.operand(0).scale, c.operand(0).zero_point)
        boxes_in = dequantize(boxes_in, c.operand(1).scale, c.operand(1).zero_point)
    p.selected = _select(scores_in.float(), boxes_in.float(), [int(v) for v in c.value(2).tolist()], p)
    count = len(p.selected)
    for j, dims in enumerate(([count], [count, 4], [count], [count])):
        c.set_out(j, dims)


def _iou(boxes: torch.Tensor) -> torch.Tensor:
    """Pairwise IoU of [n, 4] boxes in float32, in the reference's order of operations."""
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    w = (torch.minimum(boxes[:, None, 2], boxes[None, :, 2]) - torch.maximum(boxes[:, None, 0], boxes[None, :, 0]))
    h = (torch.minimum(boxes[:, None, 3], boxes[None, :, 3]) - torch.maximum(boxes[:, None, 1], boxes[None, :, 1]))
    inter = w.clamp(min=0) * h.clamp(min=0)
    return inter / (area[:, None] + area[None, :] - inter)


def _kernel(iou: float, p) -> float:
    if p.kernel == 0:
        return 1.0 if iou < p.iou_threshold else 0.0
    if p.kernel == 1:
        return 1.0 if iou < p.iou_threshold else f32(1.0 - iou)
    return f32(math.exp(f32(f32(-iou * iou) / p.sigma)))


def _suppress(order: list[int], scores: list[float], iou: torch.Tensor, p) -> list[int]:
    """Android's in-place soft-NMS loop over candidate positions ``order``; returns the kept ones.

    Each pass computes every remaining candidate's new score at once, in float64 rounded to float32
    as the reference's float arithmetic is here (the product of two float32 values is exact in
    float64), then replays the reference's swaps, which decide the order later ties are broken in.
    The gaussian kernel's exp stays on Python's libm, one candidate at a time (a vectorized exp
    may differ in the last bit), and so do passes over a few candidates."""
    start, end = 0, len(order)
    limit = p.max_detections if p.max_detections >= 0 else end
    while start < end and start < limit:
        best = max(range(start, end), key=lambda k: (scores[order[k]], -k))  # first maximum
        order[start], order[best] = order[best], order[start]
        rest = order[start + 1:end]
        if rest:
            updated = _updated_scores(rest, scores, iou[rest, order[start]], p)
            removed = set()
            for k, value in zip(rest, updated):
                scores[k] = value
                if value < p.nms_score_threshold:
                    removed.add(k)
            i = start + 1
            while i < end:  # the reference's loop: a removed candidate is swapped with the last one
                if order[i] in removed:
                    end -= 1
                    order[i], order[end] = order[end], order[i]
                else:
                    i += 1
        start += 1
    return order[:start]


def _updated_scores(rest: list[int], scores: list[float], iou: torch.Tensor, p) -> list[float]:
    """The scores of candidates ``rest`` after the kept box's kernel (``iou``: theirs with it)."""
    if p.kernel == 2 or len(rest) < VECTOR_FROM:  # a few candidates: the tensors' overhead would dominate
        return [f32(scores[k] * _kernel(v, p)) for k, v in zip(rest, iou.tolist())]
    iou = iou.double()
    current = torch.tensor([scores[k] for k in rest], dtype=torch.float64)
    factor = torch.zeros_like(iou) if p.kernel == 0 else (1.0 - iou).float().double()
    factor = torch.where(iou < p.iou_threshold, 1.0, factor)
    return (current * factor).float().tolist()


def _groups(batch: list[int]) -> list[tuple[int, int]]:
    """[first, last) of each run of equal batch indices (the reference's batch split)."""
    runs: list[tuple[int, int]] = []
    for k, b in enumerate(batch):
        if runs and batch[runs[-1][0]] == b:
            runs[-1] = (runs[-1][0], k + 1)
        else:
            runs.append((k, k + 1))
    return runs


def _select(scores: torch.Tensor, boxes: torch.Tensor, batch: list[int], p) -> list[tuple[int, int, float]]:
    """(row, class, score after suppression) of each detection, in output order."""
    classes = scores.shape[1]
    out: list[tuple[int, int, float]] = []
    for first, last in _groups(batch):
        for k in range(first, last):
            row = boxes[k].reshape(classes, 4)
            if bool((row[:, 0] > row[:, 2]).any() or (row[:, 1] > row[:, 3]).any()):
                raise op_failed(f"region {k}: a box has x2 < x1 or y2 < y1")
        kept: list[tuple[int, int, float]] = []
        # Compared in float64, as a Python float of each score is with the threshold.
        above = scores[first:last].double() > p.score_threshold
        for cls in range(1, classes):  # class 0 is the background
            rows = (torch.nonzero(above[:, cls]).flatten() + first).tolist()
            if not rows:
                continue
            current = dict(enumerate(scores[rows, cls].tolist()))
            iou = _iou(boxes[rows, cls * 4:cls * 4 + 4])
            for i in _suppress(list(range(len(rows))), current, iou, p):
                kept.append((rows[i], cls, current[i]))
        kept.sort(key=lambda d: -d[2])
        if p.max_detections >= 0:
            kept = kept[:p.max_detections]
        kept.sort(key=lambda d: (d[1], -d[2]))
        out += kept
    return out


def compute(ins, p):
    scores, boxes, batch = ins[0], ins[1], ins[2]
    rows = [r for r, _, _ in p.selected]
    classes = torch.tensor([c for _, c, _ in p.selected], dtype=torch.int32)
    # Boxes are copied as they are (16-bit codes included); uint16 goes through int32 for indexing.
    wide = boxes.to(torch.int32) if boxes.dtype == torch.uint16 else boxes
    out_boxes = torch.stack([wide[r].reshape(-1, 4)[c] for r, c, _ in p.selected]) if rows else \
        wide.new_zeros((0, 4))
    out_scores = torch.tensor([s for _, _, s in p.selected], dtype=torch.float32)
    if scores.dtype in (torch.uint8, torch.int8):
        out_scores = quantize(out_scores, *p.out_q[0], scores.dtype)
    return [out_scores.to(scores.dtype), out_boxes.to(boxes.dtype), classes,
            batch[rows] if rows else batch.new_zeros((0,))]


# -- hard NMS (GENERATE_PROPOSALS, DETECTION_POSTPROCESSING) ------------------------------------------
def iou_with(boxes: torch.Tensor, box: torch.Tensor) -> torch.Tensor:
    """IoU of each of ``boxes`` [n, 4] with ``box`` [4], float32 in the reference's order of operations."""
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    area_box = (box[2] - box[0]) * (box[3] - box[1])
    w = (torch.minimum(boxes[:, 2], box[2]) - torch.maximum(boxes[:, 0], box[0])).clamp(min=0)
    h = (torch.minimum(boxes[:, 3], box[3]) - torch.maximum(boxes[:, 1], box[1])).clamp(min=0)
    inter = w * h
    return inter / (area + area_box - inter)


def hard_nms(order: list[int], scores: list[float], boxes: torch.Tensor, iou_threshold: float,
             limit: int) -> list[int]:
    """Android's in-place hard-NMS loop (hardNmsSingleClass) over the candidates ``order`` (indices
    into ``scores`` and ``boxes`` [n, 4]): keep the first maximum, drop every candidate whose IoU
    with it is >= the threshold by swapping it to the end, at most ``limit`` kept (negative: all).
    Returns the kept indices in the order kept."""
    order = list(order)
    start, end = 0, len(order)
    limit = limit if limit >= 0 else end
    while start < end and start < limit:
        best = max(range(start, end), key=lambda k: (scores[order[k]], -k))  # first maximum
        order[start], order[best] = order[best], order[start]
        rest = torch.tensor(order[start + 1:end], dtype=torch.long)
        suppressed = [False] * (start + 1)
        if len(rest):
            suppressed += (iou_with(boxes[rest], boxes[order[start]]) >= iou_threshold).tolist()
        # The reference swaps a suppressed candidate with the last one and examines that one next.
        i = start + 1
        while i < end:
            if suppressed[i]:
                end -= 1
                order[i], order[end] = order[end], order[i]
                suppressed[i], suppressed[end] = suppressed[end], suppressed[i]
            else:
                i += 1
        start += 1
    return order[:start]
