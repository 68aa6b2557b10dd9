"""torchvision's two-stage detectors (Faster R-CNN, Mask R-CNN, Keypoint R-CNN) with fixed-size results
(tools/detection.py, docs/detection.md).

Three selections of torchvision's have a size known only when the model runs, and each is
replaced by a fixed-capacity form of the same arithmetic:

- ``RegionProposalNetwork.filter_proposals``: per feature level the best ``pre_nms_top_n``
  objectness logits (``topk``, TOPK_V2), their boxes clipped, small or low-scoring ones given a
  score of 0 instead of being dropped, then ``batched_nms`` over the levels and the best
  ``post_nms_top_n``: BOX_WITH_NMS_LIMIT with one column per level. The proposals are padded to
  ``post_nms_top_n`` rows; a padding row has score 0.
- ``MultiScaleRoIAlign``: each proposal pooled on every level (ROI_ALIGN) and its own level's
  result kept (``torch.where``), where torchvision pools each level's proposals only; a region
  narrower than one cell in the map's last cell has its samples past the map counted 0, as
  torchvision counts them (``edge_factors``).
- ``RoIHeads.postprocess_detections``: padding rows and small boxes given a score of 0, then
  ``batched_nms`` over the classes and the best ``detections_per_img``: BOX_WITH_NMS_LIMIT with the
  box predictor's own layout (one column per class, class 0 the background).
"""

from __future__ import annotations

from typing import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torchvision.models.detection.faster_rcnn import FasterRCNN
from torchvision.models.detection.rpn import concat_box_prediction_layers
from torchvision.ops import boxes as box_ops
from torchvision.ops import roi_align
from torchvision.ops.poolers import MultiScaleRoIAlign, _setup_scales

from executorch_nnapi.lowering.custom_ops import class_nms_padded

from .detection_transform import (at_least, boxes_in_image, class_columns, fixed_anchors, padded_rows,
                                  resize_ratios, transformed_image, without_small_boxes)

# torchvision's RoIHeads.postprocess_detections drops boxes narrower or lower than this.
_DETECTION_MIN_SIZE = 1e-2


class FixedRoIAlign(nn.Module):
    """torchvision's ``MultiScaleRoIAlign`` of a fixed number of regions: every region pooled on every
    level, each keeping the result of the level torchvision's ``LevelMapper`` gives it."""

    def __init__(self, pooler: MultiScaleRoIAlign, features: dict[str, Tensor], resized: tuple[int, int]) -> None:
        super().__init__()
        self.names = [name for name in features if name in pooler.featmap_names]
        scales, mapper = pooler.scales, pooler.map_levels
        if scales is None or mapper is None:  # torchvision sets them on its first call, from that image
            scales, mapper = _setup_scales([features[n] for n in self.names], [resized], pooler.canonical_scale,
                                           pooler.canonical_level)
        self.scales, self.mapper = list(scales), mapper
        self.output_size, self.sampling_ratio = pooler.output_size, pooler.sampling_ratio

    def forward(self, features: dict[str, Tensor], boxes: Tensor) -> Tensor:
        """``[K, channels, h, w]`` pooled regions of ``boxes [K, 4]`` (one image)."""
        rois = torch.cat([boxes.new_zeros(boxes.shape[0], 1), boxes], dim=1)  # _convert_to_roi_format
        maps = [features[name] for name in self.names]
        if len(maps) == 1:
            return self._pooled(maps[0], rois, boxes, self.scales[0])
        levels = self._levels(boxes)
        result = None
        for level, (feature, scale) in enumerate(zip(maps, self.scales)):
            pooled = self._pooled(feature, rois, boxes, scale)
            result = pooled if result is None else torch.where((levels == level)[:, None, None, None], pooled, result)
        return result

    def _pooled(self, feature: Tensor, rois: Tensor, boxes: Tensor, scale: float) -> Tensor:
        """torchvision's ``roi_align(aligned=False)`` of one level, in a form NNAPI's ROI_ALIGN computes
        alike: on the map with its last row and column repeated, where torchvision's arithmetic is
        Android's (a sample past the last row reads it), times ``edge_factors``, which counts those
        samples 0 as torchvision does on the map itself."""
        padded = torch.cat([feature, feature[:, :, -1:]], dim=2)
        padded = torch.cat([padded, padded[:, :, :, -1:]], dim=3)
        pooled = roi_align(padded, rois, self.output_size, scale, self.sampling_ratio)
        return pooled * edge_factors(boxes, scale, feature.shape[-2:], self.output_size, self.sampling_ratio)

    def _levels(self, boxes: Tensor) -> Tensor:
        """torchvision's ``LevelMapper`` arithmetic, its level kept as a float (a whole number after
        the floor and clamp) instead of converted to int64, which NNAPI has not."""
        mapper = self.mapper
        s = torch.sqrt(box_ops.box_area(boxes))
        target = torch.floor(mapper.lvl0 + torch.log2(s / mapper.s0) + torch.tensor(mapper.eps, dtype=s.dtype))
        return torch.clamp(target, min=mapper.k_min, max=mapper.k_max) - mapper.k_min


def edge_factors(boxes: Tensor, scale: float, map_size: Sequence[int], output_size: Sequence[int],
                 sampling_ratio: int) -> Tensor:
    """``[K, 1, ph, pw]``: per output cell of each region, the share of its samples torchvision's
    ``roi_align`` reads from the map (its samples lie at ``y <= height`` and ``x <= width``), the others
    counting 0.

    Only a region narrower than one cell (widened to one) that starts in the last cell has samples past
    the map, and all of its samples then lie past the last row (or column): torchvision reads that
    row where ``y <= height`` and 0 beyond, Android's ROI_ALIGN reads that row for every sample
    (docs/detection_ops.md). So torchvision's cell is NNAPI's times this share, and the share is 1 for
    every other region. The sample positions are torchvision's float32 arithmetic (aligned=False)."""
    height, width = float(map_size[0]), float(map_size[1])
    pooled_h, pooled_w = int(output_size[0]), int(output_size[1])
    shares = []
    for low, high, cells, extent in ((boxes[:, 1], boxes[:, 3], pooled_h, height),
                                     (boxes[:, 0], boxes[:, 2], pooled_w, width)):
        start, end = low * scale, high * scale
        grid = sampling_ratio if sampling_ratio > 0 else 1  # an adaptive grid: ceil(1 / cells) for a one-cell region
        size = torch.clamp(end - start, min=1.0)
        bin_size = size / cells
        cell = torch.arange(cells, dtype=boxes.dtype)
        offsets = (torch.arange(grid, dtype=boxes.dtype) + 0.5)
        samples = (start[:, None, None] + cell[None, :, None] * bin_size[:, None, None]
                   + offsets[None, None, :] * bin_size[:, None, None] / grid)
        shares.append((samples <= extent).to(boxes.dtype).mean(dim=-1))  # [K, cells]
    return (shares[0][:, :, None] * shares[1][:, None, :])[:, None]


class FixedProposals(nn.Module):
    """torchvision's ``RegionProposalNetwork`` in evaluation for one image, padded to ``post_nms_top_n``."""

    def __init__(self, rpn: nn.Module, anchors: Tensor, anchors_per_level: list[int]) -> None:
        super().__init__()
        self.head, self.box_coder = rpn.head, rpn.box_coder
        self.register_buffer("anchors", anchors, persistent=False)
        self.anchors_per_level = anchors_per_level
        self.pre_nms_top_n, self.post_nms_top_n = int(rpn._pre_nms_top_n["testing"]), int(rpn._post_nms_top_n["testing"])
        self.nms_thresh, self.score_thresh, self.min_size = float(rpn.nms_thresh), float(rpn.score_thresh), rpn.min_size

    def forward(self, maps: list[Tensor], resized: tuple[int, int]) -> tuple[Tensor, Tensor]:
        """``(proposals [P, 4], scores [P])`` best first, padding rows of score 0."""
        objectness, deltas = concat_box_prediction_layers(*self.head(maps))
        proposals = self.box_coder.decode_single(deltas.detach(), self.anchors)
        objectness = objectness.reshape(-1)
        rows = max(min(self.pre_nms_top_n, n) for n in self.anchors_per_level)
        level_scores, level_boxes, offset = [], [], 0
        for count in self.anchors_per_level:
            logits, anchors = objectness[offset:offset + count].topk(min(self.pre_nms_top_n, count))
            # The level's own slice indexed, not torchvision's index + offset: an int64 sum NNAPI
            # could not prove fits int32.
            boxes = box_ops.clip_boxes_to_image(proposals[offset:offset + count][anchors], resized)
            scores = without_small_boxes(torch.sigmoid(logits), boxes, self.min_size)
            level_scores.append(padded_rows(scores, rows))
            level_boxes.append(padded_rows(boxes, rows))
            offset += count
        nms_scores, nms_boxes = class_columns(torch.stack(level_scores), torch.stack(level_boxes))
        boxes, scores, _, _ = class_nms_padded(nms_scores, nms_boxes, at_least(self.score_thresh), self.nms_thresh,
                                               self.post_nms_top_n)
        return boxes, scores


class ExportableFasterRCNN(nn.Module):
    """An evaluation-mode torchvision ``FasterRCNN`` (or ``MaskRCNN``, ``KeypointRCNN``) on one ``[3, H, W]``
    image, returning ``(boxes [D, 4], scores [D], labels [D] int64, count)``: the first ``count`` rows are
    the model's detections in its order, the rest zeros (label -1). A Mask R-CNN also returns ``masks
    [D, 1, M, M]``: torchvision's ``maskrcnn_inference`` (the probabilities of each detection's class
    in its box), before ``paste_masks_in_image`` (``detections_of`` pastes them). A Keypoint R-CNN also
    returns ``heatmaps [D, K, 56, 56]``: its keypoint branch's logits on the detections, before
    ``heatmaps_to_keypoints``, with the boxes it places them in (``[D, 4]``, in the image as the
    transform resized it) and torchvision's float32 ratios ``[2]`` (input / resized width, height)
    that scale the keypoints to the input (``detections_of`` takes the keypoints from them)."""

    def __init__(self, model: FasterRCNN, image_size: tuple[int, int], max_detections: int) -> None:
        super().__init__()
        self.transform, self.backbone = model.transform, model.backbone
        roi_heads = model.roi_heads
        self.box_head, self.box_predictor, self.box_coder = roi_heads.box_head, roi_heads.box_predictor, roi_heads.box_coder
        self.score_thresh, self.nms_thresh = float(roi_heads.score_thresh), float(roi_heads.nms_thresh)
        self.max_detections = max_detections
        with torch.no_grad():
            batch, resized = transformed_image(model.transform, torch.zeros(3, *image_size))
            features = model.backbone(batch)
            objectness, _ = model.rpn.head(list(features.values()))
        anchors = fixed_anchors(model.rpn.anchor_generator, model.backbone, model.transform, image_size)
        self.proposals = FixedProposals(model.rpn, anchors, [int(o[0].numel()) for o in objectness])
        self.box_roi_pool = FixedRoIAlign(roi_heads.box_roi_pool, features, resized)
        self.mask_roi_pool = None
        if roi_heads.has_mask():
            self.mask_roi_pool = FixedRoIAlign(roi_heads.mask_roi_pool, features, resized)
            self.mask_head, self.mask_predictor = roi_heads.mask_head, roi_heads.mask_predictor
        self.keypoint_roi_pool = None
        if roi_heads.has_keypoint():
            self.keypoint_roi_pool = FixedRoIAlign(roi_heads.keypoint_roi_pool, features, resized)
            # For the example's size; an image size known only at run time computes them (forward).
            self.register_buffer("keypoint_ratios", resize_ratios(resized, image_size), persistent=False)
            self.keypoint_head, self.keypoint_predictor = roi_heads.keypoint_head, roi_heads.keypoint_predictor

    def forward(self, image: Tensor) -> tuple[Tensor, ...]:
        """Detections of ``image`` ``[3, H, W]`` (float in [0, 1], as torchvision takes it)."""
        batch, resized = transformed_image(self.transform, image)
        features = self.backbone(batch)
        proposals, proposal_scores = self.proposals(list(features.values()), resized)
        box_features = self.box_head(self.box_roi_pool(features, proposals))
        class_logits, box_regression = self.box_predictor(box_features)
        boxes = box_ops.clip_boxes_to_image(self.box_coder.decode(box_regression, [proposals]), resized)
        scores = F.softmax(class_logits, -1)
        scores = torch.where(proposal_scores[:, None] > 0, scores, torch.zeros_like(scores))  # padding rows
        scores = without_small_boxes(scores, boxes, _DETECTION_MIN_SIZE)
        kept_boxes, kept_scores, labels, count = class_nms_padded(scores, boxes.reshape(boxes.shape[0], -1),
                                                                  self.score_thresh, self.nms_thresh,
                                                                  self.max_detections)
        in_image = boxes_in_image(kept_boxes, resized, (image.shape[-2], image.shape[-1]))
        outputs = (in_image, kept_scores, labels.to(torch.int64), count)
        if self.mask_roi_pool is not None:
            outputs += (self._masks(features, kept_boxes, kept_scores, labels),)
        if self.keypoint_roi_pool is not None:
            original = (image.shape[-2], image.shape[-1])
            static = all(isinstance(size, int) for size in (*original, *resized))
            ratios = self.keypoint_ratios if static else resize_ratios(resized, original)
            outputs += (self._heatmaps(features, kept_boxes, kept_scores), kept_boxes, ratios)
        return outputs

    def _masks(self, features: dict[str, Tensor], boxes: Tensor, scores: Tensor, labels: Tensor) -> Tensor:
        """torchvision's mask branch on the detections (boxes in the resized image) and its
        ``maskrcnn_inference``: each one's sigmoid probabilities of its own class; zeros on padding rows."""
        logits = self.mask_predictor(self.mask_head(self.mask_roi_pool(features, boxes)))
        probabilities = logits.sigmoid()
        own_class = torch.clamp(labels, min=0).to(torch.int64)[:, None, None, None]
        masks = torch.gather(probabilities, 1, own_class.expand(-1, 1, *probabilities.shape[2:]))
        return torch.where(scores[:, None, None, None] > 0, masks, torch.zeros_like(masks))

    def _heatmaps(self, features: dict[str, Tensor], boxes: Tensor, scores: Tensor) -> Tensor:
        """torchvision's keypoint branch on the detections (boxes in the resized image): its
        ``keypoint_logits`` ``[D, K, 56, 56]``, zeros on padding rows."""
        logits = self.keypoint_predictor(self.keypoint_head(self.keypoint_roi_pool(features, boxes)))
        return torch.where(scores[:, None, None, None] > 0, logits, torch.zeros_like(logits))
