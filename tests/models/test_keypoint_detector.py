"""torchvision's Keypoint R-CNN exported whole with executorch_nnapi.tools.detection (docs/detection.md):
its keypoint branch runs in NNAPI on the detections, returning their heatmaps; detections_of takes the
keypoints from them after the .pte with torchvision's own heatmaps_to_keypoints (each heatmap resized
to its box's size, a size known only then, and its maximum taken), as keypointrcnn_inference does.

Lowered with NnapiPartitioner, run through the C++ backend on the host driver and compared with eager
torchvision: the same detections (test_detectors.py's rule), and the same keypoints. Models have
random weights of a fixed seed (tools/detection_models.py)."""

from __future__ import annotations

import pytest
import torch
from torchvision.models.detection import KeypointRCNN
from torchvision.models.detection.roi_heads import heatmaps_to_keypoints

from executorch_nnapi.tools.detection import detections_of, detector_module, supported_detectors
from executorch_nnapi.tools.detection_models import DETECTOR_BUILDERS
from op_harness import run_pte
from test_detectors import BOX_TOLERANCE, assert_padding, assert_same_detections, lowered_detector, square_rcnn

# Keypoints are compared as torchvision computes them from NNAPI's heatmaps in torchvision's own box:
# heatmaps_to_keypoints resizes a heatmap to its box's size rounded up to whole pixels, so a box a
# float32 step across a whole pixel (within BOX_TOLERANCE) resamples its heatmap at another size and
# moves its keypoints (on ResNet-50's image one box is 43 pixels wide in eager, 44 in NNAPI: keypoints up
# to 17 pixels apart, as they would be between two CPUs). Placed in torchvision's box, the keypoint
# scores (the resized heatmap at its maximum) differ by the heatmaps' float32 differences: measured up to
# 2.5e-5 (scores up to ~4) on the MobileNet model, 6.9e-4 on ResNet-50; the keypoints are the same to the
# bit, except where two maxima of a heatmap are that close: none of the MobileNet model's 3,400, one of
# ResNet-50's 1,700 (maxima 1.2e-4 apart, 13 pixels apart).


@pytest.mark.parametrize("name, size, counts, tolerance, score_tolerance, moved_share", [
    pytest.param("keypointrcnn_mobilenet_v3_large_320_fpn", 320, [100, 100], 1e-5, 1e-4, 0.0,
                 id="keypointrcnn_mobilenet_v3_large_320_fpn"),
    pytest.param("keypointrcnn_resnet50_fpn", 256, [100], 1e-3, 5e-3, 0.01, id="keypointrcnn_resnet50_fpn")])
def test_keypoint_rcnn_is_one_nnapi_model_with_torchvisions_keypoints(name, size, counts, tolerance, score_tolerance,
                                                                      moved_share):
    images, lowered = square_rcnn(name, size, len(counts))
    found = []
    for image in images:
        outputs = run_pte(lowered.pte, [image])
        with torch.no_grad():
            want = lowered.model([image])[0]
        count = int(outputs[3])
        heatmaps = outputs[4]
        assert heatmaps.shape == (len(outputs[0]), 17, 56, 56) and not heatmaps[count:].any()
        assert torch.equal(outputs[5], outputs[0]) and torch.equal(outputs[6], torch.ones(2))   # kept at its size
        assert_padding(outputs, count)
        got = detections_of(outputs)
        assert_same_detections(got, want, tolerance)
        assert got["keypoints"].shape == want["keypoints"].shape == (count, 17, 3)
        assert_same_keypoints(got, heatmaps, want, score_tolerance, moved_share)
        found.append(count)
    assert found == counts


def assert_same_keypoints(got: dict, heatmaps: torch.Tensor, want: dict, score_tolerance: float,
                          moved_share: float) -> None:
    """Each of torchvision's detections has, among ``got``'s of its label and box, one whose heatmaps placed
    in torchvision's box give its keypoint scores within ``score_tolerance`` and its keypoints within
    BOX_TOLERANCE of the largest coordinate, but for at most ``moved_share`` of all keypoints (maxima within
    the score tolerance); where the two boxes round up to the same whole pixels, detections_of's keypoints
    (placed in the .pte's box) are those within BOX_TOLERANCE."""
    scale = want["boxes"].abs().max().item() if len(want["boxes"]) else 1.0
    moved = 0
    for k in range(len(want["labels"])):
        same = [j for j in range(len(got["labels"])) if int(got["labels"][j]) == int(want["labels"][k])
                and (got["boxes"][j] - want["boxes"][k]).abs().max().item() <= BOX_TOLERANCE * scale]
        differences = []
        for j in same:
            placed, placed_scores = heatmaps_to_keypoints(heatmaps[j:j + 1], want["boxes"][k:k + 1])
            if (placed_scores[0] - want["keypoints_scores"][k]).abs().max().item() > score_tolerance:
                continue
            distances = (placed[0] - want["keypoints"][k]).abs().amax(dim=1)
            differences.append((int((distances > BOX_TOLERANCE * scale).sum()), j, placed[0]))
        assert differences, f"detection {k}: keypoint scores differ by more than {score_tolerance}"
        fewest, j, placed = min(differences, key=lambda d: d[0])
        moved += fewest
        sizes = [torch.ceil(b[2:] - b[:2]).tolist() for b in (got["boxes"][j], want["boxes"][k])]
        if sizes[0] == sizes[1]:
            assert (got["keypoints"][j] - placed).abs().max().item() <= BOX_TOLERANCE * scale, k
    keypoints = want["keypoints"].shape[0] * want["keypoints"].shape[1]
    assert moved <= moved_share * keypoints, f"{moved} of {keypoints} keypoints moved"


def test_keypoint_rcnn_of_an_image_its_transform_resizes():
    """A 320 x 240 image its transform resizes to 400 x 300: the .pte also returns the boxes the
    keypoints are placed in (in the resized image) and torchvision's ratios, so detections_of takes
    the keypoints as keypointrcnn_inference and resize_keypoints do: torchvision's detections (scores
    within 5e-5: 1.7e-5 measured, the resize of the image adding its float32 differences) and
    keypoints (all but 1% within BOX_TOLERANCE, the rest where two heatmap maxima are that close)."""
    image = torch.rand(3, 240, 320, generator=torch.Generator().manual_seed(5))
    lowered = lowered_detector("keypointrcnn_mobilenet_v3_large_320_fpn", image, min_size=300, max_size=640)
    assert lowered.delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    outputs = run_pte(lowered.pte, [image])
    with torch.no_grad():
        want = lowered.model([image])[0]
    count = int(outputs[3])
    assert count == len(want["labels"]) > 10
    assert torch.equal(outputs[6], torch.tensor([320 / 400, 240 / 300], dtype=torch.float32))
    assert (outputs[5][:count] * outputs[6].repeat(2) - outputs[0][:count]).abs().max() <= 1e-4 * 400
    got = detections_of(outputs)
    assert_same_detections(got, want, 5e-5)
    scale = want["boxes"].abs().max().item()
    distances = (got["keypoints"] - want["keypoints"]).abs().amax(dim=2)   # [N, K]
    close = distances <= BOX_TOLERANCE * scale
    assert close.float().mean().item() >= 0.99, f"{int((~close).sum())} of {close.numel()} keypoints moved"
    assert (got["keypoints_scores"] - want["keypoints_scores"])[close].abs().max().item() <= 1e-4


def test_keypoint_rcnn_refusals_name_the_reason():
    assert "KeypointRCNN" in supported_detectors()
    build, _ = DETECTOR_BUILDERS["keypointrcnn_mobilenet_v3_large_320_fpn"]
    model = build(min_size=400, max_size=640).eval()
    one_keypoint = KeypointRCNN(model.backbone, num_classes=2, num_keypoints=1).eval()
    with pytest.raises(TypeError, match="one keypoint"):
        detector_module(one_keypoint, (320, 320))
