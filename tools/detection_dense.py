"""torchvision's RetinaNet and FCOS with fixed-size results (tools/detection.py, docs/detection.md).

Their ``postprocess_detections`` keeps, per feature level, the (anchor, class) scores above
``score_thresh``, the best ``topk_candidates`` of them, decodes those anchors' boxes, then runs
``batched_nms`` over the classes and keeps the best ``detections_per_img``. Here each level's
selection is one ``topk`` of all its scores (TOPK_V2; a score at or below the threshold among the
``k`` is never a candidate of the NMS), the anchor and the class of each come from its index as
torchvision computes them (a floor division and a remainder, in int32: NNAPI has no int64), and
the NMS with the final cut is BOX_WITH_NMS_LIMIT (``class_nms_padded``: one row per candidate, its
score in its class's column and 0 in the others).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torchvision.models.detection import FCOS
from torchvision.ops import boxes as box_ops

from executorch_nnapi.lowering.custom_ops import class_nms_padded

from .detection_transform import boxes_in_image, fixed_anchors, transformed_image


class ExportableDenseDetector(nn.Module):
    """An evaluation-mode torchvision ``RetinaNet`` or ``FCOS`` on one ``[3, H, W]`` image, returning
    ``(boxes [D, 4], scores [D], labels [D] int64, count)``: the first ``count`` rows are the model's
    detections in its order, the rest zeros (label -1)."""

    def __init__(self, model: nn.Module, image_size: tuple[int, int], max_detections: int) -> None:
        super().__init__()
        self.transform, self.backbone, self.head, self.box_coder = (model.transform, model.backbone, model.head,
                                                                    model.box_coder)
        self.centerness = isinstance(model, FCOS)  # its scores are sqrt(class x centerness), its coder linear
        self.score_thresh, self.nms_thresh = float(model.score_thresh), float(model.nms_thresh)
        self.topk_candidates, self.max_detections = int(model.topk_candidates), max_detections
        anchors = fixed_anchors(model.anchor_generator, model.backbone, model.transform, image_size)
        with torch.no_grad():
            batch, _ = transformed_image(model.transform, torch.zeros(3, *image_size))
            features = list(model.backbone(batch).values())
            positions = [f.shape[2] * f.shape[3] for f in features]
            per_position = model.head(features)["cls_logits"].shape[1] // sum(positions)
        self.anchors_per_level = [p * per_position for p in positions]  # torchvision's split of the head
        self.register_buffer("anchors", anchors, persistent=False)

    def forward(self, image: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Detections of ``image`` ``[3, H, W]`` (float in [0, 1], as torchvision takes it)."""
        batch, resized = transformed_image(self.transform, image)
        head_outputs = self.head(list(self.backbone(batch).values()))
        split = {name: value[0].split(self.anchors_per_level) for name, value in head_outputs.items()}
        anchors = self.anchors.split(self.anchors_per_level)
        level_boxes, level_scores, level_labels = [], [], []
        for level in range(len(self.anchors_per_level)):
            logits = split["cls_logits"][level]
            classes = logits.shape[-1]
            if self.centerness:  # FCOS
                scores = torch.sqrt(torch.sigmoid(logits) * torch.sigmoid(split["bbox_ctrness"][level])).flatten()
            else:
                scores = torch.sigmoid(logits).flatten()
            top_scores, top = scores.topk(min(self.topk_candidates, scores.shape[0]))
            top = top.to(torch.int32)
            anchor = torch.div(top, classes, rounding_mode="floor")
            regression, level_anchors = split["bbox_regression"][level][anchor], anchors[level][anchor]
            boxes = (self.box_coder.decode(regression, level_anchors) if self.centerness
                     else self.box_coder.decode_single(regression, level_anchors))
            level_boxes.append(box_ops.clip_boxes_to_image(boxes, resized))
            level_scores.append(top_scores)
            # torchvision's index % classes, as a float (NNAPI concatenates no int32 tensors)
            level_labels.append((top - anchor * classes).to(torch.float32))
        boxes, scores, labels = torch.cat(level_boxes), torch.cat(level_scores), torch.cat(level_labels)
        # One row per candidate, its score in the column of its class + 1 (column 0 is NNAPI's background).
        in_class = labels[:, None] == torch.arange(classes, dtype=torch.float32)[None, :]
        columns = torch.where(in_class, scores[:, None], torch.zeros_like(in_class, dtype=scores.dtype))
        nms_scores = torch.cat([scores.new_zeros(scores.shape[0], 1), columns], dim=1)
        kept_boxes, kept_scores, columns_kept, count = class_nms_padded(nms_scores, boxes.repeat(1, classes + 1),
                                                                        self.score_thresh, self.nms_thresh,
                                                                        self.max_detections)
        labels = torch.where(columns_kept > 0, columns_kept - 1, columns_kept)  # padding stays -1
        kept_boxes = boxes_in_image(kept_boxes, resized, (image.shape[-2], image.shape[-1]))
        return kept_boxes, kept_scores, labels.to(torch.int64), count
