"""torchvision's detectors exported whole (executorch_nnapi.tools.detection), NnapiPartitioner beside
XnnpackPartitioner on the same exported program.

    python bench/detectors.py                          # every model below
    python bench/detectors.py ssdlite320_mobilenet_v3_large
    python bench/detectors.py --markdown               # also into docs/detection.md

Every model has random weights of a fixed seed (tools/detection_models.py). Per model it prints
the NNAPI subgraphs and the ops left on the CPU, XNNPACK's, the NNAPI operations of the detection
post-processing, the time of one run of the NNAPI .pte on the host NNAPI driver (feature level 30),
and whether its detections equal eager torchvision's (``detection_difference``: same labels in the
same order, boxes within 1e-4 relative, scores within 1e-4; the largest score difference is shown).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import operator
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchmark_page  # noqa: E402  (first: it reads the load average as the run starts)
import torch  # noqa: E402

from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner  # noqa: E402
from executorch.exir import to_edge_transform_and_lower  # noqa: E402
from executorch.runtime import Runtime  # noqa: E402

import executorch_nnapi.runtime  # noqa: E402,F401  (NnapiBackend + host driver)
from executorch_nnapi.host_driver import get_driver  # noqa: E402
from executorch_nnapi.lowering.node_utils import op_name  # noqa: E402
from executorch_nnapi.lowering.serialization import read_blob  # noqa: E402
from executorch_nnapi.partitioners import NnapiPartitioner  # noqa: E402
from executorch_nnapi.tools.detection import detection_difference, detections_of, export_detector  # noqa: E402
from executorch_nnapi.tools.detection_models import random_detector  # noqa: E402
from zoo_benchmark import print_table  # noqa: E402
from torchvision.models.detection.roi_heads import heatmaps_to_keypoints  # noqa: E402

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "detection.md"
DETECTION_OPERATIONS = ("TOPK_V2", "BOX_WITH_NMS_LIMIT", "ROI_ALIGN")


@dataclasses.dataclass(frozen=True)
class Case:
    size: int                                   # a size x size image
    kwargs: dict = dataclasses.field(default_factory=dict)
    dynamic_size: tuple[int, int] | None = None


# The ResNet-50 models' transform would resize to 800 pixels: min_size / max_size keep 320.
CASES = {
    "ssdlite320_mobilenet_v3_large": Case(320, dynamic_size=(64, 640)),
    "fasterrcnn_mobilenet_v3_large_320_fpn": Case(320),
    "retinanet_resnet50_fpn": Case(320, {"min_size": 320, "max_size": 320}),
    "fcos_resnet50_fpn": Case(320, {"min_size": 320, "max_size": 320}),
    "maskrcnn_resnet50_fpn": Case(320, {"min_size": 320, "max_size": 320}),
    "keypointrcnn_resnet50_fpn": Case(320, {"min_size": 320, "max_size": 320}),
}

HEADER = ["model", "input", "NNAPI subgraphs", "CPU ops beside NNAPI", "NNAPI detection operations",
          "XNNPACK subgraphs", "CPU ops beside XNNPACK", "XNNPACK .pte", "lowering s (NNAPI)", "host run s", "detections",
          "same as torchvision", "largest score difference"]


@dataclasses.dataclass
class Row:
    name: str
    size: str
    nnapi: tuple[int, list[str]]
    operations: collections.Counter
    xnnpack: tuple[int, list[str]]
    xnnpack_pte: str
    lower_s: float
    run_s: float
    detections: int
    equal: bool
    score_difference: float

    def cells(self) -> list[str]:
        detection_ops = ", ".join(f"{name} x{self.operations[name]}" for name in DETECTION_OPERATIONS
                                  if self.operations[name])
        return [self.name, self.size, str(self.nnapi[0]), _ops(self.nnapi[1]), detection_ops, str(self.xnnpack[0]),
                _ops(self.xnnpack[1]), self.xnnpack_pte, f"{self.lower_s:.0f}", f"{self.run_s:.1f}", str(self.detections),
                "yes" if self.equal else "**no**", f"{self.score_difference:.1e}"]


def _ops(names: list[str]) -> str:
    counts = collections.Counter(names)
    return ", ".join(f"{n} x{c}" if c > 1 else n for n, c in sorted(counts.items())) or "none"


def _split(edge, nnapi: bool) -> tuple[int, list[str], collections.Counter]:
    """(delegated subgraphs, ops left on the CPU, NNAPI operations if ``nnapi``) of a lowered program."""
    graph_module = edge.exported_program().graph_module
    subgraphs, cpu_ops, operations = 0, [], collections.Counter()
    for node in graph_module.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        if node.target is torch.ops.higher_order.executorch_call_delegate:
            subgraphs += 1
            if nnapi:
                operations.update(read_blob(getattr(graph_module, node.args[0].target).processed_bytes).operation_types)
        else:
            cpu_ops.append(op_name(node.target))
    return subgraphs, cpu_ops, operations


def measure(name: str) -> Row:
    case = CASES[name]
    model = random_detector(name, seed=1, image_size=(case.size, case.size), **case.kwargs)
    image = torch.rand(3, case.size, case.size, generator=torch.Generator().manual_seed(3))
    program = export_detector(model, image, dynamic_size=case.dynamic_size)
    start = time.perf_counter()
    edge = to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level=30)])
    subgraphs, cpu_ops, operations = _split(edge, nnapi=True)  # before to_executorch adds its memory planning
    pte = edge.to_executorch().buffer
    lower_s = time.perf_counter() - start
    xnnpack = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    xnnpack_subgraphs, xnnpack_cpu, _ = _split(xnnpack, nnapi=False)
    try:
        xnnpack.to_executorch()
        xnnpack_pte = "yes"
    except Exception as e:  # ExecuTorch has no CPU kernel for an op left to it
        xnnpack_pte = f"no: {type(e).__name__}: {str(e).splitlines()[0][:80]}"
    get_driver().feature_level = 30
    method = Runtime.get().load_program(pte).load_method("forward")
    start = time.perf_counter()
    outputs = method.execute([image])
    run_s = time.perf_counter() - start
    with torch.no_grad():
        want = model([image])[0]
    got = detections_of(outputs, image_size=(case.size, case.size))
    size = f"{case.size}x{case.size}" + (f" (H, W in {case.dynamic_size[0]}..{case.dynamic_size[1]})"
                                         if case.dynamic_size else "")
    # Scores compared within 1e-4: deep trunks carry NNAPI's float32 differences to ~4e-5 (docs/detection.md).
    equal = not detection_difference(got, want, score_tolerance=1e-4)
    if equal and "masks" in want:  # pasted masks, probabilities
        equal = got["masks"].shape == want["masks"].shape and (got["masks"] - want["masks"]).abs().max() <= 1e-4
    if equal and "keypoints" in want and len(want["boxes"]):
        # NNAPI's heatmaps placed in torchvision's boxes (a box a float32 step across a whole pixel resamples
        # its heatmap, tests/models/test_keypoint_detector.py): 99% of keypoints within 1e-4 of the largest
        # coordinate (the others at two maxima within float32 differences of each other).
        placed, _ = heatmaps_to_keypoints(outputs[4][:len(want["boxes"])], want["boxes"])
        close = (placed - want["keypoints"]).abs().amax(dim=-1) <= 1e-4 * want["boxes"].abs().max()
        equal = close.float().mean().item() >= 0.99
    score_difference = (got["scores"] - want["scores"]).abs().max().item() if equal and len(want["scores"]) else 0.0
    return Row(name, size, (subgraphs, cpu_ops), operations, (xnnpack_subgraphs, xnnpack_cpu), xnnpack_pte, lower_s, run_s,
               len(got["labels"]), bool(equal), score_difference)


NOTES = """Random weights of seed 1 (tools/detection_models.py), one random image of seed 3; the ResNet-50 models'
transform is set to 320 pixels (min_size, max_size). "CPU ops" are the
compute nodes ExecuTorch would run itself. XNNPACK is given the same exported program: it delegates the
convolutions and leaves the detection post-processing on the CPU, where ExecuTorch has no kernel for
`nnapi::class_nms_padded` or torchvision's `roi_align`: "XNNPACK .pte" says whether that program can be
emitted.
"host run s" is one run on the host NNAPI driver, whose BOX_WITH_NMS_LIMIT is a Python loop (most of
SSDlite's time: 90 classes of 300 candidates)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help=f"models to measure (default: all of {', '.join(CASES)})")
    benchmark_page.add_markdown_option(parser)
    parser.set_defaults(markdown_page=PAGE)
    args = parser.parse_args()
    names = args.models or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    table = print_table(HEADER, [(name, lambda name=name: measure(name)) for name in names])
    benchmark_page.write_if_asked(args, "detectors", "Detectors: NNAPI and XNNPACK on the same exported program",
                                  NOTES, table)


if __name__ == "__main__":
    main()
