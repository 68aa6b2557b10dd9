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

import pytest
import torch
import torch.nn as nn
from torchvision.ops import batched_nms

from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.lowering.custom_ops import class_nms_padded
from executorch_nnapi.lowering.node_utils import op_name
from executorch_nnapi.lowering.serialization import read_blob
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.tools.detection import detections_of, detector_module, export_detector
from executorch_nnapi.tools.detection_models import random_detector
from op_harness import lower, relative_max_error, run_pte

BOX_TOLERANCE, SCORE_TOLERANCE = 1e-4, 1e-5


def assert_same_detections(got: dict[str, torch.Tensor], want: dict[str, torch.Tensor]) -> None:
    """torchvision's detections ``want`` and ``got``: same labels in the same order, boxes and scores close."""
    assert got["labels"].dtype == want["labels"].dtype == torch.int64
    assert got["labels"].tolist() == want["labels"].tolist()
    assert relative_max_error(got["boxes"], want["boxes"]) < BOX_TOLERANCE
    if len(want["scores"]):
        assert (got["scores"] - want["scores"]).abs().max().item() <= SCORE_TOLERANCE


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


# -- whole detectors ------------------------------------------------------------------------------------
@dataclasses.dataclass
class LoweredDetector:
    model: nn.Module
    pte: bytes
    delegates: int
    cpu_ops: set[str]
    nnapi_operations: list[str]


def lowered_detector(name: str, example: torch.Tensor, dynamic_size: tuple[int, int] | None = None,
                     seed: int = 1) -> LoweredDetector:
    """The random-weight detector ``name`` exported for images like ``example``, lowered with NnapiPartitioner."""
    model = random_detector(name, seed=seed)
    program = export_detector(model, example, dynamic_size=dynamic_size)
    edge = to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level=30)])
    graph_module = edge.exported_program().graph_module
    calls = [n for n in graph_module.graph.nodes if n.op == "call_function" and n.target is not operator.getitem]
    delegates = [n for n in calls if n.target is torch.ops.higher_order.executorch_call_delegate]
    operations = [t for n in delegates for t in read_blob(getattr(graph_module, n.args[0].target).processed_bytes)
                  .operation_types]
    cpu_ops = {op_name(n.target) for n in calls if n not in delegates}
    return LoweredDetector(model, edge.to_executorch().buffer, len(delegates), cpu_ops, operations)


def assert_runs_like_torchvision(lowered: LoweredDetector, images: list[torch.Tensor]) -> list[int]:
    """Each image's detections on the host driver equal eager torchvision's; returns how many each has."""
    counts = []
    for image in images:
        outputs = run_pte(lowered.pte, [image])
        with torch.no_grad():
            want = lowered.model([image])[0]
        assert_same_detections(detections_of(outputs), want)
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


def test_ssdlite_capacity_keeps_torchvisions_best(ssdlite):
    model = ssdlite.model
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
