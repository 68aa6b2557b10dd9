"""Hard sigmoid on 8-bit operands, x/6 + 1/2 as one 1x1 DEPTHWISE_CONV_2D whose output (scale 1/256,
zero point at the type's lowest code: NnapiQuantizer) saturates to hardsigmoid's [0, 1) clamp.
Used by quantized hardsigmoid, and by quantized hardswish below API 30 (x * hardsigmoid(x), MUL)."""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperandCode, OperationCode
from ..node_utils import QuantParams, aten_op, op_name, tensor_shape
from .node_builder import CheckContext, Refused

# The gate's scale; its zero point is the type's lowest code (0 for uint8, -128 for int8).
GATE_SCALE = 1.0 / 256.0


def _f32(x: float) -> float:
    return float(torch.tensor(x, dtype=torch.float32))


def sixth_weight(s_in: float, max_code: int) -> tuple[int, float, int]:
    """(weight code k, weight scale, bias code) of x/6 + 1/2 on input scale ``s_in``.

    The weight k * (1/(6k)) is 1/6 up to float32 rounding; the bias 1/2 must be an integer in
    units of float32(s_in * s_w) = s_in/(6k), i.e. 3k/s_in, and its rounding error reaches the
    output as frac * s_in/(6k) (real). k is the code in [max_code/2, max_code] where that error
    is smallest, so that the result is x/6 + 1/2 to far below a rounding step."""
    best = None
    for k in range(max_code, max_code // 2, -1):
        s_w = _f32(1.0 / (6.0 * k))
        exact = 0.5 / _f32(s_in * s_w)
        err = abs(exact - round(exact)) * s_in / (6.0 * k)
        if best is None or err < best[0]:
            best = (err, k, s_w, int(round(exact)))
    _, k, s_w, bias = best
    return k, s_w, bias


def quantized_multiplier_ok(s_in: float, s_out: float, max_code: int, level: int) -> bool:
    """Before API 29 NNAPI requires the conv multiplier s_in*s_w/s_out below 1; the bias must fit int32."""
    k, s_w, bias = sixth_weight(s_in, max_code)
    fits = abs(bias) < 2**31 and math.isfinite(s_w)
    return fits and (level >= FeatureLevel.ANDROID_10 or _f32(s_in * s_w) / s_out < 1.0)


def check_quantized_gate(node: Node, inp: QuantParams, out: QuantParams, ctx: CheckContext) -> None:
    """Refuses a quantized hard sigmoid gate (1x1 DEPTHWISE_CONV_2D) of ``node``'s input ``inp`` into
    ``out`` unless the input has a static rank 1-4 and the convolution a valid multiplier."""
    shape = tensor_shape(node.args[0])
    if not 1 <= len(shape) <= 4 or not all(isinstance(d, int) for d in shape):
        raise Refused(f"quantized {op_name(aten_op(node))} of other than a static rank 1-4 tensor "
                      "(lowered with DEPTHWISE_CONV_2D)")
    if not quantized_multiplier_ok(inp.scale, out.scale, 127 if inp.dtype == torch.int8 else 255,
                                   ctx.feature_level):
        raise Refused(f"quantized hardsigmoid with input scale {inp.scale:g}: x/6 + 1/2 as a convolution "
                      "needs a multiplier below 1 before API 29 and an int32 bias")


def emit_quantized_hardsigmoid(lc: LoweringContext, name: str, inp: int, channels: int, out: int) -> None:
    """x/6 + 1/2 from 4-D 8-bit operand ``inp`` (read as NHWC, ``channels`` its last dim) into ``out``
    (scale 1/256 at the lowest code: its type's range is the clamp to [0, 1)), one 1x1 DEPTHWISE_CONV_2D."""
    g = lc.graph
    in_op = g.operands[inp]
    signed = in_op.type == OperandCode.TENSOR_QUANT8_ASYMM_SIGNED
    k, s_w, bias = sixth_weight(in_op.scale, 127 if signed else 255)
    filt = g.emit_quantized_constant(torch.full((1, 1, 1, channels), k, dtype=torch.int8 if signed else torch.uint8),
                                     in_op.type, scale=s_w, zero_point=0, debug_name=f"{name} (1/6)")
    bias_op = g.emit_quantized_constant(torch.full((channels,), bias, dtype=torch.int32), OperandCode.TENSOR_INT32,
                                        scale=_f32(in_op.scale * s_w), debug_name=f"{name} (1/2)")
    zeros = [g.emit_int32(0) for _ in range(4)]
    ones = [g.emit_int32(1) for _ in range(3)]  # strides, depth multiplier
    g.emit_operation(OperationCode.DEPTHWISE_CONV_2D,
                     [inp, filt, bias_op, *zeros, *ones, g.emit_int32(int(FuseCode.NONE))], [out], debug_name=name)


def reshaped(lc: LoweringContext, operand: int, dims: list[int], name: str) -> int:
    """``operand`` (8-bit, same parameters) RESHAPEd to ``dims``, or itself if already so."""
    g = lc.graph
    op = g.operands[operand]
    if list(op.dims) == dims:
        return operand
    out = g.emit_operand(op.type, dims, scale=op.scale, zero_point=op.zero_point, debug_name=name)
    g.emit_operation(OperationCode.RESHAPE, [operand, g.emit_int32_vector(dims)], [out], debug_name=name)
    return out


def as_4d_dims(dims: list[int]) -> list[int]:
    """A rank 1-4 tensor as DEPTHWISE_CONV_2D's 4-D input [1, 1, rows, last dim] (elementwise use)."""
    return list(dims) if len(dims) == 4 else [1, 1, math.prod(dims[:-1]), dims[-1]]
