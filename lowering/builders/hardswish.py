"""aten.hardswish -> HARD_SWISH (API 30), or x * (RELU6(x + 3) * 1/6) with ADD/MUL below; quantized
below API 30, x * hardsigmoid(x): a 1x1 DEPTHWISE_CONV_2D gate (quantized_hard_sigmoid.py) and MUL."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..node_utils import QuantParams
from ..nnapi_codes import FeatureLevel, FuseCode, OperandCode, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank, emit_unary
from .elementwise_chain import ElementwiseChain
from .quantized_hard_sigmoid import GATE_SCALE, as_4d_dims, check_quantized_gate, emit_quantized_hardsigmoid, reshaped
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import dequantized_params, input_rank_1_to_4, requantizing
from .registry import register_builder

aten = torch.ops.aten


def emit_relu6_x_plus_3_over_6(chain: ElementwiseChain, *, last: bool) -> int:
    """RELU6(x + 3) / 6 (hardsigmoid): ADD with a fused RELU6, then MUL by 1/6."""
    shifted = chain.op(OperationCode.ADD, [chain.x, chain.const(3.0)], fuse=FuseCode.RELU6)
    return chain.op(OperationCode.MUL, [shifted, chain.const(1.0 / 6.0)], last=last)


def _define_quantized_gated(node: Node, lc: LoweringContext) -> None:
    """x * hardsigmoid(x) on 8-bit operands: the gate rounds to 1/256, then MUL requantizes."""
    g = lc.graph
    x = node.args[0]
    order = lc.order(x)  # elementwise: any dim order (see hardsigmoid.define_quantized)
    inp = lc.operand(x, order)
    in_op = g.operands[inp]
    out = lc.emit_output(node, order)
    lowest = -128 if in_op.type == OperandCode.TENSOR_QUANT8_ASYMM_SIGNED else 0
    dims = as_4d_dims(in_op.dims)  # below rank 4 the gate runs on a RESHAPE to 4-D
    gate = g.emit_operand(in_op.type, dims, scale=GATE_SCALE, zero_point=lowest,
                          debug_name=f"{node.name} (hardsigmoid)")
    emit_quantized_hardsigmoid(lc, f"{node.name} (hardsigmoid)", reshaped(lc, inp, dims, f"{node.name} (4-D)"),
                               dims[-1], gate)
    gate = reshaped(lc, gate, list(in_op.dims), f"{node.name} (gate)")
    g.emit_operation(OperationCode.MUL, [inp, gate, g.emit_int32(int(FuseCode.NONE))], [out], debug_name=node.name)


def _runs_quantized(node: Node, feature_level: int) -> bool:
    """HARD_SWISH from API 30; below, x * hardsigmoid(x) with a DEPTHWISE_CONV_2D gate (rank 1-4)."""
    return feature_level >= FeatureLevel.ANDROID_11 or input_rank_1_to_4(node, feature_level)


@register_builder
class HardswishBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.hardswish.default, FeatureLevel.ANDROID_8_1,
                  "HARD_SWISH (API 30); ADD + MUL below; quantized below API 30: DEPTHWISE_CONV_2D + MUL",
                  "float32; rank 1-4 below API 30; quantized below API 30: rank 1-4", keep=True,
                  quantized=requantizing(aten.hardswish.default, aten.hardswish_.default, check=_runs_quantized)),
    )
    layout = LayoutClass.ORDER_PRESERVING
    reads_merged_views = True  # emit_unary computes on a merged view as on any dim order

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        if ctx.feature_level >= FeatureLevel.ANDROID_11:
            check_rank(node, max_rank=1 << 30)  # HARD_SWISH has no upper rank limit
        else:
            # The ADD/MUL decomposition is limited to rank 4.
            check_rank(node, MAX_RANK, what="hardswish input below API 30")

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        if ctx.feature_level >= FeatureLevel.ANDROID_11:
            return
        (inp,) = dequantized_params(node)  # x * hardsigmoid(x): DEPTHWISE_CONV_2D + MUL
        check_quantized_gate(node, inp, QuantParams(GATE_SCALE, 0, 0, 255, inp.dtype), ctx)
        if not output.scale > inp.scale * GATE_SCALE:
            raise Refused("quantized hardswish below API 30 with output scale <= input scale / 256 (MUL)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        if lc.graph.feature_level >= FeatureLevel.ANDROID_11:
            emit_unary(lc, node, OperationCode.HARD_SWISH)
            return
        if lc.quant_params(node) is not None:
            _define_quantized_gated(node, lc)
            return
        chain = ElementwiseChain(lc, node)
        gate = emit_relu6_x_plus_3_over_6(chain, last=False)
        chain.op(OperationCode.MUL, [chain.x, gate], last=True)
