"""Yardsticks for whole quantized models: SQNR, agreement in quantization steps,
and the same model quantized with XNNPACKQuantizer and run by ExecuTorch's
XNNPACK delegate (another integer implementation of the same convert_pt2e
arithmetic, for comparison)."""

from __future__ import annotations

import dataclasses

import torch
from torch.fx import GraphModule
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                     get_symmetric_quantization_config)
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from executorch_nnapi.lowering.calibration import sqnr  # noqa: F401  (the one SQNR formula, re-exported)


def within_one_step(expected: torch.Tensor, actual: torch.Tensor, step: float) -> float:
    """Fraction of the elements of ``actual`` within one quantization step of ``expected``."""
    return ((actual - expected).abs() <= step * 1.0001).double().mean().item()


def calibrated(gm: GraphModule, example: tuple, calibration: int) -> GraphModule:
    """Runs a prepared model on ``calibration`` random inputs shaped like ``example`` (seed 1)
    and on ``example``, then converts it."""
    torch.manual_seed(1)
    for _ in range(calibration):
        gm(*[torch.randn_like(x) for x in example])
    gm(*example)
    return convert_pt2e(gm)


def last_output_step(gm: GraphModule) -> float:
    """The scale of the last quantize node of a converted model (the output's step)."""
    qs = [n for n in gm.graph.nodes if n.op == "call_function" and "quantize_per_tensor" in str(n.target)
          and "dequantize" not in str(n.target)]
    return float(qs[-1].args[1])


@dataclasses.dataclass
class XnnpackRun:
    converted: GraphModule    # XNNPACKQuantizer's convert_pt2e model
    output: torch.Tensor      # the XNNPACK delegate's result on the held-out input
    expected: torch.Tensor    # the convert_pt2e model's result on it
    step: float               # the output's quantization step


def xnnpack_run(model: torch.nn.Module, example: tuple, held_out: torch.Tensor, calibration: int) -> XnnpackRun:
    """``model`` quantized with XNNPACKQuantizer (int8, per-channel weights; same calibration
    inputs as ``test_quantized_ops.quantize``), lowered to XNNPACK and run on ``held_out``."""
    gm = torch.export.export(model.eval(), example).module()
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    converted = calibrated(prepare_pt2e(gm, quantizer), example, calibration)
    program = to_edge_transform_and_lower(torch.export.export(converted, example),
                                          partitioner=[XnnpackPartitioner()]).to_executorch()
    loaded = Runtime.get().load_program(program.buffer)
    output = loaded.load_method("forward").execute([held_out])[0]
    return XnnpackRun(converted, output, converted(held_out), last_output_step(converted))
