"""Ops a model calls to say "NNAPI's arithmetic, exactly", where no PyTorch op has it.

``decode_boxes`` applies per-class box deltas to regions and clips the result to each image: the
arithmetic of NNAPI's AXIS_ALIGNED_BBOX_TRANSFORM (docs/nnapi_facts.md §7.9), which is also
torchvision's ``BoxCoder.decode`` followed by ``clip_boxes_to_image`` once the deltas are divided
by the coder's weights (docs/detection_ops.md). It is a custom op (``nnapi::decode_boxes``),
so it stays one node in the exported program and becomes one NNAPI operation; ExecuTorch has no CPU
kernel for it, so a program whose node NNAPI refuses stops lowering, naming it.
"""

from __future__ import annotations

import torch

__all__ = ["decode_boxes"]

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
