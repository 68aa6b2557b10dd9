"""Quantizing for the tests and the yardsticks of quantized models: ``quantize`` (NnapiQuantizer,
prepare / calibrate / convert_pt2e), SQNR, agreement in quantization steps, the operations
of a blob with the 8-bit check, and the same model quantized with XNNPACKQuantizer and run
by ExecuTorch's XNNPACK delegate (another integer implementation of the same convert_pt2e
arithmetic, for comparison)."""

from __future__ import annotations

import dataclasses

import torch
from torch.fx import GraphModule
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                     get_symmetric_quantization_config)
import executorch.kernels.quantized  # noqa: F401  (CPU kernels of the quantize / dequantize NNAPI leaves)
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from executorch_nnapi.blob import Blob as fb_blob
from executorch_nnapi.lowering.nnapi_codes import OperandCode, OperationCode
from executorch_nnapi.quantizer import NnapiQuantizer
from executorch_nnapi.quantizer.calibration import sqnr  # noqa: F401  (the one SQNR formula, re-exported)

FLOAT_TENSORS = {OperandCode.TENSOR_FLOAT32, OperandCode.TENSOR_FLOAT16}


def within_one_step(expected: torch.Tensor, actual: torch.Tensor, step: float) -> float:
    """Fraction of the elements of ``actual`` within one quantization step of ``expected``."""
    return ((actual - expected).abs() <= step * 1.0001).double().mean().item()


def mean_sqnr(reference: torch.Tensor, actual: torch.Tensor) -> float:
    """The mean over the batch (dim 0) of each item's SQNR against ``reference``, in dB: on a
    random-weight model one input's SQNR scatters by ~2 dB, the mean of many does not."""
    return sum(sqnr(r, a) for r, a in zip(reference, actual)) / len(reference)


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


def xnnpack_run(model: torch.nn.Module, example: tuple, held_out: torch.Tensor, calibration: int,
                dynamic_shapes=None) -> XnnpackRun:
    """``model`` quantized with XNNPACKQuantizer (int8, per-channel weights; same calibration
    inputs as ``quantize``: exported at ``example`` with ``dynamic_shapes``), lowered to XNNPACK
    at ``held_out``'s shape and run on it."""
    gm = torch.export.export(model.eval(), example, dynamic_shapes=dynamic_shapes).module()
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    converted = calibrated(prepare_pt2e(gm, quantizer), example, calibration)
    program = to_edge_transform_and_lower(torch.export.export(converted, (held_out,)),
                                          partitioner=[XnnpackPartitioner()]).to_executorch()
    loaded = Runtime.get().load_program(program.buffer)
    output = loaded.load_method("forward").execute([held_out])[0]
    with torch.no_grad():
        expected = converted(held_out)
    return XnnpackRun(converted, output, expected, last_output_step(converted))


def quantize(model: torch.nn.Module, example: tuple, *, signed: bool, feature_level: int = 30,
             calibration: int = 4, dynamic_shapes=None) -> GraphModule:
    """The convert_pt2e model of ``model``, calibrated on a few inputs like ``example``."""
    gm = torch.export.export(model.eval(), example, dynamic_shapes=dynamic_shapes).module()
    gm = prepare_pt2e(gm, NnapiQuantizer(feature_level=feature_level, signed=signed))
    torch.manual_seed(1)
    for _ in range(calibration):
        gm(*[torch.randn_like(x) if x.is_floating_point() else x for x in example])
    gm(*example)
    return convert_pt2e(gm)


def output_step(gm: GraphModule) -> float:
    """The scale of the converted model's (single) output: one quantization step."""
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    dq = out[0] if isinstance(out, (tuple, list)) else out
    assert "dequantize_per_tensor" in str(dq.target), f"output is not dequantized: {dq.target}"
    return float(dq.args[1])


@dataclasses.dataclass(frozen=True)
class Agreement:
    """A quantized .pte's result against the convert_pt2e model and the float model."""

    within_one_step: float  # fraction of the outputs within one step of convert_pt2e
    max_steps: float        # the largest difference from convert_pt2e, in output steps
    sqnr: float             # mean SQNR of the .pte's result against the float model, dB
    sqnr_convert_pt2e: float


def agreement(gm: GraphModule, model: torch.nn.Module, x: torch.Tensor, got: torch.Tensor) -> Agreement:
    """How close ``got`` (the .pte's result on ``x``) is to convert_pt2e model ``gm`` and float ``model``."""
    step = output_step(gm)
    with torch.no_grad():
        want, reference = gm(x), model(x)
    return Agreement(within_one_step(want, got, step), ((got - want).abs().max() / step).item(),
                     mean_sqnr(reference, got), mean_sqnr(reference, want))


def quantized_inside(raw: bytes) -> list[str]:
    """The operations of a blob; asserts that none but an edge QUANTIZE / DEQUANTIZE
    touches a float tensor."""
    blob = fb_blob.Blob.GetRootAs(raw, 0)
    inputs = {blob.ModelInputs(i) for i in range(blob.ModelInputsLength())}
    outputs = {blob.ModelOutputs(i) for i in range(blob.ModelOutputsLength())}
    names = []
    for i in range(blob.OperationsLength()):
        op = blob.Operations(i)
        name = OperationCode(op.Type()).name
        ins = [op.Inputs(j) for j in range(op.InputsLength())]
        outs = [op.Outputs(j) for j in range(op.OutputsLength())]
        names.append(name)
        if name == "QUANTIZE":
            assert ins[0] in inputs, "QUANTIZE inside the partition (its input is not a partition input)"
        elif name == "DEQUANTIZE":
            assert outs[0] in outputs, "DEQUANTIZE inside the partition (its output is not a partition output)"
        else:
            for k in ins + outs:
                assert blob.Operands(k).Type() not in FLOAT_TENSORS, f"{name} reads or writes a float tensor"
    return names
