"""Model-zoo benchmark: NnapiPartitioner vs XnnpackPartitioner vs eager torch, in one run.

    python bench/zoo_benchmark.py                       # default model list
    python bench/zoo_benchmark.py mobilenet_v2 resnet18 --runs 20

Per model it prints, side by side: lowering time (export -> .pte) with each
partitioner, .pte size against the raw weight bytes, host run time of the
NNAPI .pte on the host NNAPI driver, of the XNNPACK .pte and of eager torch,
and the NNAPI operation / TRANSPOSE / subgraph counts. Targets (issue 3):
NNAPI lowering <= 0.5x XNNPACK's, .pte <= 1.02x weight bytes, NNAPI host run
<= 1.5x eager.
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import statistics
import time

import torch
from torch.export import export

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)
from executorch_nnapi.lowering.report import delegation_report
from executorch_nnapi.partitioners import NnapiPartitioner

DEFAULT_MODELS = [
    "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "mnasnet0_5", "shufflenet_v2_x0_5",
    "squeezenet1_0", "resnet18", "regnet_y_400mf", "efficientnet_b0", "googlenet", "densenet121",
    "vit_b_16", "swin_t", "convnext_tiny",
]
SMALL_CONFIG = {"vit_b_16": dict(image_size=64)}


@dataclasses.dataclass
class Row:
    model: str
    lower_nnapi_s: float
    lower_xnnpack_s: float
    pte_mb: float
    weights_mb: float
    nnapi_ms: float
    xnnpack_ms: float
    eager_ms: float
    nnapi_ops: int
    transposes: int
    subgraphs: int
    cpu_ops: int

    def cells(self) -> list[str]:
        return [
            self.model,
            f"{self.lower_nnapi_s:.1f}", f"{self.lower_xnnpack_s:.1f}",
            f"{self.lower_nnapi_s / self.lower_xnnpack_s:.2f}",
            f"{self.pte_mb:.2f}", f"{self.weights_mb:.2f}", f"{self.pte_mb / self.weights_mb:.3f}",
            f"{self.nnapi_ms:.1f}", f"{self.xnnpack_ms:.1f}", f"{self.eager_ms:.1f}",
            f"{self.nnapi_ms / self.eager_ms:.2f}",
            str(self.nnapi_ops), str(self.transposes), str(self.subgraphs), str(self.cpu_ops),
        ]


HEADER = ["model", "lower NNAPI s", "lower XNNPACK s", "ratio", ".pte MB", "weights MB", "pte/weights",
          "NNAPI host ms", "XNNPACK ms", "eager ms", "NNAPI/eager", "NNAPI ops", "TRANSPOSE", "subgraphs",
          "CPU ops"]


def _median_ms(fn, runs: int) -> float:
    fn()  # warm-up (first NNAPI run compiles)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _lower(model, x, partitioner):
    t0 = time.perf_counter()
    edge = to_edge_transform_and_lower(export(model, (x,)), partitioner=[partitioner])
    program = edge.to_executorch()
    return time.perf_counter() - t0, edge, program.buffer


def warm_up() -> None:
    """Lowers a tiny CNN with each partitioner once, so that one-time costs (lazy imports,
    op registration, kernel caches) are charged to neither side of the first model."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    tiny = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                               torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4, 2)).eval()
    for partitioner in (NnapiPartitioner(), XnnpackPartitioner()):
        _lower(tiny, torch.randn(1, 3, 8, 8), partitioner)


def bench_model(name: str, runs: int) -> Row:
    import torchvision
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None, **SMALL_CONFIG.get(name, {})).eval()
    size = SMALL_CONFIG.get(name, {}).get("image_size", 224)
    x = torch.randn(1, 3, size, size)
    weights = sum(t.numel() * t.element_size() for t in model.state_dict().values() if t.is_floating_point())

    nnapi_partitioner = NnapiPartitioner()
    lower_nnapi, edge, nnapi_pte = _lower(model, x, nnapi_partitioner)
    report = delegation_report(edge, nnapi_partitioner.decisions)
    lower_xnn, _, xnn_pte = _lower(model, x, XnnpackPartitioner())

    runtime = Runtime.get()
    programs = [runtime.load_program(nnapi_pte), runtime.load_program(xnn_pte)]  # keep alive for the Methods
    nnapi_method, xnn_method = (p.load_method("forward") for p in programs)
    nnapi_ms = _median_ms(lambda: nnapi_method.execute([x]), runs)
    xnn_ms = _median_ms(lambda: xnn_method.execute([x]), runs)
    with torch.no_grad():
        eager_ms = _median_ms(lambda: model(x), runs)
    return Row(name, lower_nnapi, lower_xnn, len(nnapi_pte) / 1e6, weights / 1e6, nnapi_ms, xnn_ms, eager_ms,
               report.num_nnapi_operations, report.num_transposes, len(report.partitions), len(report.cpu_nodes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", default=DEFAULT_MODELS)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {torch.get_num_threads()} torch threads, "
          f"{platform.processor() or platform.platform()}; torch {torch.__version__}")
    warm_up()
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    for name in args.models:
        try:
            row = bench_model(name, args.runs)
            print("| " + " | ".join(row.cells()) + " |", flush=True)
        except Exception as e:  # one broken model must not hide the others
            print(f"| {name} | error: {type(e).__name__}: {str(e)[:120]} |" + " |" * (len(HEADER) - 2), flush=True)


if __name__ == "__main__":
    main()
