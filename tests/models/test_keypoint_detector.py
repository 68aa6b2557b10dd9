"""torchvision's Keypoint R-CNN exported whole with executorch_nnapi.tools.detection (docs/detection.md):
its keypoint branch runs in NNAPI on the detections, returning their heatmaps; detections_of takes the
keypoints from them after the .pte with torchvision's own heatmaps_to_keypoints (each heatmap resized
to its box's size, a size known only then, and its maximum taken), as keypointrcnn_inference does.

Lowered with NnapiPartitioner, run through the C++ backend on the host driver and compared with eager
torchvision: the same detections (test_detectors.py's rule), and the same keypoints. Models have
random weights of a fixed seed (tools/detection_models.py)."""

from __future__ import annotations

import collections

import pytest
import torch
from torchvision.models.detection import KeypointRCNN

from executorch_nnapi.tools.detection import detections_of, detector_module, supported_detectors
from executorch_nnapi.tools.detection_models import DETECTOR_BUILDERS
from op_harness import run_pte
from test_detectors import BOX_TOLERANCE, assert_padding, assert_same_detections, lowered_detector

# Keypoint scores are the bicubic resize of the heatmaps at the argmax: NNAPI's heatmaps differ from
# eager's by float32 rounding through the trunk and the keypoint head, measured up to 2e-5 (scores up to
# ~4) on the MobileNet model's images. Keypoints are each box's corner plus the argmax's position scaled
# to the box: they follow the boxes' float32 differences (measured up to 2e-4 pixels) as long as no
# argmax moves; one moved by a pixel would be off by ~1 pixel, far beyond BOX_TOLERANCE of the largest
# coordinate (0.03 pixels at 320).
KEYPOINT_SCORE_TOLERANCE = 1e-4


@pytest.mark.parametrize("name, size, counts, tolerance", [
    pytest.param("keypointrcnn_mobilenet_v3_large_320_fpn", 320, [100, 100], 1e-5,
                 id="keypointrcnn_mobilenet_v3_large_320_fpn"),
    pytest.param("keypointrcnn_resnet50_fpn", 256, [100], 1e-3, id="keypointrcnn_resnet50_fpn")])
def test_keypoint_rcnn_is_one_nnapi_model_with_torchvisions_keypoints(name, size, counts, tolerance):
    g = torch.Generator().manual_seed(3)
    images = [torch.rand(3, size, size, generator=g) for _ in counts]
    lowered = lowered_detector(name, images[0], image_size=(size, size), min_size=size, max_size=size)
    assert lowered.delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    assert collections.Counter(lowered.nnapi_operations)["ROI_ALIGN"] >= 3  # the boxes' levels and the keypoints'
    found = []
    for image in images:
        outputs = run_pte(lowered.pte, [image])
        with torch.no_grad():
            want = lowered.model([image])[0]
        count = int(outputs[3])
        heatmaps = outputs[4]
        assert heatmaps.shape == (len(outputs[0]), 17, 56, 56) and not heatmaps[count:].any()
        assert_padding(outputs, count)
        got = detections_of(outputs)
        assert_same_detections(got, want, tolerance)
        assert got["keypoints"].shape == want["keypoints"].shape == (count, 17, 3)
        assert_same_keypoints(got, want, BOX_TOLERANCE, max(tolerance * 10, KEYPOINT_SCORE_TOLERANCE))
        found.append(count)
    assert found == counts


def assert_same_keypoints(got: dict, want: dict, tolerance: float, score_tolerance: float) -> None:
    """Each of torchvision's detections has, among ``got``'s detections of its label and box, one whose
    keypoints are within ``tolerance`` of the largest coordinate and whose keypoint scores are within
    ``score_tolerance`` (detections of near-equal scores may come in another order)."""
    scale = want["boxes"].abs().max().item() if len(want["boxes"]) else 1.0
    for k in range(len(want["labels"])):
        same = [j for j in range(len(got["labels"])) if int(got["labels"][j]) == int(want["labels"][k])
                and (got["boxes"][j] - want["boxes"][k]).abs().max().item() <= BOX_TOLERANCE * scale]
        assert any((got["keypoints"][j] - want["keypoints"][k]).abs().max().item() <= tolerance * scale
                   and (got["keypoints_scores"][j] - want["keypoints_scores"][k]).abs().max().item() <= score_tolerance
                   for j in same), f"detection {k}: keypoints differ"


def test_keypoint_rcnn_refusals_name_the_reason():
    assert "KeypointRCNN" in supported_detectors()
    build, _ = DETECTOR_BUILDERS["keypointrcnn_mobilenet_v3_large_320_fpn"]
    model = build(min_size=400, max_size=640).eval()
    with pytest.raises(ValueError, match="resizes a 320 x 320 image to 400 x 400"):
        detector_module(model, (320, 320))
    one_keypoint = KeypointRCNN(model.backbone, num_classes=2, num_keypoints=1).eval()
    with pytest.raises(TypeError, match="one keypoint"):
        detector_module(one_keypoint, (320, 320))
