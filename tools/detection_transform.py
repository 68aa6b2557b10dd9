"""The pieces every exported torchvision detector shares (tools/detection.py): torchvision's own
image transform for one image, its anchors made once, the boxes scaled back to the image, and the
fixed-capacity forms of its selections (a top-k per level or class, the candidates laid out as NNAPI's
BOX_WITH_NMS_LIMIT takes them).

Every function here calls torchvision's code or repeats its arithmetic operation for operation, so
that what the exported program computes is what the model computes (docs/detection.md).
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torchvision.models.detection.image_list import ImageList
from torchvision.models.detection.transform import GeneralizedRCNNTransform, _resize_image_and_masks, resize_boxes


def transformed_image(transform: GeneralizedRCNNTransform, image: Tensor) -> tuple[Tensor, tuple[int, int]]:
    """torchvision's ``GeneralizedRCNNTransform`` of one ``[3, H, W]`` image in evaluation: normalized,
    resized and padded to its size divisor. Returns the ``[1, 3, H', W']`` batch and the resized
    ``(height, width)`` before padding (the size boxes are clipped to)."""
    normalized = transform.normalize(image)
    resized, _ = _resize_image_and_masks(normalized, transform.min_size[-1], transform.max_size, None,
                                         transform.fixed_size)
    return batch_of_one(resized, transform.size_divisible), (resized.shape[-2], resized.shape[-1])


def batch_of_one(image: Tensor, size_divisible: int) -> Tensor:
    """torchvision's ``batch_images`` of one ``[3, H, W]`` image: ``[1, 3, H', W']``, zeros below and
    right of it up to multiples of ``size_divisible`` (its arithmetic), as one zero pad. torchvision
    writes the image into a zero tensor in place (``copy_``); PT2E's observers, placed where a value is
    made, would then see the zeros before the write, and the quantized model ignore its input."""
    height, width = image.shape[-2], image.shape[-1]
    stride = float(size_divisible)
    padded_height = int(math.ceil(float(height) / stride) * stride)
    padded_width = int(math.ceil(float(width) / stride) * stride)
    batch = image.unsqueeze(0)
    if padded_height != height or padded_width != width:
        batch = F.pad(batch, (0, padded_width - width, 0, padded_height - height))
    return batch


def fixed_anchors(anchor_generator: nn.Module, backbone: nn.Module, transform: GeneralizedRCNNTransform,
                  image_size: tuple[int, int]) -> Tensor:
    """The model's anchors for one image of ``image_size`` (they depend only on the sizes of the
    transformed image and of the feature maps, so they are made once, by the model's own generator)."""
    with torch.no_grad():
        batch, resized = transformed_image(transform, torch.zeros(3, *image_size))
        features = backbone(batch)
        maps = list(features.values()) if isinstance(features, dict) else [features]
        return anchor_generator(ImageList(batch, [resized]), maps)[0]


def boxes_in_image(boxes: Tensor, resized: tuple[int, int], original: tuple[int, int]) -> Tensor:
    """torchvision's ``transform.postprocess`` of the boxes: from the resized image back to the input's.

    For an image size known only at run time (``export_detector(dynamic_size=...)``), the ratios are
    torchvision's float32 ``original / resized`` made from a ``[1]`` tensor of the size, which NNAPI
    computes (FILL, DIV), where ``resize_boxes``' 0-d tensors of a size would stay on the CPU."""
    if all(isinstance(s, int) for s in original):
        return resize_boxes(boxes, list(resized), list(original))
    ratio_h, ratio_w = (torch.full((1,), size, dtype=torch.float32) / torch.tensor([float(new)])
                        for size, new in zip(original, resized))
    x1, y1, x2, y2 = boxes.unbind(1)
    return torch.stack((x1 * ratio_w, y1 * ratio_h, x2 * ratio_w, y2 * ratio_h), dim=1)


def resize_ratios(resized: tuple[int, int], original: tuple[int, int]) -> Tensor:
    """torchvision's ``resize_keypoints`` ratios as a float32 ``[2]`` tensor ``(width, height)``:
    ``original / resized``, each a float32 division of the two sizes, made from ``[1]`` tensors so
    that a size known only at run time is computed in the graph."""
    ratio_h, ratio_w = (torch.full((1,), size, dtype=torch.float32) / torch.tensor([float(new)])
                        for size, new in zip(original, resized))
    return torch.cat([ratio_w, ratio_h])


def class_columns(scores: Tensor, boxes: Tensor) -> tuple[Tensor, Tensor]:
    """Candidates of ``C`` classes (or levels), ``scores [C, R]`` and ``boxes [C, R, 4]``, as
    BOX_WITH_NMS_LIMIT takes them: ``[R, C + 1]`` scores and ``[R, 4 (C + 1)]`` boxes, with a first
    column of zeros (NNAPI's background class) so that column ``c + 1`` holds class ``c``."""
    rows = scores.shape[1]
    column_scores = torch.cat([scores.new_zeros(rows, 1), scores.t()], dim=1)
    column_boxes = torch.cat([boxes.new_zeros(rows, 4), boxes.permute(1, 0, 2).reshape(rows, -1)], dim=1)
    return column_scores, column_boxes


def padded_rows(values: Tensor, rows: int) -> Tensor:
    """``values`` with zero rows appended up to ``rows`` (a level with fewer candidates than the others)."""
    missing = rows - values.shape[0]
    return values if missing == 0 else torch.cat([values, values.new_zeros(missing, *values.shape[1:])])


def at_least(threshold: float) -> float:
    """The score threshold that makes NNAPI's ``score > t`` torchvision's ``score >= threshold``: the
    float32 just below ``threshold`` (0 for 0: NNAPI takes no negative threshold, so a score of exactly
    0 is then dropped where torchvision keeps it; docs/detection.md)."""
    if threshold <= 0:
        return 0.0
    return float(np.nextafter(np.float32(threshold), np.float32(0)))


def without_small_boxes(scores: Tensor, boxes: Tensor, min_size: float) -> Tensor:
    """``scores`` set to 0 (no longer a candidate) where torchvision's ``remove_small_boxes`` drops
    the box: a width or height below ``min_size``. ``boxes [..., 4]``, ``scores`` of ``boxes``' shape
    without the last dimension."""
    widths, heights = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    kept = (widths >= min_size) & (heights >= min_size)
    return torch.where(kept, scores, torch.zeros_like(scores))
