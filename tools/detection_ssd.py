"""torchvision's SSD and SSDlite with fixed-size results (tools/detection.py, docs/detection.md).

``SSD.postprocess_detections`` keeps, per class, the scores above ``score_thresh``, the best
``topk_candidates`` of them, runs ``batched_nms`` over all classes and keeps the best
``detections_per_img``. Here the per-class selection is one ``topk`` of every class's scores (TOPK_V2):
a score at or below the threshold among the ``k`` is never a candidate of the NMS, so the candidates
are torchvision's. The NMS and the final cut are BOX_WITH_NMS_LIMIT with one column per class
(``class_nms_padded``). Everything else is the model's own modules and functions.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torchvision.models.detection.ssd import SSD
from torchvision.ops import boxes as box_ops

from executorch_nnapi.lowering.custom_ops import class_nms_padded

from .detection_transform import boxes_in_image, class_columns, fixed_anchors, transformed_image


class ExportableSSD(nn.Module):
    """An evaluation-mode torchvision ``SSD`` (SSD300, SSDlite) on one ``[3, H, W]`` image, returning
    ``(boxes [D, 4], scores [D], labels [D] int64, count)``: the first ``count`` rows are the model's
    detections in its order, the rest zeros (label -1)."""

    def __init__(self, model: SSD, image_size: tuple[int, int], max_detections: int) -> None:
        super().__init__()
        self.transform, self.backbone, self.head = model.transform, model.backbone, model.head
        self.box_coder = model.box_coder
        self.score_thresh, self.nms_thresh = float(model.score_thresh), float(model.nms_thresh)
        self.topk_candidates = int(model.topk_candidates)
        self.max_detections = max_detections
        self.register_buffer("anchors", fixed_anchors(model.anchor_generator, model.backbone, model.transform,
                                                      image_size), persistent=False)

    def forward(self, image: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Detections of ``image`` ``[3, H, W]`` (float in [0, 1], as torchvision takes it)."""
        batch, resized = transformed_image(self.transform, image)
        features = self.backbone(batch)
        head_outputs = self.head(list(features.values()) if isinstance(features, dict) else [features])
        scores = F.softmax(head_outputs["cls_logits"][0], dim=-1)
        boxes = self.box_coder.decode_single(head_outputs["bbox_regression"][0], self.anchors)
        boxes = box_ops.clip_boxes_to_image(boxes, resized)
        k = min(self.topk_candidates, scores.shape[0])
        top_scores, top_anchors = scores[:, 1:].t().topk(k)  # [classes - 1, k]: each class's best k
        nms_scores, nms_boxes = class_columns(top_scores, boxes[top_anchors])
        kept_boxes, kept_scores, labels, count = class_nms_padded(nms_scores, nms_boxes, self.score_thresh,
                                                                  self.nms_thresh, self.max_detections)
        kept_boxes = boxes_in_image(kept_boxes, resized, (image.shape[-2], image.shape[-1]))
        return kept_boxes, kept_scores, labels.to(torch.int64), count
