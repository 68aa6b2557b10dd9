"""torchvision's detectors exported whole with executorch_nnapi.tools.detection, lowered with
NnapiPartitioner, run through the C++ backend on the host driver and compared with eager
torchvision: the same detections (labels and order equal, boxes within 1e-4 relative, scores within
1e-5) whenever torchvision finds no more than the capacity. Also the two operations the
post-processing adds: class_nms_padded (BOX_WITH_NMS_LIMIT on its own layout) and topk (TOPK_V2).

Models have random weights of a fixed seed (tools/detection_models.py: batch-norm statistics of
random images, spread scores)."""

from __future__ import annotations

import collections
import dataclasses
import operator
import pathlib
import subprocess
import sys

import pytest
import torch
import torch.nn as nn
from torchvision.ops import MultiScaleRoIAlign, batched_nms

from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.lowering.custom_ops import class_nms_padded
from executorch_nnapi.lowering.node_utils import op_name
from executorch_nnapi.lowering.serialization import read_blob
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.tools.detection import detection_difference, detections_of, detector_module, export_detector
from executorch_nnapi.tools.detection_models import random_detector
from executorch_nnapi.tools.detection_rcnn import FixedRoIAlign
from op_harness import lower, run_pte

BOX_TOLERANCE, SCORE_TOLERANCE = 1e-4, 1e-5


def assert_same_detections(got: dict[str, torch.Tensor], want: dict[str, torch.Tensor],
                           score_tolerance: float = SCORE_TOLERANCE) -> None:
    """torchvision's detections ``want`` and ``got`` are the same (tools/detection.py's rule: the order of
    scores within the tolerance of each other is not compared) and torchvision's int64 labels."""
    assert got["labels"].dtype == want["labels"].dtype == torch.int64
    difference = detection_difference(got, want, box_tolerance=BOX_TOLERANCE, score_tolerance=score_tolerance)
    assert not difference, difference


def assert_padding(outputs, count: int) -> None:
    boxes, scores, labels = outputs[:3]
    assert not boxes[count:].any() and not scores[count:].any() and (labels[count:] == -1).all()


# -- class_nms_padded and topk on their own ---------------------------------------------------------
class ClassNms(nn.Module):
    def __init__(self, score_threshold: float = 0.05, iou: float = 0.5, max_detections: int = 10):
        super().__init__()
        self.score_threshold, self.iou, self.max_detections = score_threshold, iou, max_detections

    def forward(self, scores, boxes):
        return class_nms_padded(scores, boxes, self.score_threshold, self.iou, self.max_detections)


def random_candidates(rows: int, classes: int, seed: int, size: float = 40.0):
    """scores [rows, classes] in (0, 1) and boxes [rows, 4 classes] inside a size x size image."""
    g = torch.Generator().manual_seed(seed)
    corner = torch.rand(rows, classes, 2, generator=g) * size
    extent = torch.rand(rows, classes, 2, generator=g) * size / 2 + 1
    return torch.rand(rows, classes, generator=g), torch.cat([corner, corner + extent], dim=2).reshape(rows, -1)


def torchvision_class_nms(module: ClassNms, scores, boxes) -> list[tuple[tuple[float, ...], float, int]]:
    """(box, score, class) torchvision's batched_nms keeps of classes 1.. above the threshold, cut."""
    rows, classes = scores.shape
    flat_boxes = boxes.reshape(rows, classes, 4)[:, 1:].reshape(-1, 4)
    flat_scores = scores[:, 1:].reshape(-1)
    labels = torch.arange(1, classes).repeat(rows)
    candidates = torch.nonzero(flat_scores > module.score_threshold).flatten()
    keep = candidates[batched_nms(flat_boxes[candidates], flat_scores[candidates], labels[candidates], module.iou)]
    return [(tuple(flat_boxes[k].tolist()), float(flat_scores[k]), int(labels[k]))
            for k in keep[:module.max_detections]]


@pytest.mark.parametrize("score_threshold, iou, max_detections", [(0.05, 0.5, 40), (0.3, 0.7, 6), (0.0, 0.3, 25)])
def test_class_nms_is_torchvisions_batched_nms_per_class(score_threshold, iou, max_detections):
    module = ClassNms(score_threshold, iou, max_detections)
    lowered = lower(module, random_candidates(12, 4, seed=0))
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    assert "BOX_WITH_NMS_LIMIT" in lowered.nnapi_operations
    for seed in (1, 2, 3):
        inputs = random_candidates(12, 4, seed=seed)
        expected = torchvision_class_nms(module, *inputs)
        for outputs in (run_pte(lowered.pte, inputs), module(*inputs)):
            count = int(outputs[3])
            assert outputs[3].dtype == torch.int32 and count == len(expected)
            got = [(tuple(outputs[0][k].tolist()), float(outputs[1][k]), int(outputs[2][k])) for k in range(count)]
            assert got == expected
            assert_padding(outputs, count)


def test_class_nms_keeps_empty_boxes_as_torchvision_does():
    # torchvision's IoU of two boxes of area 0 is 0 / 0 (NaN), never above the threshold, so both are
    # kept; Android's hard NMS would suppress one (NaN < threshold is false).
    module = ClassNms(score_threshold=0.05, iou=0.5, max_detections=30)
    scores, boxes = random_candidates(12, 4, seed=7)
    corners = boxes.reshape(12, 4, 4).clone()
    corners[::2, :, 2] = corners[::2, :, 0]  # zero width
    corners[1::4, :, 3] = corners[1::4, :, 1]  # zero height
    corners[3, 1] = corners[5, 1] = torch.tensor([5.0, 5.0, 5.0, 9.0])  # the same empty box twice
    inputs = (scores, corners.reshape(12, 16))
    expected = torchvision_class_nms(module, *inputs)
    assert sum(1 for box, _, _ in expected if box == (5.0, 5.0, 5.0, 9.0)) == 2
    outputs = run_pte(lower(module, inputs).pte, inputs)
    got = [(tuple(outputs[0][k].tolist()), float(outputs[1][k]), int(outputs[2][k])) for k in range(int(outputs[3]))]
    assert got == expected


def test_class_nms_with_nothing_above_the_threshold_is_all_padding():
    module = ClassNms(score_threshold=0.5, max_detections=5)
    scores, boxes = random_candidates(6, 3, seed=4)
    lowered = lower(module, (scores, boxes))
    outputs = run_pte(lowered.pte, (scores * 0.4, boxes))
    assert int(outputs[3]) == 0
    assert_padding(outputs, 0)


def test_topk_is_topk_v2_with_int64_indices():
    class TopkThenGather(nn.Module):
        def forward(self, scores, boxes):
            values, indices = scores.topk(5)
            return values, indices, boxes[indices]

    scores, boxes = torch.rand(3, 40), torch.rand(40, 4)
    lowered = lower(TopkThenGather(), (scores, boxes))
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    assert "TOPK_V2" in lowered.nnapi_operations
    values, indices, gathered = run_pte(lowered.pte, (scores, boxes))
    want_values, want_indices = scores.topk(5)
    assert indices.dtype == torch.int64 and torch.equal(indices, want_indices) and torch.equal(values, want_values)
    assert torch.equal(gathered, boxes[want_indices])


class PooledRegions(nn.Module):
    """tools/detection_rcnn.py's FixedRoIAlign of torchvision's MultiScaleRoIAlign over two maps."""

    def __init__(self, pooler: MultiScaleRoIAlign, maps: dict[str, torch.Tensor]):
        super().__init__()
        self.pooled = FixedRoIAlign(pooler, maps, (320, 320))

    def forward(self, map0, map1, boxes):
        return self.pooled({"0": map0, "1": map1}, boxes)


def test_pooling_of_regions_at_the_maps_edge_is_torchvisions():
    # Regions narrower than one cell in the last row or column (proposals clipped to the image's
    # bottom or right edge): torchvision counts their samples past the map 0, Android reads the last
    # row or column; FixedRoIAlign pools on the map with that row and column repeated and weighs each
    # cell by the share of samples torchvision reads.
    g = torch.Generator().manual_seed(8)
    maps = {"0": torch.randn(1, 4, 20, 20, generator=g), "1": torch.randn(1, 4, 10, 10, generator=g)}
    boxes = torch.tensor([[0.0, 301.98, 205.7, 320.0], [278.4, 303.8, 320.0, 320.0], [292.6, 11.0, 298.7, 90.1],
                          [310.0, 100.0, 320.0, 110.0], [10.0, 20.0, 200.0, 250.0], [0.0, 0.0, 320.0, 320.0],
                          [315.0, 2.0, 319.5, 300.0], [40.0, 312.0, 300.0, 318.0]])
    pooler = MultiScaleRoIAlign(["0", "1"], 7, 2)
    module = PooledRegions(pooler, maps)
    lowered = lower(module, (maps["0"], maps["1"], boxes))
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    (got,) = run_pte(lowered.pte, (maps["0"], maps["1"], boxes))
    want = pooler(maps, [boxes], [(320, 320)])
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(module(maps["0"], maps["1"], boxes), want, atol=1e-6, rtol=1e-6)


# -- whole detectors ------------------------------------------------------------------------------------
@dataclasses.dataclass
class LoweredDetector:
    model: nn.Module
    pte: bytes
    delegates: int
    cpu_ops: set[str]
    nnapi_operations: list[str]


def lowered_detector(name: str, example: torch.Tensor, dynamic_size: tuple[int, int] | None = None,
                     seed: int = 1, **kwargs) -> LoweredDetector:
    """The random-weight detector ``name`` (``kwargs``: random_detector's) exported for images like
    ``example``, lowered with NnapiPartitioner."""
    model = random_detector(name, seed=seed, **kwargs)
    program = export_detector(model, example, dynamic_size=dynamic_size)
    edge = to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level=30)])
    graph_module = edge.exported_program().graph_module
    calls = [n for n in graph_module.graph.nodes if n.op == "call_function" and n.target is not operator.getitem]
    delegates = [n for n in calls if n.target is torch.ops.higher_order.executorch_call_delegate]
    operations = [t for n in delegates for t in read_blob(getattr(graph_module, n.args[0].target).processed_bytes)
                  .operation_types]
    cpu_ops = {op_name(n.target) for n in calls if n not in delegates}
    return LoweredDetector(model, edge.to_executorch().buffer, len(delegates), cpu_ops, operations)


def assert_runs_like_torchvision(lowered: LoweredDetector, images: list[torch.Tensor],
                                 score_tolerance: float = SCORE_TOLERANCE) -> list[int]:
    """Each image's detections on the host driver equal eager torchvision's; returns how many each has."""
    counts = []
    for image in images:
        outputs = run_pte(lowered.pte, [image])
        with torch.no_grad():
            want = lowered.model([image])[0]
        assert_same_detections(detections_of(outputs), want, score_tolerance)
        assert_padding(outputs, int(outputs[3]))
        counts.append(int(outputs[3]))
    return counts


@pytest.fixture(scope="module")
def ssdlite() -> LoweredDetector:
    """SSDlite, exported for images from 64 to 640 pixels a side."""
    return lowered_detector("ssdlite320_mobilenet_v3_large", torch.rand(3, 240, 300), dynamic_size=(64, 640))


def test_ssdlite_is_one_nnapi_model_with_torchvisions_detections(ssdlite):
    assert ssdlite.delegates == 1
    # Only the image's size as a float ([1] tensors for the boxes' scale) is made on the CPU.
    assert ssdlite.cpu_ops <= {"aten.sym_size.int", "aten.full.default"}, ssdlite.cpu_ops
    assert {"TOPK_V2", "BOX_WITH_NMS_LIMIT", "RESIZE_BILINEAR"} <= set(ssdlite.nnapi_operations)
    g = torch.Generator().manual_seed(5)
    counts = assert_runs_like_torchvision(ssdlite, [torch.rand(3, 240, 300, generator=g),
                                                    torch.rand(3, 320, 200, generator=g)])
    assert counts == [300, 300]  # torchvision's detections_per_img, the capacity


def test_ssdlite_capacity_keeps_torchvisions_best():
    """detector_module cut to 25 detections keeps torchvision's best 25 (eager: the model that
    test_ssdlite_is_one_nnapi_model_with_torchvisions_detections lowers, without its lowering)."""
    model = random_detector("ssdlite320_mobilenet_v3_large", seed=1)
    image = torch.rand(3, 200, 260, generator=torch.Generator().manual_seed(6))
    module = detector_module(model, (200, 260), max_detections=25)
    with torch.no_grad():
        outputs, want = module(image), model([image])[0]
    assert int(outputs[3]) == 25
    assert_same_detections(detections_of(outputs), {k: v[:25] for k, v in want.items()})


def test_faster_rcnn_is_one_nnapi_model_with_torchvisions_detections():
    g = torch.Generator().manual_seed(3)
    images = [torch.rand(3, 320, 320, generator=g) for _ in range(2)]
    lowered = lowered_detector("fasterrcnn_mobilenet_v3_large_320_fpn", images[0])
    assert lowered.delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    operations = collections.Counter(lowered.nnapi_operations)
    # The proposals' and the detections' NMS, the pooling on two levels, three levels' top-k and the
    # NMS's own sorts.
    assert operations["BOX_WITH_NMS_LIMIT"] == 2 and operations["ROI_ALIGN"] == 2 and operations["TOPK_V2"] == 5
    counts = assert_runs_like_torchvision(lowered, images)
    assert counts == [70, 100]  # below the capacity (detections_per_img = 100), and at it


def square_rcnn(name: str, size: int, count: int) -> tuple[list[torch.Tensor], LoweredDetector]:
    """``count`` random square images and the R-CNN ``name`` exported for them at their own size (its
    transform resizing nothing), asserted one NNAPI model with no CPU op that pools the boxes' levels
    and its second branch (masks or keypoints) with ROI_ALIGN."""
    g = torch.Generator().manual_seed(3)
    images = [torch.rand(3, size, size, generator=g) for _ in range(count)]
    lowered = lowered_detector(name, images[0], image_size=(size, size), min_size=size, max_size=size)
    assert lowered.delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    assert collections.Counter(lowered.nnapi_operations)["ROI_ALIGN"] >= 3
    return images, lowered


# Mask R-CNN: torchvision's MaskRCNN class on fasterrcnn_mobilenet_v3_large_320_fpn's trunk here,
# maskrcnn_resnet50_fpn in the long tier. ResNet-50's 50 layers carry NNAPI's float32 differences to
# ~1e-4 of its last features (random weights), ~2e-4 in the scores; on other images than this one a
# proposal at the edge of the RPN's top-k can change (docs/detection.md).
@pytest.mark.parametrize("name, size, counts, tolerance", [
    pytest.param("maskrcnn_mobilenet_v3_large_320_fpn", 320, [74, 90], SCORE_TOLERANCE,
                 id="maskrcnn_mobilenet_v3_large_320_fpn"),
    pytest.param("maskrcnn_resnet50_fpn", 256, [100], 1e-3, id="maskrcnn_resnet50_fpn")])
def test_mask_rcnn_is_one_nnapi_model_with_torchvisions_detections_and_masks(name, size, counts, tolerance):
    images, lowered = square_rcnn(name, size, len(counts))
    found = []
    for image in images:
        outputs = run_pte(lowered.pte, [image])
        with torch.no_grad():
            want = lowered.model([image])[0]
            in_boxes = masks_in_their_boxes(lowered.model, image)
        got = detections_of(outputs, image_size=(size, size))
        assert_same_detections(got, want, tolerance)
        count = int(outputs[3])
        assert_same_masks(outputs[4][:count], in_boxes, got, want, max(tolerance, 1e-4))
        # Pasted after the .pte by torchvision's paste_masks_in_image, as its transform does (a box a float32
        # step across a whole pixel shifts its mask by one pixel: compared on average).
        assert got["masks"].shape == want["masks"].shape
        assert_same_masks(got["masks"], want["masks"], got, want, 1e-3, average=True)
        found.append(count)
    assert found == counts


def assert_same_masks(got_masks, want_masks, got: dict, want: dict, tolerance: float, average: bool = False) -> None:
    """Each of torchvision's masks equals, within ``tolerance`` (the largest difference, or the ``average``
    one), the mask of a detection of the same label and box (detections of scores within the tolerance may
    come in another order)."""
    scale = want["boxes"].abs().max().item() if len(want["boxes"]) else 1.0
    for k in range(len(want_masks)):
        same = [j for j in range(len(got_masks)) if int(got["labels"][j]) == int(want["labels"][k])
                and (got["boxes"][j] - want["boxes"][k]).abs().max().item() <= BOX_TOLERANCE * scale]
        differences = [(got_masks[j] - want_masks[k]).abs() for j in same]
        assert any((d.mean() if average else d.max()).item() < tolerance for d in differences), k


def masks_in_their_boxes(model: nn.Module, image: torch.Tensor) -> torch.Tensor:
    """torchvision's masks of ``image`` before its transform pastes them ([N, 1, 28, 28])."""
    images, _ = model.transform([image])
    features = model.backbone(images.tensors)
    proposals, _ = model.rpn(images, features)
    detections, _ = model.roi_heads(features, proposals, images.image_sizes)
    return detections[0]["masks"]


# RetinaNet and FCOS: torchvision's classes on a ResNet-18 FPN trunk at 128 x 128 here (the same levels,
# heads and post-processing as the ResNet-50 models, test_resnet50_detectors below, at a fraction of the
# cost). Their transform would resize to 800: min_size and max_size keep the image's own size.
@pytest.mark.parametrize("name, counts", [pytest.param("fcos_resnet18_fpn", [100, 100], id="fcos_resnet18_fpn"),
                                          pytest.param("retinanet_resnet18_fpn", [300, 300],
                                                       id="retinanet_resnet18_fpn")])
def test_dense_detector_is_one_nnapi_model_with_torchvisions_detections(name, counts):
    assert_dense_detector_runs_like_torchvision(name, 128, counts)


@pytest.mark.parametrize("name, counts", [pytest.param("retinanet_resnet50_fpn", [300, 300], id="retinanet_resnet50_fpn"),
                                          pytest.param("fcos_resnet50_fpn", [100, 100], id="fcos_resnet50_fpn")])
def test_resnet50_detectors(name, counts):
    # ResNet-50's 50 layers and the classifier's scaled weights (tools/detection_models.py) carry NNAPI's
    # float32 differences in the convolutions (~1e-6 of the features) to ~3e-5 in the scores; the
    # post-processing adds none (the ResNet-18 tests hold 1e-5).
    assert_dense_detector_runs_like_torchvision(name, 256, counts, score_tolerance=1e-4)


def assert_dense_detector_runs_like_torchvision(name: str, size: int, counts: list[int],
                                                score_tolerance: float = SCORE_TOLERANCE) -> None:
    g = torch.Generator().manual_seed(3)
    images = [torch.rand(3, size, size, generator=g) for _ in counts]
    lowered = lowered_detector(name, images[0], image_size=(size, size), min_size=size, max_size=size)
    assert lowered.delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    operations = collections.Counter(lowered.nnapi_operations)
    assert operations["BOX_WITH_NMS_LIMIT"] == 1 and operations["TOPK_V2"] == 6  # 5 levels' top-k, the NMS's sort
    assert assert_runs_like_torchvision(lowered, images, score_tolerance) == counts


def test_detect_on_host_example(tmp_path):
    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "detect_on_host.py"
    result = subprocess.run([sys.executable, str(script), "--model", "fasterrcnn_mobilenet_v3_large_320_fpn",
                             "-o", str(tmp_path / "frcnn.pte"), "--picture", str(tmp_path / "boxes.png")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 NNAPI subgraph(s)" in result.stdout and "match eager torchvision" in result.stdout
    assert (tmp_path / "boxes.png").stat().st_size > 0


def test_what_cannot_be_exported_is_refused_with_the_reason():
    from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_320_fpn

    model = fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None).eval()
    with pytest.raises(ValueError, match="transform scales by the image's size"):
        export_detector(model, torch.rand(3, 320, 320), dynamic_size=(64, 640))
    with pytest.raises(ValueError, match="training mode"):
        detector_module(model.train(), (320, 320))
    with pytest.raises(TypeError, match="not a supported torchvision detector"):
        detector_module(nn.Conv2d(3, 3, 1).eval(), (320, 320))
