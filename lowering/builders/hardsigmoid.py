"""aten.hardsigmoid -> RELU6(x + 3) * (1/6) as ADD (fused RELU6) + MUL (NNAPI has no hard sigmoid);
quantized (inside a QuantizedOpUnit), one 1x1 DEPTHWISE_CONV_2D computing x/6 + 1/2 whose output
range (scale 1/256, the type's lowest code as zero point: NnapiQuantizer) is the [0, 1) clamp."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..node_utils import QuantParams
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank
from .elementwise_chain import ElementwiseChain
from .hardswish import emit_relu6_x_plus_3_over_6
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .quantization import UNIT_INTERVAL, dequantized_params, fixed_output, input_rank_1_to_4
from .quantized_hard_sigmoid import as_4d_dims, check_quantized_gate, emit_quantized_hardsigmoid, reshaped
from .registry import register_builder

aten = torch.ops.aten


def define_quantized(node: Node, lc: LoweringContext) -> None:
    # Every channel has the same weight and bias: the convolution is elementwise, so it runs
    # on the input in whatever dim order it has (its last physical dim as "channels").
    # Below rank 4 it runs on a RESHAPE to [1, 1, rows, last dim].
    g = lc.graph
    x = node.args[0]
    order = lc.order(x)
    inp = lc.operand(x, order)
    out = lc.emit_output(node, order)
    dims = as_4d_dims(g.operands[inp].dims)
    in4 = reshaped(lc, inp, dims, f"{node.name} (4-D input)")
    out4 = out if dims == list(g.operands[out].dims) else g.emit_operand(
        g.operands[out].type, dims, scale=g.operands[out].scale, zero_point=g.operands[out].zero_point,
        debug_name=f"{node.name} (4-D)")
    emit_quantized_hardsigmoid(lc, node.name, in4, dims[-1], out4)
    if out4 != out:
        g.emit_operation(OperationCode.RESHAPE, [out4, g.emit_int32_vector(g.operands[out].dims)], [out],
                         debug_name=f"{node.name} (reshape back)")


@register_builder
class HardsigmoidBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.hardsigmoid.default, FeatureLevel.ANDROID_8_1, "ADD (fused RELU6) + MUL; quantized: DEPTHWISE_CONV_2D",
                  "float32, rank 1-4; quantized: static rank 1-4, output scale 1/256 at the lowest code", keep=True,
                  quantized=fixed_output(UNIT_INTERVAL, aten.hardsigmoid.default, aten.hardsigmoid_.default,
                                         check=input_rank_1_to_4)),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK)

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        (inp,) = dequantized_params(node)
        check_quantized_gate(node, inp, output, ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        if lc.quant_params(node) is not None:
            define_quantized(node, lc)
            return
        emit_relu6_x_plus_3_over_6(ElementwiseChain(lc, node), last=True)
