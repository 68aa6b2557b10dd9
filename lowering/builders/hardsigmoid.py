"""aten.hardsigmoid -> RELU6(x + 3) * (1/6) as ADD (fused RELU6) + MUL (NNAPI has no hard sigmoid);
quantized (inside a QuantizedOpUnit), one 1x1 DEPTHWISE_CONV_2D computing x/6 + 1/2 whose output
range (scale 1/256, the type's lowest code as zero point: NnapiQuantizer) is the [0, 1) clamp."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from .common import MAX_RANK, check_float_tensors, check_rank
from .elementwise_chain import ElementwiseChain
from .hardswish import emit_relu6_x_plus_3_over_6
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .quantized_hard_sigmoid import emit_quantized_hardsigmoid
from .registry import register_builder

aten = torch.ops.aten


def define_quantized(node: Node, lc: LoweringContext) -> None:
    # Every channel has the same weight and bias: the convolution is elementwise, so it runs
    # on the input in whatever dim order it has (its last physical dim as "channels").
    x = node.args[0]
    order = lc.order(x)
    inp = lc.operand(x, order)
    emit_quantized_hardsigmoid(lc, node.name, inp, lc.graph.operands[inp].dims[-1], lc.emit_output(node, order))


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
