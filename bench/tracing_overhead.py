"""What ETDump profiling costs on the host driver, and what it costs when off.

    python bench/tracing_overhead.py                    # mobilenet_v3_small, 20 runs
    python bench/tracing_overhead.py resnet18 --runs 30

Per model: the median run time of the same .pte loaded without an event tracer (profiling
off), with ETDump (profiling on: compile / execute / per-operation events) and with ETDump and
a debug buffer (every NNAPI operation's output, through the debug variant of the model). With
profiling off the backend does a null check per execution; the host driver still reads the
clock twice per operation (the per-operation durations it offers to a tracer), which the last
column estimates: operations x 2 x the cost of one clock read, as a share of the run.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import tempfile
import time

import torch
import torchvision
from torch.export import export

from executorch.exir import to_edge_transform_and_lower
from executorch.extension.pybindings.portable_lib import _load_for_executorch

import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)
from executorch_nnapi.lowering.serialization.blob_reader import read_blob
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch.exir.lowered_backend_module import get_lowered_submodules


def _median_ms(module, x: torch.Tensor, runs: int) -> float:
    module.forward((x,))  # warm-up (and the debug variant's compilation)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        module.forward((x,))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _clock_read_ns(samples: int = 200_000) -> float:
    start = time.perf_counter_ns()
    for _ in range(samples):
        time.perf_counter_ns()
    return (time.perf_counter_ns() - start) / samples


def measure(name: str, runs: int) -> dict:
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)().eval()
    x = torch.randn(1, 3, 224, 224)
    edge = to_edge_transform_and_lower(export(model, (x,)), partitioner=[NnapiPartitioner()])
    operations = sum(len(read_blob(lm.processed_bytes).operation_types)
                     for _, lm, *_ in get_lowered_submodules(edge.exported_program().graph_module))
    with tempfile.TemporaryDirectory() as tmp:
        pte = pathlib.Path(tmp) / "m.pte"
        pte.write_bytes(edge.to_executorch().buffer)
        off = _median_ms(_load_for_executorch(str(pte)), x, runs)
        on = _median_ms(_load_for_executorch(str(pte), enable_etdump=True), x, runs)
        intermediates = _median_ms(_load_for_executorch(str(pte), enable_etdump=True, debug_buffer_size=256 << 20),
                                   x, max(3, runs // 4))
    clocks_ms = operations * 2 * _clock_read_ns() / 1e6
    return {"model": name, "operations": operations, "off_ms": off, "profiling_ms": on,
            "intermediates_ms": intermediates, "clock_reads_ms": clocks_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=["mobilenet_v3_small"])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print("| model | NNAPI ops | profiling off (ms) | ETDump profiling (ms) | + intermediates (ms) | "
          "clock reads when off (ms, share) |")
    print("|---|---|---|---|---|---|")
    for name in args.models:
        r = measure(name, args.runs)
        print(f"| {r['model']} | {r['operations']} | {r['off_ms']:.1f} | {r['profiling_ms']:.1f} | "
              f"{r['intermediates_ms']:.1f} | {r['clock_reads_ms']:.3f} "
              f"({100 * r['clock_reads_ms'] / r['off_ms']:.2f} %) |")


if __name__ == "__main__":
    main()
