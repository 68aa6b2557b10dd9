"""The host driver's speed beside XNNPACK's, float and 8-bit, in one process (issue 40).

    python bench/host_speed.py                                   # the four models of issue 40
    python bench/host_speed.py mobilenet_v2 --runs 30 --markdown # also into docs/benchmarks.md

Per torchvision model (random weights, batch norms with random statistics as in
zoo_benchmark.py's 8-bit rows, batch 1, 224 x 224): the NNAPI .pte run by the C++ backend on this
project's host NNAPI driver, XNNPACK's .pte and eager torch, in float; then NnapiQuantizer's 8-bit
NNAPI .pte and XNNPACKQuantizer's 8-bit XNNPACK .pte, calibrated on the same random inputs. Each
method runs its executions in a block of its own, one after the other, on an idle machine (in
rounds shared by the methods, one runtime's idle threads kept spinning into the next method's
time); each block is run --repeats times (the methods' blocks in turn each time) and a method's
time is the smallest of its block medians: a transient slow period of this shared 2-core VM (a
core briefly taken) then spoils one block, not the row. The host driver's
compiled kernels run on their pool ($EXECUTORCH_NNAPI_HOST_KERNEL_THREADS, default one thread per
core, at most 4; torch's operations on $EXECUTORCH_NNAPI_HOST_THREADS, default 1), XNNPACK on its
thread pool (one thread per core); *one thread each*: the host driver with its kernels' pool at one
thread and XNNPACK with its pool at one thread, measured in blocks of their own after the others. *compile*: the time of
`load_method` (for NNAPI: the model built through the NNAPI C API, Model_finish and
Compilation_finish, where the host driver prepares its 8-bit kernels). *reference kernels*: the
same 8-bit .pte on the host driver with $EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS=1 (the
reference integer kernels the prepared ones are proved and tested equal to), median of
`--reference-runs`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import platform
import statistics
import sys
import time
from typing import Callable, Optional

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchmark_page  # noqa: E402  (first: it reads the load average as the run starts)
import torch  # noqa: E402

from executorch.runtime import Runtime  # noqa: E402

import executorch_nnapi.runtime  # noqa: E402,F401  (NnapiBackend + host driver)
from executorch_nnapi.host_driver import get_driver  # noqa: E402
from executorch_nnapi.host_driver.operations import _native  # noqa: E402
from executorch_nnapi.host_driver.operations._qfast import REFERENCE_VARIABLE  # noqa: E402
from executorch_nnapi.partitioners import NnapiPartitioner  # noqa: E402
from executorch_nnapi.quantizer.calibration import random_inputs  # noqa: E402
from zoo_benchmark import (FEATURE_LEVEL, _lower, _quantize_and_lower, _quantized_model, print_table,  # noqa: E402
                           warm_up)

DEFAULT_MODELS = ["mobilenet_v2", "resnet18", "mobilenet_v3_large", "efficientnet_b0"]


@dataclasses.dataclass
class Row:
    model: str
    precision: str
    nnapi_ms: float
    xnnpack_ms: float
    xnnpack_one_thread_ms: float
    nnapi_one_thread_ms: float
    eager_ms: Optional[float]
    nnapi_compile_ms: float
    xnnpack_compile_ms: float
    reference_ms: Optional[float]

    def cells(self) -> list[str]:
        return [self.model, self.precision, f"{self.nnapi_ms:.1f}", f"{self.xnnpack_ms:.1f}",
                f"{self.nnapi_ms / self.xnnpack_ms:.2f}", f"{self.nnapi_one_thread_ms:.1f}",
                f"{self.xnnpack_one_thread_ms:.1f}", f"{self.nnapi_one_thread_ms / self.xnnpack_one_thread_ms:.2f}",
                "-" if self.eager_ms is None else f"{self.eager_ms:.1f}",
                f"{self.nnapi_compile_ms:.0f}", f"{self.xnnpack_compile_ms:.0f}",
                "-" if self.reference_ms is None else f"{self.reference_ms:.0f}"]


HEADER = ["model", "precision", "NNAPI .pte on the host driver ms", "XNNPACK .pte ms", "host driver / XNNPACK",
          "host driver, one thread ms", "XNNPACK, one thread ms", "host driver / XNNPACK, one thread each", "eager ms", "NNAPI compile ms",
          "XNNPACK compile ms", "host driver, reference kernels ms"]
NOTES = __doc__.split("\n\n", 2)[2].strip()


class Timed:
    """A program's loaded method and how long loading it took (kept alive together)."""

    def __init__(self, pte: bytes, reference: bool = False) -> None:
        if reference:
            os.environ[REFERENCE_VARIABLE] = "1"
        try:
            self.program = Runtime.get().load_program(pte)
            started = time.perf_counter()
            self.method = self.program.load_method("forward")
            self.compile_ms = (time.perf_counter() - started) * 1e3
        finally:
            if reference:
                del os.environ[REFERENCE_VARIABLE]

    def __call__(self, x: torch.Tensor):
        return self.method.execute([x])


# Seconds of rest before each block of runs (other runtimes' idle threads spin for a while).
BLOCK_PAUSE_S = 0.5


def block_medians(fns: list[Callable[[], object]], rounds: int, repeats: int = 1) -> list[float]:
    """Median ms of each function over ``rounds`` executions, each function in a block of its own
    (after one warm-up call). In rounds shared by the methods, one runtime's idle threads kept
    spinning into the next method's time (XNNPACK's pool after its float .pte: the host driver's
    8-bit mobilenet_v2 took 5.2 ms after it, 3.4 ms alone; torch's OpenMP threads after eager).
    A pause before each block lets the threads of the block before go to sleep (without it the
    host driver's 8-bit mobilenet_v2 measured 1.6 ms in one run and 3.2 ms in the next, right after
    XNNPACK's float block, while 1.8 ms alone). With ``repeats``, the blocks run that many times
    in turn and each function gets its smallest block median."""
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            time.sleep(BLOCK_PAUSE_S)
            fn()
            times = []
            for _ in range(rounds):
                started = time.perf_counter()
                fn()
                times.append((time.perf_counter() - started) * 1e3)
            best[k] = min(best[k], statistics.median(times))
    return best


def bench_model(name: str, runs: int, reference_runs: int, calibration: int, repeats: int = 1) -> list[Row]:
    """The float and the 8-bit row of one model."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                         get_symmetric_quantization_config)

    from executorch_nnapi.quantizer import NnapiQuantizer

    model, size = _quantized_model(name)
    x = torch.randn(1, 3, size, size)
    nnapi_float = _lower(model, x, NnapiPartitioner(FEATURE_LEVEL))[2]
    xnn_float = _lower(model, x, XnnpackPartitioner())[2]
    samples = random_inputs((1, 3, size, size), calibration, seed=0)
    nnapi_int8 = _quantize_and_lower(model, x, NnapiQuantizer(FEATURE_LEVEL), NnapiPartitioner(FEATURE_LEVEL),
                                     samples)[4]
    xnn_quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    xnn_int8 = _quantize_and_lower(model, x, xnn_quantizer, XnnpackPartitioner(), samples)[4]
    get_driver().feature_level = FEATURE_LEVEL
    methods = [Timed(pte) for pte in (nnapi_float, xnn_float, nnapi_int8, xnn_int8)]

    def eager() -> None:
        with torch.no_grad():
            model(x)

    nf, xf, ni, xi, ef = block_medians([lambda m=m: m(x) for m in methods] + [eager], runs, repeats)
    reference = Timed(nnapi_int8, reference=True)
    reference_ms = block_medians([lambda: reference(x)], reference_runs)[0]
    compile_ms = [m.compile_ms for m in methods]
    xf1, xi1 = on_one_xnnpack_thread([xnn_float, xnn_int8], x, runs, repeats)
    nf1, ni1 = on_one_kernel_thread([methods[0], methods[2]], x, runs, repeats)
    return [Row(name, "float", nf, xf, xf1, nf1, ef, compile_ms[0], compile_ms[1], None),
            Row(name, "8-bit", ni, xi, xi1, ni1, None, compile_ms[2], compile_ms[3], reference_ms)]


def on_one_kernel_thread(methods: list[Timed], x: torch.Tensor, runs: int, repeats: int = 1) -> list[float]:
    """Median ms of each NNAPI method with the host driver's compiled kernels on one thread (their
    pool as it was after)."""
    native = _native.kernels()
    before = native.threads if native is not None else 1
    if native is not None:
        native.set_threads(1)
    try:
        return block_medians([lambda m=m: m(x) for m in methods], runs, repeats)
    finally:
        if native is not None:
            native.set_threads(before)


def on_one_xnnpack_thread(ptes: list[bytes], x: torch.Tensor, runs: int, repeats: int = 1) -> list[float]:
    """Median ms of each XNNPACK .pte with ExecuTorch's thread pool at one thread; the pool is
    then as it was. XNNPACK keeps the pool it was loaded with, which a reset destroys: every
    method loaded before this call must not run after it, so the .pte are loaded here again and
    dropped before the pool is reset back."""
    from executorch.extension.pybindings import portable_lib

    before = portable_lib._threadpool_get_thread_count()
    portable_lib._unsafe_reset_threadpool(1)
    try:
        methods = [Timed(pte) for pte in ptes]
        times = block_medians([lambda m=m: m(x) for m in methods], runs, repeats)
        del methods
        return times
    finally:
        portable_lib._unsafe_reset_threadpool(before)


def compiled_loops_note() -> str:
    """Whether the host driver's compiled loops (operations/_native.py) ran, for the notes."""
    path = _native.library_path()
    if _native.kernels() is not None:
        native = _native.kernels()
        return (f"The host driver's compiled loops were loaded ({os.path.basename(path)}), "
                f"{native.threads} kernel threads; 8-bit product: {native.vector_product or 'plain C'}, "
                f"float loops: {native.float_vector or 'plain C'}.")
    return "The host driver's compiled loops were not loaded (its prepared kernels ran their torch passes)."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help=f"torchvision models (default: {' '.join(DEFAULT_MODELS)})")
    parser.add_argument("--runs", type=int, default=20, help="executions per method (default 20)")
    parser.add_argument("--reference-runs", type=int, default=3,
                        help="executions of the 8-bit .pte on the reference kernels (default 3)")
    parser.add_argument("--calibration", type=int, default=8, help="random calibration inputs (default 8)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="blocks of --runs per method, its time the smallest block median (default 3)")
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {torch.get_num_threads()} torch threads; torch {torch.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}; {compiled_loops_note()}")
    warm_up()
    rows: dict[str, list[Row]] = {}

    def row(name: str, k: int) -> Callable[[], Row]:
        def measure() -> Row:   # a model's float row measures both; its 8-bit row is read back
            if k == 0:
                rows[name] = bench_model(name, args.runs, args.reference_runs, args.calibration, args.repeats)
            return rows[name][k]
        return measure

    table = print_table(HEADER, [(name, row(name, k)) for name in args.models or DEFAULT_MODELS for k in (0, 1)])
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    # A machine without AVX-512 runs the AVX2 kernels: its table is a section of its own.
    native = _native.kernels()
    avx2 = native is not None and native.vector_product == "AVX2"
    benchmark_page.write_if_asked(args, "host-speed-avx2" if avx2 else "host-speed",
                                  "The host driver's speed beside XNNPACK's, float and 8-bit"
                                  + (", on x86 without AVX-512 (the AVX2 kernels)" if avx2 else ""),
                                  f"{NOTES} {compiled_loops_note()}", table)


if __name__ == "__main__":
    main()
