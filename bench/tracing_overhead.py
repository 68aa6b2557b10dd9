"""What ETDump profiling costs on the host driver, and what it costs when off.

    python bench/tracing_overhead.py                    # mobilenet_v3_small, 20 runs
    python bench/tracing_overhead.py resnet18 --runs 30
    python bench/tracing_overhead.py --markdown         # also into docs/benchmarks.md (benchmark_page.py)

Per model: the median run time of the same .pte loaded without an event tracer (profiling
off), with ETDump (profiling on: compile / execute / per-operation events) and with ETDump and
a debug buffer (every NNAPI operation's output, through the debug variant of the model). With
profiling off the backend does a null check per execution; the host driver still reads the
clock twice per operation (the per-operation durations it offers to a tracer), which the last
column estimates: operations x 2 x the cost of one clock read, as a share of the run.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchmark_page  # noqa: E402  (first: it reads the load average as the run starts)
import torch  # noqa: E402
import torchvision  # noqa: E402
from torch.export import export  # noqa: E402

from executorch.exir import to_edge_transform_and_lower
from executorch.extension.pybindings.portable_lib import _load_for_executorch

import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)
from executorch_nnapi.lowering.serialization.blob_reader import read_blob
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch.exir.lowered_backend_module import get_lowered_submodules

from zoo_benchmark import print_table

HEADER = ["model", "NNAPI ops", "profiling off ms", "ETDump profiling ms", "+ intermediates ms",
          "clock reads when off ms (share)"]
NOTES = """What ExecuTorch's ETDump costs with the NNAPI backend, all on the host NNAPI driver (these
times are the host driver's, not a device's): the median run of the same .pte (torchvision, random
weights, 224 x 224) loaded without an event tracer, with ETDump (compile, execute and per-operation
events) and with ETDump and a debug buffer (every NNAPI operation's output, through the debug
variant of the model). With profiling off the backend does one null check per execution; the host
driver still reads the clock twice per operation, which the last column estimates."""


@dataclasses.dataclass
class Row:
    model: str
    operations: int
    off_ms: float
    profiling_ms: float
    intermediates_ms: float
    clock_reads_ms: float

    def cells(self) -> list[str]:
        return [self.model, str(self.operations), f"{self.off_ms:.1f}", f"{self.profiling_ms:.1f}",
                f"{self.intermediates_ms:.1f}",
                f"{self.clock_reads_ms:.3f} ({100 * self.clock_reads_ms / self.off_ms:.2f} %)"]


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


def measure(name: str, runs: int) -> Row:
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
    return Row(name, operations, off, on, intermediates, clocks_ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=["mobilenet_v3_small"])
    parser.add_argument("--runs", type=int, default=20)
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    table = print_table(HEADER, [(name, lambda name=name: measure(name, args.runs)) for name in args.models])
    benchmark_page.write_if_asked(args, "tracing-overhead", "What ETDump profiling costs", NOTES, table)


if __name__ == "__main__":
    main()
