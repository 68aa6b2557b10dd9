"""8-bit on the models users bring: timm's mobile CNNs and hybrids through NnapiQuantizer and
through XNNPACK's int8 flow, on the same inputs.

    PYTHONPATH=... python bench/quantized_outside_models.py               # every model in MODELS
    python bench/quantized_outside_models.py lcnet_050 repvit_m1 --size 160 --held-out 32
    python bench/quantized_outside_models.py --float                       # also the float lowering
    python bench/quantized_outside_models.py --markdown    # also into docs/benchmarks.md (benchmark_page.py)

Every model is ``timm.create_model(name, pretrained=False)`` (random weights, nothing downloaded)
with random batch-norm statistics (zoo_benchmark.randomize_batch_norms: with timm's default init
the logits barely depend on the input and an SQNR would measure nothing). Per model, at input
``--size`` (default 224, batch 1), it is

- quantized with NnapiQuantizer (uint8 activations, per-channel int8 weights, API 30) and lowered
  with NnapiPartitioner at API 30;
- quantized with XNNPACKQuantizer (int8, symmetric per-channel weights, as ExecuTorch's examples
  use it) and lowered with XnnpackPartitioner;

both calibrated on the same ``--calibration`` random normal inputs (seed 0); both .pte's (the
NNAPI one on the host NNAPI driver at API 30) run on the same ``--held-out`` other inputs (seed 1),
and their SQNR against the float model is taken over all held-out outputs together (as
``zoo_benchmark.py --quantized`` does). The table gives each side's subgraphs / CPU ops, what
NNAPI leaves on the CPU, the ops NNAPI computes in float inside its partition (float islands),
the SQNR of each .pte and of NNAPI's convert_pt2e model, and NNAPI's minus XNNPACK's. Issue 33
item 5's goal: one 8-bit NNAPI subgraph, no CPU op, SQNR >= XNNPACK's - 1 dB.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import operator
import pathlib
import platform
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchmark_page  # noqa: E402  (first: it reads the load average as the run starts)
import torch  # noqa: E402
from example_models import Example, _fill_zero_weights, lower  # noqa: E402
from zoo_benchmark import (_outputs, _quantize_and_lower, print_table,  # noqa: E402
                           randomize_batch_norms, warm_up)

from executorch.runtime import Runtime  # noqa: E402

from executorch_nnapi.host_driver import get_driver  # noqa: E402
from executorch_nnapi.lowering.node_utils import op_name  # noqa: E402
from executorch_nnapi.partitioners import NnapiPartitioner  # noqa: E402
from executorch_nnapi.quantizer.calibration import random_inputs, sqnr  # noqa: E402
from executorch_nnapi.tools.report import delegation_report  # noqa: E402

FEATURE_LEVEL = 30
# timm's mobile CNNs and conv hybrids that lower to one float NNAPI subgraph at API 30.
MODELS = ["mobilenetv3_large_100", "mobilenetv4_conv_small", "efficientnet_b0", "lcnet_050", "mobilenetv2_100",
          "ghostnet_100", "repvit_m1", "fastvit_t8"]


def timm_cnn(name: str, size: int) -> torch.nn.Module:
    """``timm.create_model(name, pretrained=False)`` (seed 0) in eval mode, batch norms randomized
    for ``size`` x ``size`` inputs, all-zero weight tensors filled with small random values."""
    import timm

    torch.manual_seed(0)
    model = timm.create_model(name, pretrained=False).eval()
    randomize_batch_norms(model, size)
    _fill_zero_weights(model)
    return model


@dataclasses.dataclass
class Lowered:
    """What one backend's int8 lowering left where: delegated subgraphs, the CPU ops by name."""

    subgraphs: int
    cpu_ops: collections.Counter

    def cells(self) -> list[str]:
        names = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in self.cpu_ops.most_common())
        return [f"{self.subgraphs} / {sum(self.cpu_ops.values())}", names or "-"]


def lowered(edge) -> Lowered:
    """The delegate calls and CPU ops of a lowered program. Counted on the graph after
    ``to_executorch()``, whose memory planning adds ``alloc`` nodes: those compute nothing and
    are left out (zoo_benchmark's _delegation_counts, which counts them, is not used here)."""
    from executorch.exir.memory import alloc

    gm = edge.exported_program().graph_module
    nodes = [n for n in gm.graph.nodes if n.op == "call_function" and n.target not in (operator.getitem, alloc)]
    delegate = torch.ops.higher_order.executorch_call_delegate
    # op_name gives "aten.hardswish.default" or "quantized_decomposed.quantize_per_tensor.default":
    # the table shows the op's own name, the middle part.
    names = [op_name(n.target).split(".") for n in nodes if n.target is not delegate]
    return Lowered(sum(n.target is delegate for n in nodes),
                   collections.Counter(parts[1] if len(parts) > 2 else ".".join(parts) for parts in names))


@dataclasses.dataclass
class Row:
    model: str
    size: int
    float_counts: tuple[int, int] | None  # NNAPI float lowering's (subgraphs, CPU ops), with --float
    nnapi: Lowered
    nnapi_8bit: bool                       # every NNAPI subgraph computes in 8 bits
    float_islands: str                     # ops computed in float inside the NNAPI subgraphs
    xnnpack: Lowered
    sqnr_nnapi: float
    sqnr_nnapi_convert: float
    sqnr_xnnpack: float
    xnnpack_loaded: bool                   # False: XNNPACK's figure is its convert_pt2e model's

    def cells(self) -> list[str]:
        nnapi_counts, nnapi_cpu = self.nnapi.cells()
        xnn = f"{self.sqnr_xnnpack:.2f}" + ("" if self.xnnpack_loaded else " (its convert_pt2e)")
        return [self.model, str(self.size),
                "-" if self.float_counts is None else f"{self.float_counts[0]} / {self.float_counts[1]}",
                nnapi_counts + ("" if self.nnapi_8bit else " (not 8-bit)"), nnapi_cpu, self.float_islands or "-",
                *self.xnnpack.cells(), f"{self.sqnr_nnapi:.2f}", f"{self.sqnr_nnapi_convert:.2f}", xnn,
                f"{self.sqnr_nnapi - self.sqnr_xnnpack:+.2f}"]


HEADER = ["model", "input", "NNAPI float subgraphs / CPU ops", "NNAPI int8 subgraphs / CPU ops",
          "left on the CPU by NNAPI int8", "float inside NNAPI int8", "XNNPACK int8 subgraphs / CPU ops",
          "left on the CPU by XNNPACK int8", "SQNR NNAPI .pte dB", "SQNR NNAPI convert_pt2e dB",
          "SQNR XNNPACK .pte dB", "NNAPI - XNNPACK dB"]
NOTES = """timm's mobile CNNs and conv hybrids (random weights, batch norms given random statistics) in 8
bits: NnapiQuantizer (uint8 activations, per-channel int8 weights, API 30) then NnapiPartitioner,
beside XNNPACKQuantizer (int8, symmetric per-channel) then XnnpackPartitioner, both calibrated on
the same `--calibration` random inputs. *float inside NNAPI int8*: ops computed in float inside
the NNAPI subgraphs. *SQNR*: against the float model over `--held-out` other inputs, of each .pte
(NNAPI's on the host NNAPI driver) and of NNAPI's convert_pt2e model; the last column is NNAPI's
.pte minus XNNPACK's. No run times: the host driver's 8-bit arithmetic is reference code."""


def _run(pte: bytes, inputs: list[torch.Tensor]) -> torch.Tensor | None:
    """The .pte's outputs on ``inputs``, flattened and concatenated; None if it does not load
    (XNNPACK's own compiler refuses some int8 graphs)."""
    program = Runtime.get().load_program(pte)  # keep it alive: the Method does not
    try:
        method = program.load_method("forward")
    except RuntimeError:
        return None
    return _outputs(lambda t: method.execute([t])[0], inputs)


def measure(name: str, size: int, calibration_size: int, held_out: int, with_float: bool = False) -> Row:
    """One timm model in int8 through NNAPI and XNNPACK (see the module doc)."""
    import executorch.kernels.quantized  # noqa: F401  (CPU quantize / dequantize kernels)
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                         get_symmetric_quantization_config)

    from executorch_nnapi.quantizer import NnapiQuantizer

    model = timm_cnn(name, size)
    shape = (1, 3, size, size)
    x = torch.randn(*shape)
    calibration = random_inputs(shape, calibration_size, seed=0)
    test_inputs = [inputs[0] for inputs in random_inputs(shape, held_out, seed=1).inputs]
    float_counts = lower(Example(model, (x,)), NnapiPartitioner(FEATURE_LEVEL))[1] if with_float else None

    partitioner = NnapiPartitioner(FEATURE_LEVEL)
    *_, nnapi_ref, nnapi_edge, nnapi_pte = _quantize_and_lower(model, x, NnapiQuantizer(FEATURE_LEVEL),
                                                               partitioner, calibration)
    partitions = delegation_report(nnapi_edge, partitioner.decisions).partitions
    islands = collections.Counter()
    for partition in partitions:
        islands.update({op.removeprefix("aten."): n for op, (n, _) in partition.float_islands.items()})
    xnn_quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    *_, xnn_ref, xnn_edge, xnn_pte = _quantize_and_lower(model, x, xnn_quantizer, XnnpackPartitioner(), calibration)

    get_driver().feature_level = FEATURE_LEVEL  # the driver's level is global state: set it for this run
    reference = _outputs(model, test_inputs)
    xnn_out = _run(xnn_pte, test_inputs)
    all_8bit = bool(partitions) and all(p.is_quantized for p in partitions)
    return Row(name, size, float_counts, lowered(nnapi_edge), all_8bit,
               ", ".join(f"{op} x{n}" for op, n in sorted(islands.items())), lowered(xnn_edge),
               sqnr(reference, _run(nnapi_pte, test_inputs)), sqnr(reference, _outputs(nnapi_ref, test_inputs)),
               sqnr(reference, _outputs(xnn_ref, test_inputs) if xnn_out is None else xnn_out), xnn_out is not None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help=f"timm model names (default: {', '.join(MODELS)})")
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--calibration", type=int, default=32, help="random calibration inputs (seed 0)")
    parser.add_argument("--held-out", type=int, default=8, help="held-out inputs for the SQNR (seed 1)")
    parser.add_argument("--float", action="store_true", help="also lower the float model (its subgraphs / CPU ops)")
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    import timm

    print(f"machine: {platform.machine()}, {torch.get_num_threads()} torch threads, "
          f"{platform.processor() or platform.platform()}; torch {torch.__version__}, timm {timm.__version__}; "
          f"{args.calibration} calibration / {args.held_out} held-out inputs")
    warm_up()
    table = print_table(HEADER, [(name, lambda name=name: measure(name, args.size, args.calibration, args.held_out,
                                                            args.float))
                         for name in args.models or MODELS])
    benchmark_page.write_if_asked(args, "quantized-outside-models",
                                  "timm models in 8 bits: NNAPI int8 and XNNPACK int8", NOTES, table)


if __name__ == "__main__":
    main()
