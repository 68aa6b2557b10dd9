"""torchvision's detectors exported whole, post-processing included, for NNAPI (docs/detection.md).

``torch.export`` fails on every torchvision detector: their post-processing keeps a number of boxes
known only when the model runs (the scores above a threshold, the survivors of NMS). This module
wraps a detector in a module that keeps the model's weights, layers and arithmetic and replaces
only those selections by their fixed-capacity forms: a top-k of a fixed k (TOPK_V2) where
torchvision takes ``min(k, count)``, a score of 0 where it drops a box, and its batched NMS with
the final cut by NNAPI's BOX_WITH_NMS_LIMIT with a fixed number of results
(``executorch_nnapi.lowering.custom_ops.class_nms_padded``). The results are padded to a
capacity ``D`` and come with the number of real rows::

    from executorch_nnapi.tools.detection import export_detector, detections_of
    program = export_detector(model.eval(), image)          # image: [3, H, W] float in [0, 1]
    boxes, scores, labels, count = program.module()(image)  # D rows; the first `count` are real
    detections_of(program.module()(image))                  # torchvision's {"boxes", "scores", "labels"}

Whenever the model finds no more than ``D`` detections they are its own, in its order; otherwise
they are its best ``D`` by score (its first ``D``). ``D`` defaults to the model's
``detections_per_img``, so the capacity is never reached. A Mask R-CNN also returns its masks in their
boxes, which ``detections_of(outputs, image_size)`` pastes into the image as torchvision does; a
Keypoint R-CNN its keypoint heatmaps, from which ``detections_of`` takes the keypoints as torchvision does.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import Tensor, nn
from torch.export import Dim, ExportedProgram

from executorch_nnapi.lowering import custom_ops  # noqa: F401  (registers the nnapi:: ops)

__all__ = ["detection_difference", "detections_of", "detector_module", "export_detector", "quantize_detector",
           "supported_detectors"]


def supported_detectors() -> list[str]:
    """Names of the torchvision detector classes ``detector_module`` takes."""
    return ["SSD", "FasterRCNN", "MaskRCNN", "KeypointRCNN", "RetinaNet", "FCOS"]


def detector_module(model: nn.Module, image_size: tuple[int, int], *, max_detections: int | None = None
                    ) -> nn.Module:
    """``model`` (an evaluation-mode torchvision detector) as a module of one ``[3, H, W]`` image with
    fixed-size results ``(boxes [D, 4], scores [D], labels [D] int64, count)`` (and a Mask R-CNN's
    ``masks [D, 1, 28, 28]``, a Keypoint R-CNN's ``heatmaps [D, K, 56, 56]``, the boxes they are placed in
    in the resized image ``[D, 4]`` and the ratios input / resized ``[2]``), ready for ``torch.export``.

    Args:
        model: a torchvision detection model (``supported_detectors()``), in eval mode.
        image_size: ``(H, W)`` of the images it will see (its anchors are made for that size;
            SSD resizes every image to its fixed size, so for SSD only the scale of the boxes
            depends on it).
        max_detections: the capacity ``D``; defaults to the model's ``detections_per_img``.
    """
    if model.training:
        raise ValueError("detector_module: the model is in training mode; call model.eval() first (its "
                         "post-processing is the evaluation one)")
    from torchvision.models.detection import FCOS, FasterRCNN, KeypointRCNN, RetinaNet
    from torchvision.models.detection.ssd import SSD

    if isinstance(model, SSD):
        from .detection_ssd import ExportableSSD
        return ExportableSSD(model, image_size, _capacity(model.detections_per_img, max_detections)).eval()
    if isinstance(model, KeypointRCNN) and getattr(model.roi_heads.keypoint_predictor, "out_channels", None) == 1:
        raise TypeError("detector_module: a Keypoint R-CNN of one keypoint is not supported: its heatmaps "
                        "[D, 1, 56, 56] would be taken for a Mask R-CNN's masks by detections_of")
    if isinstance(model, FasterRCNN):  # and MaskRCNN, KeypointRCNN
        from .detection_rcnn import ExportableFasterRCNN
        capacity = _capacity(model.roi_heads.detections_per_img, max_detections)
        return ExportableFasterRCNN(model, image_size, capacity).eval()
    if isinstance(model, (RetinaNet, FCOS)):
        from .detection_dense import ExportableDenseDetector
        return ExportableDenseDetector(model, image_size, _capacity(model.detections_per_img, max_detections)).eval()
    raise TypeError(f"detector_module: {type(model).__name__} is not a supported torchvision detector "
                    f"(supported: {', '.join(supported_detectors())})")


def export_detector(model: nn.Module, example_image: Tensor, *, max_detections: int | None = None,
                    dynamic_size: tuple[int, int] | None = None) -> ExportedProgram:
    """``torch.export`` of ``detector_module(model, ...)`` for images like ``example_image`` ``[3, H, W]``.

    Args:
        model: a torchvision detection model in eval mode.
        example_image: a ``[3, H, W]`` float image.
        max_detections: the capacity ``D`` (default: the model's ``detections_per_img``).
        dynamic_size: ``(min, max)`` of the image's height and width, each a ``Dim``; only for models
            whose transform resizes every image to one fixed size (SSD, SSDlite), where nothing but
            the input and the resize depends on it.
    Returns:
        The exported program; lower it with ``to_edge_transform_and_lower(program, partitioner=[
        NnapiPartitioner()])``.
    """
    if example_image.dim() != 3:
        raise ValueError(f"export_detector: the example image must be [3, H, W], got {list(example_image.shape)}")
    size = (int(example_image.shape[1]), int(example_image.shape[2]))
    module = detector_module(model, size, max_detections=max_detections)
    dynamic_shapes = None
    if dynamic_size is not None:
        if getattr(model.transform, "fixed_size", None) is None:
            raise ValueError(f"export_detector: dynamic_size needs a model that resizes every image to a fixed "
                             f"size; {type(model).__name__}'s transform scales by the image's size, so its "
                             "feature maps and anchors change with it (docs/detection.md)")
        low, high = dynamic_size
        dynamic_shapes = ({1: Dim("height", min=low, max=high), 2: Dim("width", min=low, max=high)},)
    with torch.no_grad():
        return torch.export.export(module, (example_image,), dynamic_shapes=dynamic_shapes)


def quantize_detector(model: nn.Module, calibration_images: Sequence[Tensor], *, max_detections: int | None = None,
                      feature_level: int = 30, signed: bool = False) -> ExportedProgram:
    """``model`` in 8 bits for NNAPI: ``detector_module`` captured for PT2E, annotated by
    ``NnapiQuantizer``, calibrated on ``calibration_images``, converted by ``convert_pt2e`` and exported
    again. The backbone and heads become 8-bit; the post-processing (box decoding, softmax, top-k,
    NMS), read only by operations that stay float, stays float (docs/detection.md#in-8-bits).

    Args:
        model: a torchvision detection model in eval mode.
        calibration_images: ``[3, H, W]`` float images in [0, 1], all of one size: the size the
            program is exported for (use images like the ones the model will see).
        max_detections: the capacity ``D`` (default: the model's ``detections_per_img``).
        feature_level: the lowest NNAPI feature level the program must run on (``NnapiQuantizer``'s).
        signed: int8 activations instead of uint8 (feature level 30 or higher).
    Returns:
        The exported program of the converted model: ``program.module()`` runs it in eager
        (convert_pt2e's float simulation of the 8-bit arithmetic); lower it with
        ``to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level)])``.
    """
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from ..quantizer import NnapiQuantizer

    images = list(calibration_images)
    if not images:
        raise ValueError("quantize_detector: needs at least one calibration image")
    shape = tuple(images[0].shape)
    if len(shape) != 3 or any(tuple(image.shape) != shape for image in images):
        raise ValueError(f"quantize_detector: calibration images must be [3, H, W] and of one size (the program is "
                         f"exported for it); got {sorted({tuple(image.shape) for image in images})}")
    module = detector_module(model, (shape[1], shape[2]), max_detections=max_detections)
    quantizer = NnapiQuantizer(feature_level=feature_level, signed=signed)
    with torch.no_grad():
        prepared = prepare_pt2e(torch.export.export(module, (images[0],)).module(), quantizer)
        for image in images:
            prepared(image)
        return torch.export.export(convert_pt2e(prepared), (images[0],))


def detections_of(outputs: Sequence[Tensor], image_size: tuple[int, int] | None = None) -> dict[str, Tensor]:
    """The real rows of an exported detector's outputs, as torchvision returns one image's detections:
    ``{"boxes", "scores", "labels"}``; for a Mask R-CNN ``"masks"`` ``[N, 1, H, W]``: its masks
    pasted into an image of ``image_size`` ``(H, W)`` (the input's) by torchvision's
    ``paste_masks_in_image``, which resizes each mask to its box, a size known only then; for a
    Keypoint R-CNN ``"keypoints"`` ``[N, K, 3]`` and ``"keypoints_scores"`` ``[N, K]``: torchvision's
    ``heatmaps_to_keypoints`` of its heatmaps in their boxes in the resized image (each resized to its
    box's size, a size known only then, and its maximum taken), as its ``keypointrcnn_inference``
    calls it, scaled to the input image as its transform's ``resize_keypoints`` does."""
    boxes, scores, labels, count = outputs[:4]
    real = int(count)
    result = {"boxes": boxes[:real], "scores": scores[:real], "labels": labels[:real]}
    extras = list(outputs[4:])
    if extras and extras[0].shape[1] == 1:  # masks [D, 1, M, M]; heatmaps have one channel per keypoint (K > 1)
        if image_size is None:
            raise ValueError("detections_of: a Mask R-CNN's masks are pasted into the image: pass "
                             "image_size=(H, W)")
        from torchvision.models.detection.roi_heads import paste_masks_in_image
        result["masks"] = paste_masks_in_image(extras[0][:real], result["boxes"], tuple(image_size))
    elif extras:
        # torchvision's keypointrcnn_inference places them in the boxes of the resized image, then its
        # transform's resize_keypoints scales x and y by the float32 ratios input / resized.
        from torchvision.models.detection.roi_heads import heatmaps_to_keypoints
        heatmaps, resized_boxes, ratios = extras[:3]
        keypoints, keypoint_scores = heatmaps_to_keypoints(heatmaps[:real], resized_boxes[:real])
        keypoints = keypoints.clone()
        keypoints[..., 0] *= ratios[0]
        keypoints[..., 1] *= ratios[1]
        result["keypoints"], result["keypoints_scores"] = keypoints, keypoint_scores
    return result


def detection_difference(got: dict[str, Tensor], want: dict[str, Tensor], *, box_tolerance: float = 1e-4,
                         score_tolerance: float = 1e-5) -> str:
    """How detections ``got`` differ from ``want`` (torchvision's dicts), or "" when they are the same: as
    many, scores within ``score_tolerance``, and in the same order the same labels with boxes within
    ``box_tolerance`` of the largest coordinate. Among detections whose scores are within
    ``score_tolerance`` of each other the order is not compared: torchvision sorts equal scores in no
    particular order, and a float32 step apart two implementations may order them either way."""
    if len(got["labels"]) != len(want["labels"]):
        return f"{len(got['labels'])} detections instead of {len(want['labels'])}"
    if not len(want["labels"]):
        return ""
    score_error = (got["scores"] - want["scores"]).abs().max().item()
    if score_error > score_tolerance:
        return f"scores differ by up to {score_error:.2g} (more than {score_tolerance:g})"
    scale = want["boxes"].abs().max().item()
    gaps = (want["scores"][:-1] - want["scores"][1:]).abs() > score_tolerance
    start = 0
    for end in [int(i) + 1 for i in torch.nonzero(gaps).flatten()] + [len(want["scores"])]:
        unmatched = list(range(start, end))  # a group of scores within the tolerance of their neighbours
        for k in range(start, end):
            match = next((j for j in unmatched if int(got["labels"][j]) == int(want["labels"][k]) and
                          (got["boxes"][j] - want["boxes"][k]).abs().max().item() <= box_tolerance * scale), None)
            if match is None:
                return (f"detection {k} (label {int(want['labels'][k])}, score {float(want['scores'][k]):.6g}, box "
                        f"{[round(v, 2) for v in want['boxes'][k].tolist()]}) is missing")
            unmatched.remove(match)
        start = end
    return ""


def _capacity(per_image: int, requested: int | None) -> int:
    capacity = int(per_image) if requested is None else int(requested)
    if capacity < 1:
        raise ValueError(f"max_detections must be at least 1, got {capacity}")
    return capacity
