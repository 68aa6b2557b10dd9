"""Ops a model calls to say "NNAPI's arithmetic, exactly", where no PyTorch op has it.

``decode_boxes`` applies per-class box deltas to regions and clips the result to each image: the
arithmetic of NNAPI's AXIS_ALIGNED_BBOX_TRANSFORM (docs/nnapi_facts.md §7.9), which is also
torchvision's ``BoxCoder.decode`` followed by ``clip_boxes_to_image`` once the deltas are divided
by the coder's weights (docs/detection_ops.md). It is a custom op (``nnapi::decode_boxes``),
so it stays one node in the exported program and becomes one NNAPI operation; ExecuTorch has no CPU
kernel for it, so a program whose node NNAPI refuses stops lowering, naming it.

``batched_nms_padded`` is torchvision's ``batched_nms`` with a fixed number of results: the kept
boxes, scores and classes, best first, padded to ``max_detections``, and how many are real. Its
fixed-size results let NNAPI's BOX_WITH_NMS_LIMIT (whose result size is known only when it runs)
be the partition's last data-dependent step (docs/detection_ops.md).

``class_nms_padded`` is BOX_WITH_NMS_LIMIT itself, on its own layout (a score and a box per region and
class, class 0 the background), with the same fixed-size results: what a detector's per-class
post-processing is once its candidates are rows of a fixed number (executorch_nnapi.tools.detection).
"""

from __future__ import annotations

import torch

__all__ = ["batched_nms_padded", "class_nms_padded", "decode_boxes"]

_LIBRARY = "nnapi"


@torch.library.custom_op(f"{_LIBRARY}::decode_boxes", mutates_args=())
def _decode_boxes(rois: torch.Tensor, deltas: torch.Tensor, image_sizes: torch.Tensor) -> torch.Tensor:
    corners = rois[:, 1:].to(torch.float32)
    batch = rois[:, 0].to(torch.int64)  # a C++ int conversion of the float: truncation
    count, classes = deltas.shape[0], deltas.shape[1] // 4
    d = deltas.to(torch.float32).reshape(count, classes, 4)
    width, height = corners[:, 2] - corners[:, 0], corners[:, 3] - corners[:, 1]
    cx, cy = (corners[:, 0] + corners[:, 2]) / 2, (corners[:, 1] + corners[:, 3]) / 2
    new_w = torch.exp(d[..., 2]) * width[:, None]
    new_h = torch.exp(d[..., 3]) * height[:, None]
    new_cx = cx[:, None] + d[..., 0] * width[:, None]
    new_cy = cy[:, None] + d[..., 1] * height[:, None]
    size = image_sizes.to(torch.float32)[batch]  # (height, width) per region
    img_h, img_w = size[:, 0:1], size[:, 1:2]
    x1 = torch.minimum(torch.clamp(new_cx - new_w / 2, min=0.0), img_w)
    y1 = torch.minimum(torch.clamp(new_cy - new_h / 2, min=0.0), img_h)
    x2 = torch.minimum(torch.clamp(new_cx + new_w / 2, min=0.0), img_w)
    y2 = torch.minimum(torch.clamp(new_cy + new_h / 2, min=0.0), img_h)
    return torch.stack([x1, y1, x2, y2], dim=-1).reshape(count, classes * 4).to(deltas.dtype)


@_decode_boxes.register_fake
def _(rois: torch.Tensor, deltas: torch.Tensor, image_sizes: torch.Tensor) -> torch.Tensor:
    return deltas.new_empty(deltas.shape)


def decode_boxes(rois: torch.Tensor, deltas: torch.Tensor, image_sizes: torch.Tensor) -> torch.Tensor:
    """Boxes ``rois`` moved and resized by per-class ``deltas`` and clipped to their image.

    Args:
        rois: ``[K, 5]`` float rows ``(batch index, x1, y1, x2, y2)``, the format of torchvision's
            ``roi_align``.
        deltas: ``[K, 4 * classes]``, per class ``(dx, dy, dw, dh)``: the centre moves by
            ``(dx * w, dy * h)`` and the size scales by ``(exp(dw), exp(dh))``, where ``w = x2 - x1``
            and ``h = y2 - y1``. No weights are applied: divide torchvision's deltas by
            ``BoxCoder.weights`` (and clamp dw, dh as it does) first.
        image_sizes: ``[B, 2]`` float ``(height, width)`` of each image; results are clipped to
            ``[0, width]`` x ``[0, height]``.

    Returns:
        ``[K, 4 * classes]`` boxes ``(x1, y1, x2, y2)`` per class.
    """
    return torch.ops.nnapi.decode_boxes(rois, deltas, image_sizes)


# The smallest normal float32: NNAPI drops a candidate whose score is below its NMS score
# threshold, which must be positive for hard suppression to remove anything (nnapi_facts.md §7.10).
SMALLEST_SCORE = 1.1754943508222875e-38


@torch.library.custom_op(f"{_LIBRARY}::batched_nms_padded", mutates_args=())
def _batched_nms_padded(boxes: torch.Tensor, scores: torch.Tensor, idxs: torch.Tensor, iou_threshold: float,
                        max_detections: int, num_classes: int,
                        score_threshold: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    from torchvision.ops import batched_nms  # torchvision is needed only to run the op eagerly

    # Boxes of a class outside [0, num_classes) fall in no class column of BOX_WITH_NMS_LIMIT: dropped.
    taking_part = (scores > score_threshold) & (scores >= SMALLEST_SCORE) & (idxs >= 0) & (idxs < num_classes)
    candidates = torch.nonzero(taking_part).flatten()
    keep = candidates[batched_nms(boxes[candidates], scores[candidates], idxs[candidates], iou_threshold)]
    keep = keep[:max_detections]
    count = keep.numel()
    out_boxes = boxes.new_zeros((max_detections, 4))
    out_scores = scores.new_zeros((max_detections,))
    out_classes = torch.full((max_detections,), -1, dtype=torch.int32)
    out_boxes[:count], out_scores[:count] = boxes[keep], scores[keep]
    out_classes[:count] = idxs[keep].to(torch.int32)
    return out_boxes, out_scores, out_classes, torch.tensor(count, dtype=torch.int32)


@_batched_nms_padded.register_fake
def _(boxes: torch.Tensor, scores: torch.Tensor, idxs: torch.Tensor, iou_threshold: float, max_detections: int,
      num_classes: int, score_threshold: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    return (boxes.new_empty((max_detections, 4)), scores.new_empty((max_detections,)),
            torch.empty((max_detections,), dtype=torch.int32), torch.empty((), dtype=torch.int32))


def batched_nms_padded(boxes: torch.Tensor, scores: torch.Tensor, idxs: torch.Tensor, iou_threshold: float,
                       max_detections: int, num_classes: int, score_threshold: float = 0.0,
                       ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """torchvision's ``batched_nms`` cut and padded to ``max_detections`` results.

    Args:
        boxes: ``[N, 4]`` float ``(x1, y1, x2, y2)`` with ``x1 <= x2`` and ``y1 <= y2``.
        scores: ``[N]`` float scores.
        idxs: ``[N]`` int32 / int64 class of each box; boxes of different classes never suppress
            each other, and boxes of a class outside ``[0, num_classes)`` are dropped.
        iou_threshold: a box is suppressed by a better one of its class when their IoU is above it.
        max_detections: the fixed number of results.
        num_classes: how many classes ``idxs`` can name.
        score_threshold: only boxes scoring above it (and at least 1.2e-38, the smallest normal
            float32) take part; it must not be negative.

    Returns:
        ``(boxes [D, 4], scores [D], classes [D] int32, count)`` with ``D = max_detections``: the
        first ``count`` rows are the kept boxes by decreasing score (the order of equal scores is
        unspecified), the rest are zeros with class -1. ``count`` is a 0-d int32 tensor.
    """
    return torch.ops.nnapi.batched_nms_padded(boxes, scores, idxs, iou_threshold, max_detections, num_classes,
                                              score_threshold)


@torch.library.custom_op(f"{_LIBRARY}::class_nms_padded", mutates_args=())
def _class_nms_padded(scores: torch.Tensor, boxes: torch.Tensor, score_threshold: float, iou_threshold: float,
                      max_detections: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    from torchvision.ops import nms  # torchvision is needed only to run the op eagerly

    rows, classes = scores.shape
    per_class_boxes = boxes.reshape(rows, classes, 4)
    kept_scores, kept_boxes, kept_classes = [], [], []
    for column in range(1, classes):  # column 0 is the background
        score = scores[:, column]
        candidates = torch.nonzero((score > score_threshold) & (score >= SMALLEST_SCORE)).flatten()
        keep = candidates[nms(per_class_boxes[candidates, column], score[candidates], iou_threshold)]
        kept_scores.append(score[keep])
        kept_boxes.append(per_class_boxes[keep, column])
        kept_classes.append(torch.full((keep.numel(),), column, dtype=torch.int32))
    all_scores = torch.cat(kept_scores)
    order = torch.sort(all_scores, descending=True, stable=True).indices[:max_detections]
    count = order.numel()
    out_boxes = boxes.new_zeros((max_detections, 4))
    out_scores = scores.new_zeros((max_detections,))
    out_classes = torch.full((max_detections,), -1, dtype=torch.int32)
    out_boxes[:count], out_scores[:count] = torch.cat(kept_boxes)[order], all_scores[order]
    out_classes[:count] = torch.cat(kept_classes)[order]
    return out_boxes, out_scores, out_classes, torch.tensor(count, dtype=torch.int32)


@_class_nms_padded.register_fake
def _(scores: torch.Tensor, boxes: torch.Tensor, score_threshold: float, iou_threshold: float,
      max_detections: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    return (boxes.new_empty((max_detections, 4)), scores.new_empty((max_detections,)),
            torch.empty((max_detections,), dtype=torch.int32), torch.empty((), dtype=torch.int32))


def class_nms_padded(scores: torch.Tensor, boxes: torch.Tensor, score_threshold: float, iou_threshold: float,
                     max_detections: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-class NMS of regions that hold a box and a score for each class, cut and padded to
    ``max_detections``: NNAPI's BOX_WITH_NMS_LIMIT (hard NMS) with results of a fixed size.

    Args:
        scores: ``[N, C]`` float scores of each region for each class; column 0 is the background
            and takes no part.
        boxes: ``[N, 4 * C]`` float boxes ``(x1, y1, x2, y2)`` of each region for each class, with
            ``x1 <= x2`` and ``y1 <= y2`` (NNAPI fails the run otherwise).
        score_threshold: only scores above it (and at least 1.2e-38, the smallest normal float32)
            are candidates; it must not be negative.
        iou_threshold: a candidate is suppressed by a better one of its class when their IoU is
            above it (torchvision's ``nms`` rule).
        max_detections: the fixed number of results.

    Returns:
        ``(boxes [D, 4], scores [D], classes [D] int32, count)`` with ``D = max_detections``: the
        first ``count`` rows are the kept detections of every class by decreasing score, the
        best ``D`` when more survive (the order of equal scores is unspecified); the rest are zeros
        with class -1. ``classes`` are column numbers. ``count`` is a 0-d int32 tensor.
    """
    return torch.ops.nnapi.class_nms_padded(scores, boxes, score_threshold, iou_threshold, max_detections)
