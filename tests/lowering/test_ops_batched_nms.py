"""batched_nms_padded (lowering/custom_ops.py) -> BOX_WITH_NMS_LIMIT padded to a fixed size inside
the NNAPI model: lowered, delegated, run through the C++ backend on the host driver and compared
with torchvision's own batched_nms on random boxes, ties, an IoU equal to the threshold, a cut to
max_detections and empty results."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
from torchvision.ops import batched_nms

from executorch_nnapi.lowering.custom_ops import batched_nms_padded
from executorch_nnapi.partitioners import NoCpuKernelError
from op_harness import lower, run_pte
from test_ops_detection import DetectorHead, random_rois

CLASSES = 3


class Nms(nn.Module):
    def __init__(self, iou: float = 0.5, max_detections: int = 8, score_threshold: float = 0.0):
        super().__init__()
        self.iou, self.max_detections, self.score_threshold = iou, max_detections, score_threshold

    def forward(self, boxes, scores, idxs):
        return batched_nms_padded(boxes, scores, idxs, self.iou, self.max_detections, CLASSES,
                                  self.score_threshold)


def random_detections(count: int, seed: int, size: float = 40.0):
    """[count, 4] boxes in a size x size image, scores in (0, 1), classes in [0, CLASSES)."""
    g = torch.Generator().manual_seed(seed)
    corner = torch.rand(count, 2, generator=g) * size
    extent = torch.rand(count, 2, generator=g) * size / 2 + 1
    boxes = torch.cat([corner, corner + extent], dim=1)
    return boxes, torch.rand(count, generator=g) * 0.98 + 0.01, torch.randint(0, CLASSES, (count,), generator=g)


def torchvision_result(module: Nms, boxes, scores, idxs) -> list[tuple[tuple[float, ...], float, int]]:
    """(box, score, class) of each detection torchvision keeps, best first, cut to max_detections
    (boxes of a class outside [0, CLASSES) take no part)."""
    candidates = torch.nonzero((scores > module.score_threshold) & (idxs >= 0) & (idxs < CLASSES)).flatten()
    keep = candidates[batched_nms(boxes[candidates], scores[candidates], idxs[candidates], module.iou)]
    keep = keep[:module.max_detections]
    return [(tuple(boxes[k].tolist()), float(scores[k]), int(idxs[k])) for k in keep]


def check_against_torchvision(module: Nms, outputs, inputs, ordered: bool = True) -> None:
    """The padded outputs hold torchvision's detections (in its order if ``ordered``), then padding."""
    out_boxes, out_scores, out_classes, count = outputs
    expected = torchvision_result(module, *inputs)
    assert count.dtype == torch.int32 and count.shape == () and int(count) == len(expected)
    got = [(tuple(out_boxes[k].tolist()), float(out_scores[k]), int(out_classes[k])) for k in range(int(count))]
    if ordered:
        assert got == expected
    else:  # equal scores: the same detections, their order unspecified
        assert sorted(got) == sorted(expected)
        assert [s for _, s, _ in got] == sorted((s for _, s, _ in got), reverse=True)
    padding = slice(int(count), module.max_detections)
    assert not out_boxes[padding].any() and not out_scores[padding].any()
    assert (out_classes[padding] == -1).all()


def lower_nms(module: Nms, inputs, feature_level: int = 30):
    lowered = lower(module, inputs, feature_level=feature_level)
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    assert "BOX_WITH_NMS_LIMIT" in lowered.nnapi_operations
    return lowered


@pytest.mark.parametrize("iou", [0.3, 0.5, 0.7])
def test_random_boxes_match_torchvision(iou):
    module = Nms(iou=iou, max_detections=24)
    lowered = lower_nms(module, random_detections(20, seed=0))
    for seed in range(1, 6):
        inputs = random_detections(20, seed=seed)
        check_against_torchvision(module, run_pte(lowered.pte, inputs), inputs)
        check_against_torchvision(module, module(*inputs), inputs)  # the eager op is torchvision's too


def test_cut_to_max_detections_and_score_threshold():
    module = Nms(iou=0.6, max_detections=4, score_threshold=0.3)
    lowered = lower_nms(module, random_detections(16, seed=10))
    for seed in range(11, 15):
        inputs = random_detections(16, seed=seed)
        outputs = run_pte(lowered.pte, inputs)
        assert int(outputs[3]) == 4  # more than 4 survive with these boxes: the best 4 are kept
        check_against_torchvision(module, outputs, inputs)


def test_iou_equal_to_the_threshold_is_not_suppressed():
    # IoU exactly 0.5 (intersection 2, union 4): torchvision suppresses above the threshold only,
    # NNAPI from the threshold on; the lowering passes NNAPI the next float32 above it.
    boxes = torch.tensor([[0.0, 0.0, 3.0, 1.0], [1.0, 0.0, 4.0, 1.0], [0.0, 0.0, 3.0, 1.1]])
    scores, idxs = torch.tensor([0.9, 0.8, 0.7]), torch.tensor([1, 1, 1])
    module = Nms(iou=0.5, max_detections=3)
    outputs = run_pte(lower_nms(module, (boxes, scores, idxs)).pte, (boxes, scores, idxs))
    assert int(outputs[3]) == 2  # the third box overlaps the first by 3 / 3.3 > 0.5
    check_against_torchvision(module, outputs, (boxes, scores, idxs))


def test_ties_keep_the_same_detections():
    # Equal scores: identical boxes of one class (either suppresses the other), apart boxes of
    # several classes, and the same box in two classes (kept in both).
    boxes = torch.tensor([[0.0, 0.0, 4.0, 4.0], [0.0, 0.0, 4.0, 4.0], [10.0, 10.0, 14.0, 14.0],
                          [20.0, 0.0, 24.0, 4.0], [0.0, 0.0, 4.0, 4.0], [30.0, 30.0, 31.0, 31.0]])
    scores = torch.tensor([0.5, 0.5, 0.5, 0.5, 0.5, 0.25])
    idxs = torch.tensor([0, 0, 1, 2, 2, 0])
    module = Nms(iou=0.5, max_detections=6)
    outputs = run_pte(lower_nms(module, (boxes, scores, idxs)).pte, (boxes, scores, idxs))
    assert int(outputs[3]) == 5
    check_against_torchvision(module, outputs, (boxes, scores, idxs), ordered=False)


def test_classes_outside_the_range_are_dropped():
    boxes, scores, idxs = random_detections(10, seed=60)
    idxs = idxs.clone()
    idxs[::3] = torch.tensor([CLASSES, -1, CLASSES + 4, 7])[:len(idxs[::3])]
    module = Nms(iou=0.5, max_detections=10)
    outputs = run_pte(lower_nms(module, (boxes, scores, idxs)).pte, (boxes, scores, idxs))
    assert 0 < int(outputs[3]) <= 6
    check_against_torchvision(module, outputs, (boxes, scores, idxs))
    check_against_torchvision(module, module(boxes, scores, idxs), (boxes, scores, idxs))


def test_no_detection_gives_padding_and_a_zero_count():
    module = Nms(iou=0.5, max_detections=5, score_threshold=0.5)
    boxes, scores, idxs = random_detections(6, seed=20)
    lowered = lower_nms(module, (boxes, scores, idxs))
    low = scores * 0.4  # every score below the threshold
    for inputs in ((boxes, low, idxs), (boxes, torch.zeros(6), idxs)):
        outputs = run_pte(lowered.pte, inputs)
        assert int(outputs[3]) == 0
        check_against_torchvision(module, outputs, inputs)


def test_below_api_29_stops_lowering():
    with pytest.raises(NoCpuKernelError, match=r"batched_nms_padded.default needs API 29 \(Android 10\)"):
        lower(Nms(), random_detections(4, seed=0), feature_level=28)


def test_a_negative_score_threshold_stops_lowering_with_the_reason():
    with pytest.raises(NoCpuKernelError, match=r"batched_nms_padded with score_threshold -0.1 \(.*must be "
                                               r"finite and >= 0\).*ExecuTorch's portable CPU kernels have no"):
        lower(Nms(score_threshold=-0.1), random_detections(4, seed=0))


class ScoreAndSuppress(nn.Module):
    """A box head's last steps: class probabilities, each box's best class, then NMS."""

    def __init__(self):
        super().__init__()
        self.classify = nn.Linear(8, CLASSES)

    def forward(self, features, boxes):
        probabilities = self.classify(features).softmax(-1)
        scores, idxs = probabilities.amax(-1), probabilities.argmax(-1)
        return batched_nms_padded(boxes, scores, idxs, 0.5, 6, CLASSES, 0.2)


def test_head_with_nms_is_one_subgraph():
    torch.manual_seed(0)
    module = ScoreAndSuppress().eval()
    features = torch.randn(12, 8, generator=torch.Generator().manual_seed(3)) * 3
    boxes = random_detections(12, seed=3)[0]
    lowered = lower_nms(module, (features, boxes))
    assert {"FULLY_CONNECTED", "SOFTMAX", "ARGMAX"} <= set(lowered.nnapi_operations)
    for seed in (3, 4, 5):
        features = torch.randn(12, 8, generator=torch.Generator().manual_seed(seed)) * 3
        boxes = random_detections(12, seed=seed)[0]
        with torch.no_grad():
            probabilities = module.classify(features).softmax(-1)
        outputs = run_pte(lowered.pte, (features, boxes))
        reference = Nms(iou=0.5, max_detections=6, score_threshold=0.2)
        expected = torchvision_result(reference, boxes, probabilities.amax(-1), probabilities.argmax(-1))
        assert int(outputs[3]) == len(expected) > 0
        # The scores come from NNAPI's softmax: the same detections, scores within float rounding.
        for k, (box, score, cls) in enumerate(expected):
            assert outputs[0][k].tolist() == list(box) and int(outputs[2][k]) == cls
            assert abs(float(outputs[1][k]) - score) < 1e-5


def dynamic_boxes():
    n = torch.export.Dim("n", min=2, max=64)
    return {"boxes": {0: n}, "scores": {0: n}, "idxs": {0: n}}


def test_a_dynamic_number_of_boxes_runs_at_api_30():
    module = Nms(iou=0.5, max_detections=8)
    lowered = lower(module, random_detections(10, seed=40), dynamic_shapes=dynamic_boxes())
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    assert "FILL" in lowered.nnapi_operations
    for count, seed in ((2, 41), (10, 42), (37, 43), (64, 44)):
        inputs = random_detections(count, seed=seed)
        check_against_torchvision(module, run_pte(lowered.pte, inputs), inputs)


def test_a_dynamic_number_of_boxes_below_api_30_stops_lowering():
    with pytest.raises(NoCpuKernelError, match=r"batched_nms_padded with a dynamic number of boxes \(FILL makes its "
                                               r"zeros\) needs API 30 \(Android 11\)"):
        lower(Nms(), random_detections(6, seed=0), dynamic_shapes=dynamic_boxes(), feature_level=29)


class BoxesAndCount(Nms):
    """Uses two of the four results: the others stay temporaries of the NNAPI model."""

    def forward(self, boxes, scores, idxs):
        kept, _, _, count = super().forward(boxes, scores, idxs)
        return kept, count


def test_unused_results_are_not_partition_outputs():
    module = BoxesAndCount(iou=0.4, max_detections=10)
    inputs = random_detections(14, seed=30)
    lowered = lower_nms(module, inputs)
    kept, count = run_pte(lowered.pte, inputs)
    expected = torchvision_result(module, *inputs)
    assert int(count) == len(expected) > 0
    assert [tuple(row) for row in kept[:len(expected)].tolist()] == [box for box, _, _ in expected]
    assert not kept[len(expected):].any()


def test_runs_at_api_29():
    module = Nms(iou=0.5, max_detections=12)
    lowered = lower_nms(module, random_detections(18, seed=50), feature_level=29)
    for seed in (51, 52):
        inputs = random_detections(18, seed=seed)
        check_against_torchvision(module, run_pte(lowered.pte, inputs, feature_level=29), inputs)


class DetectorWithNms(DetectorHead):
    """The two-stage head of test_ops_detection.py (backbone, roi_align, box head, decode_boxes) on one
    image, then torchvision's post-processing: background dropped, one row per (region, class), NMS."""

    def __init__(self, regions: int):
        super().__init__(classes=CLASSES + 1)
        self.register_buffer("labels", torch.arange(CLASSES).repeat(regions))

    def forward(self, image, rois):
        return batched_nms_padded(*self.candidates(image, rois), self.labels, 0.5, 10, CLASSES, 0.05)

    def candidates(self, image, rois):
        scores, boxes = super().forward(image, rois)
        return boxes[:, 4:].reshape(-1, 4), scores[:, 1:].reshape(-1)


def test_detector_with_nms_is_one_subgraph():
    torch.manual_seed(0)
    image = torch.randn(1, 3, 48, 64)
    rois = random_rois(9, 1, 40.0, 56.0, seed=70)
    module = DetectorWithNms(regions=9).eval()
    lowered = lower_nms(module, (image, rois))
    assert {"ROI_ALIGN", "AXIS_ALIGNED_BBOX_TRANSFORM", "CONV_2D"} <= set(lowered.nnapi_operations)
    for seed in (70, 71, 72):
        rois = random_rois(9, 1, 40.0, 56.0, seed=seed)
        out_boxes, out_scores, out_classes, count = run_pte(lowered.pte, (image, rois))
        with torch.no_grad():
            boxes, scores = module.candidates(image, rois)
        expected = torchvision_result(Nms(iou=0.5, max_detections=10, score_threshold=0.05), boxes, scores,
                                      module.labels)
        # The head's numbers are NNAPI's (float rounding apart from eager's): boxes within 1e-3 pixel.
        assert int(count) == len(expected) > 0
        for k, (box, score, cls) in enumerate(expected):
            assert int(out_classes[k]) == cls and abs(float(out_scores[k]) - score) < 1e-5
            assert (out_boxes[k] - torch.tensor(box)).abs().max() < 1e-3
