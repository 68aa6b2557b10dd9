"""aten.hardsigmoid -> RELU6(x + 3) * (1/6) as ADD (fused RELU6) + MUL (NNAPI has no hard sigmoid);
quantized (inside a QuantizedOpUnit), one 1x1 DEPTHWISE_CONV_2D computing x/6 + 1/2 whose output
range (scale 1/256, the type's lowest code as zero point: NnapiQuantizer) is the [0, 1) clamp."""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperandCode, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank
from .elementwise_chain import ElementwiseChain
from .hardswish import emit_relu6_x_plus_3_over_6
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


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


def define_quantized(node: Node, lc: LoweringContext) -> None:
    g = lc.graph
    x = node.args[0]
    inp = lc.operand(x, NHWC)
    out = lc.emit_output(node, NHWC)
    in_op = g.operands[inp]
    signed = in_op.type == OperandCode.TENSOR_QUANT8_ASYMM_SIGNED
    channels = int(lc.shape(x)[1])
    k, s_w, bias = sixth_weight(in_op.scale, 127 if signed else 255)
    w_type = OperandCode.TENSOR_QUANT8_ASYMM_SIGNED if signed else OperandCode.TENSOR_QUANT8_ASYMM
    filt = g.emit_quantized_constant(torch.full((1, 1, 1, channels), k, dtype=torch.int8 if signed else torch.uint8),
                                     w_type, scale=s_w, zero_point=0, debug_name=f"{node.name} (1/6)")
    bias_op = g.emit_quantized_constant(torch.full((channels,), bias, dtype=torch.int32), OperandCode.TENSOR_INT32,
                                        scale=_f32(in_op.scale * s_w), debug_name=f"{node.name} (1/2)")
    zeros = [g.emit_int32(0) for _ in range(4)]
    ones = [g.emit_int32(1) for _ in range(3)]  # strides, depth multiplier
    g.emit_operation(OperationCode.DEPTHWISE_CONV_2D,
                     [inp, filt, bias_op, *zeros, *ones, g.emit_int32(int(FuseCode.NONE))], [out],
                     debug_name=node.name)


@register_builder
class HardsigmoidBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.hardsigmoid.default, FeatureLevel.ANDROID_8_1, "ADD (fused RELU6) + MUL; quantized: DEPTHWISE_CONV_2D",
                  "float32, rank 1-4; quantized: 4-D, output scale 1/256 at the lowest code", keep=True),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK)

    def define(self, node: Node, lc: LoweringContext) -> None:
        if lc.quant_params(node) is not None:
            define_quantized(node, lc)
            return
        emit_relu6_x_plus_3_over_6(ElementwiseChain(lc, node), last=True)
