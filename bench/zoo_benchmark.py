"""Model-zoo benchmark: NnapiPartitioner vs XnnpackPartitioner vs eager torch, in one run.

    python bench/zoo_benchmark.py                       # default model list
    python bench/zoo_benchmark.py mobilenet_v2 resnet18 --runs 20
    python bench/zoo_benchmark.py --quantized           # int8: NNAPI vs XNNPACK (see bench_quantized)
    python bench/zoo_benchmark.py --markdown            # also into docs/benchmarks.md (benchmark_page.py)

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
import math
import operator
import pathlib
import platform
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchmark_page  # noqa: E402  (first: it reads the load average as the run starts)
import torch  # noqa: E402
from torch.export import export

from executorch.exir import to_edge_transform_and_lower
from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)
from executorch_nnapi.quantizer.calibration import Calibration, quantize_program, random_inputs, sqnr
from executorch_nnapi.tools.report import delegation_report
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.host_driver import get_driver

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
    nnapi_profiled_ms: float
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
            f"{self.nnapi_ms:.1f}", f"{self.nnapi_profiled_ms:.1f}", f"{self.xnnpack_ms:.1f}", f"{self.eager_ms:.1f}",
            f"{self.nnapi_ms / self.eager_ms:.2f}",
            str(self.nnapi_ops), str(self.transposes), str(self.subgraphs), str(self.cpu_ops),
        ]


HEADER = ["model", "lower NNAPI s", "lower XNNPACK s", "ratio", ".pte MB", "weights MB", "pte/weights",
          "NNAPI on the host driver ms", "host driver ms, ETDump on", "XNNPACK ms", "eager ms", "host driver/eager",
          "NNAPI ops", "TRANSPOSE", "subgraphs", "CPU ops"]
NOTES = """torchvision models with random weights, batch 1, 224 x 224 (vit_b_16 at 64 x 64), float32.
*lower*: torch.export to .pte, seconds, with each partitioner (*ratio*: NNAPI's / XNNPACK's).
*.pte MB* is the NNAPI .pte beside the float weights' bytes. *NNAPI on the host driver*: the
NNAPI .pte run on this project's host NNAPI driver, NNAPI implemented in Python on torch's CPU
kernels (one Python call per operation): it measures that driver against eager torch, not what a
phone's NNAPI does; *ETDump on*: the same .pte with ExecuTorch's event tracer. *XNNPACK* (its
.pte) and *eager* run on this CPU. Times are medians of `--runs` runs after a warm-up run."""


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

    for partitioner in (NnapiPartitioner(), XnnpackPartitioner()):
        _lower(tiny_cnn(), torch.randn(1, 3, 8, 8), partitioner)


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
    # The same .pte with ExecuTorch's event tracer (ETDump: compile / execute / per-operation events);
    # the column before is profiling off, whose cost is one null check per execution in the backend.
    profiled = _load_for_executorch_from_buffer(nnapi_pte, enable_etdump=True)
    nnapi_profiled_ms = _median_ms(lambda: profiled.forward((x,)), runs)
    xnn_ms = _median_ms(lambda: xnn_method.execute([x]), runs)
    with torch.no_grad():
        eager_ms = _median_ms(lambda: model(x), runs)
    return Row(name, lower_nnapi, lower_xnn, len(nnapi_pte) / 1e6, weights / 1e6, nnapi_ms, nnapi_profiled_ms,
               xnn_ms, eager_ms,
               report.num_nnapi_operations, report.num_transposes, len(report.partitions), len(report.cpu_nodes))


# The float zoo's CNNs and transformers (issue 21: the 8-bit path wherever the float one goes).
QUANTIZED_MODELS = [
    "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "mnasnet0_5", "shufflenet_v2_x0_5", "squeezenet1_1",
    "resnet18", "regnet_y_400mf", "efficientnet_b0", "googlenet", "densenet121", "vit_b_16", "swin_t", "convnext_tiny",
]
FEATURE_LEVEL = 30  # quantized mode: NnapiQuantizer, NnapiPartitioner and the host driver


@dataclasses.dataclass
class QuantizedRow:
    """NNAPI int8 (NnapiQuantizer -> NnapiPartitioner) against XNNPACK int8 (XNNPACKQuantizer ->
    XnnpackPartitioner), both calibrated on the same inputs, SQNR on other (held-out) inputs."""

    model: str
    lower_float_s: float
    quantize_nnapi_s: float
    lower_nnapi_s: float
    quantize_xnnpack_s: float
    lower_xnnpack_s: float
    float_pte_mb: float
    nnapi_pte_mb: float
    xnnpack_pte_mb: float
    xnnpack_ms: float
    sqnr_nnapi: float
    sqnr_nnapi_reference: float
    sqnr_xnnpack: float
    nnapi_subgraphs: int
    nnapi_cpu_ops: int
    xnnpack_subgraphs: int
    xnnpack_cpu_ops: int

    def cells(self) -> list[str]:
        return [
            self.model, f"{self.lower_float_s:.1f}",
            f"{self.quantize_nnapi_s:.1f} + {self.lower_nnapi_s:.1f}",
            f"{self.quantize_xnnpack_s:.1f} + {self.lower_xnnpack_s:.1f}",
            f"{self.float_pte_mb:.2f}", f"{self.nnapi_pte_mb:.2f} ({self.nnapi_pte_mb / self.float_pte_mb:.2f}x)",
            f"{self.xnnpack_pte_mb:.2f} ({self.xnnpack_pte_mb / self.float_pte_mb:.2f}x)",
            "fails to load" if math.isnan(self.xnnpack_ms) else f"{self.xnnpack_ms:.1f}",
            f"{self.sqnr_nnapi:.1f}", f"{self.sqnr_nnapi_reference:.1f}",
            # the .pte failed to load (no run time): the figure is XNNPACK's convert_pt2e model's
            f"{self.sqnr_xnnpack:.1f} (its convert_pt2e)" if math.isnan(self.xnnpack_ms) else f"{self.sqnr_xnnpack:.1f}",
            f"{self.nnapi_subgraphs} / {self.nnapi_cpu_ops}", f"{self.xnnpack_subgraphs} / {self.xnnpack_cpu_ops}",
        ]


QUANTIZED_HEADER = ["model", "lower NNAPI float s", "NNAPI int8 s (quantize + lower)",
                    "XNNPACK int8 s (quantize + lower)", "float .pte MB", "NNAPI int8 .pte MB",
                    "XNNPACK int8 .pte MB", "XNNPACK int8 ms", "SQNR NNAPI .pte dB",
                    "SQNR NNAPI convert_pt2e dB", "SQNR XNNPACK .pte dB", "NNAPI subgraphs / CPU ops",
                    "XNNPACK subgraphs / CPU ops"]
# No NNAPI run time: the host driver computes 8-bit operations with NNAPI's integer arithmetic
# in reference code, a time that says nothing about a device's NNAPI and cannot stand beside
# XNNPACK's int8 CPU kernels.
QUANTIZED_NOTES = """The float zoo in 8 bits: NNAPI int8 (NnapiQuantizer, uint8 activations, API 30, then
NnapiPartitioner) beside XNNPACK int8 (XNNPACKQuantizer, symmetric per-channel, then
XnnpackPartitioner), both calibrated on the same `--calibration` random inputs; batch norms get
random statistics (with torchvision's init the logits barely depend on the input). *SQNR*: against
the float model over `--held-out` other inputs, of each .pte (NNAPI's on the host driver) and of
NNAPI's convert_pt2e model. *XNNPACK int8 ms*: XNNPACK's int8 kernels on this CPU (median of
`--runs`). There is no NNAPI time: the host driver runs 8-bit operations in reference integer
arithmetic, which says nothing about a device's NNAPI."""


def randomize_batch_norms(model: torch.nn.Module, size: int) -> None:
    """Random batch-norm affine parameters and the statistics of a random batch: with
    torchvision's default init the signal fades layer by layer (the logits barely depend on
    the input), so an SQNR against the float model would measure nothing."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    with torch.no_grad():
        for bn in norms:
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
            bn.momentum = 1.0  # running statistics := those of this batch
        model.train()
        model(torch.randn(4, 3, size, size))
    model.eval()


def _delegation_counts(edge) -> tuple[int, int]:
    """(delegated subgraphs, compute nodes left to the portable kernels) of a lowered program."""
    gm = edge.exported_program().graph_module
    subgraphs = cpu_ops = 0
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        if node.target is torch.ops.higher_order.executorch_call_delegate:
            subgraphs += 1
        else:
            cpu_ops += 1
    return subgraphs, cpu_ops


def _quantize_and_lower(model, x, quantizer, partitioner, calibration: Calibration):
    """(quantize s, lower s, convert_pt2e model, lowered edge program, .pte bytes)."""
    t0 = time.perf_counter()
    converted = quantize_program(export(model, (x,)), quantizer, calibration)
    quantize_s = time.perf_counter() - t0
    lower_s, edge, pte = _lower(converted, x, partitioner)
    return quantize_s, lower_s, converted, edge, pte


def _outputs(fn, inputs: list) -> torch.Tensor:
    with torch.no_grad():
        return torch.cat([fn(x).reshape(-1) for x in inputs])


def bench_quantized(name: str, model: torch.nn.Module, size: int, runs: int, calibration_size: int = 32,
                    held_out: int = 8) -> QuantizedRow:
    """One model in int8 through both backends: calibration on ``calibration_size`` random
    inputs (seed 0), SQNR against the float model on ``held_out`` others (seed 1)."""
    import executorch.kernels.quantized  # noqa: F401  (CPU quantize / dequantize kernels)
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                         get_symmetric_quantization_config)

    from executorch_nnapi.quantizer import NnapiQuantizer

    shape = (1, 3, size, size)
    x = torch.randn(*shape)
    calibration = random_inputs(shape, calibration_size, seed=0)
    test_inputs = [inputs[0] for inputs in random_inputs(shape, held_out, seed=1).inputs]
    lower_float, _, float_pte = _lower(model, x, NnapiPartitioner(FEATURE_LEVEL))
    q_nnapi, lower_nnapi, nnapi_ref, nnapi_edge, nnapi_pte = _quantize_and_lower(
        model, x, NnapiQuantizer(FEATURE_LEVEL), NnapiPartitioner(FEATURE_LEVEL), calibration)
    xnn_quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    q_xnn, lower_xnn, xnn_ref, xnn_edge, xnn_pte = _quantize_and_lower(model, x, xnn_quantizer, XnnpackPartitioner(),
                                                                       calibration)
    get_driver().feature_level = FEATURE_LEVEL  # the driver's level is global state: set it for this run
    runtime = Runtime.get()
    programs = [runtime.load_program(nnapi_pte), runtime.load_program(xnn_pte)]  # keep alive for the Methods
    nnapi_method = programs[0].load_method("forward")
    reference = _outputs(model, test_inputs)
    sqnrs = [sqnr(reference, _outputs(fn, test_inputs)) for fn in (lambda t: nnapi_method.execute([t])[0], nnapi_ref)]
    try:
        xnn_method = programs[1].load_method("forward")
    except RuntimeError:
        # XNNPACK's own compiler refuses some int8 graphs (swin_t's constant pad): its convert_pt2e
        # model's SQNR is then the only XNNPACK figure, shown as such.
        xnn_ms, xnn_sqnr = math.nan, sqnr(reference, _outputs(xnn_ref, test_inputs))
    else:
        xnn_ms = _median_ms(lambda: xnn_method.execute([x]), runs)
        xnn_sqnr = sqnr(reference, _outputs(lambda t: xnn_method.execute([t])[0], test_inputs))
    sqnrs.append(xnn_sqnr)
    return QuantizedRow(name, lower_float, q_nnapi, lower_nnapi, q_xnn, lower_xnn, len(float_pte) / 1e6,
                        len(nnapi_pte) / 1e6, len(xnn_pte) / 1e6, xnn_ms, *sqnrs,
                        *_delegation_counts(nnapi_edge), *_delegation_counts(xnn_edge))


def tiny_cnn() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                               torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4, 2)).eval()


def print_table(header: list[str], rows) -> list[str]:
    """Prints a markdown table, a row as soon as it is measured (an error row for a model that
    fails); returns its lines."""
    lines = []

    def emit(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    emit("| " + " | ".join(header) + " |")
    emit("|" + "---|" * len(header))
    for name, measure in rows:
        try:
            emit("| " + " | ".join(measure().cells()) + " |")
        except Exception as e:  # one broken model must not hide the others
            emit(f"| {name} | error: {type(e).__name__}: {str(e)[:120]} |" + " |" * (len(header) - 2))
    return lines


def _quantized_model(name: str) -> tuple[torch.nn.Module, int]:
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None, **SMALL_CONFIG.get(name, {})).eval()
    size = SMALL_CONFIG.get(name, {}).get("image_size", 224)
    randomize_batch_norms(model, size)
    # torchvision zero-initializes ViT's head: an all-zero output would give every backend an
    # infinite SQNR (as the 2026-11-26 table's vit_b_16 row shows).
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1 and not p.any():
                p.copy_(torch.randn(p.shape, generator=torch.Generator().manual_seed(1)) * 0.02)
    return model, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--quantized", action="store_true",
                        help=f"int8 NNAPI vs int8 XNNPACK (default models: {', '.join(QUANTIZED_MODELS)})")
    parser.add_argument("--calibration", type=int, default=32, help="--quantized: random calibration inputs")
    parser.add_argument("--held-out", type=int, default=8, help="--quantized: held-out inputs for the SQNR")
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {torch.get_num_threads()} torch threads, "
          f"{platform.processor() or platform.platform()}; torch {torch.__version__}")
    warm_up()
    if args.quantized:
        # Quantizing and lowering a tiny CNN first charges one-time costs to neither backend.
        bench_quantized("tiny", tiny_cnn(), 8, runs=1, calibration_size=2, held_out=1)
        table = print_table(QUANTIZED_HEADER, [
            (name, lambda name=name: bench_quantized(name, *_quantized_model(name), args.runs, args.calibration,
                                                     args.held_out))
            for name in args.models or QUANTIZED_MODELS])
        section = ("zoo-int8", "torchvision models in 8 bits: NNAPI int8 and XNNPACK int8", QUANTIZED_NOTES)
    else:
        table = print_table(HEADER, [(name, lambda name=name: bench_model(name, args.runs))
                                     for name in args.models or DEFAULT_MODELS])
        section = ("zoo", "torchvision models: NnapiPartitioner, XnnpackPartitioner and eager torch", NOTES)
    benchmark_page.write_if_asked(args, *section, table)


if __name__ == "__main__":
    main()
