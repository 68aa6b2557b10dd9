"""aten.hardswish -> HARD_SWISH (API 30), or x * (RELU6(x + 3) * 1/6) with ADD/MUL below."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank, emit_unary
from .elementwise_chain import ElementwiseChain
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


def emit_relu6_x_plus_3_over_6(chain: ElementwiseChain, *, last: bool) -> int:
    """RELU6(x + 3) / 6 (hardsigmoid): ADD with a fused RELU6, then MUL by 1/6."""
    shifted = chain.op(OperationCode.ADD, [chain.x, chain.const(3.0)], fuse=FuseCode.RELU6)
    return chain.op(OperationCode.MUL, [shifted, chain.const(1.0 / 6.0)], last=last)


@register_builder
class HardswishBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.hardswish.default, FeatureLevel.ANDROID_8_1, "HARD_SWISH (API 30); ADD + MUL below",
                  "float32; rank 1-4 below API 30", keep=True),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        if ctx.feature_level >= FeatureLevel.ANDROID_11:
            check_rank(node, max_rank=1 << 30)  # HARD_SWISH has no upper rank limit
        else:
            # The ADD/MUL decomposition is limited to rank 4.
            check_rank(node, MAX_RANK, what="hardswish input below API 30")

    def define(self, node: Node, lc: LoweringContext) -> None:
        if lc.graph.feature_level >= FeatureLevel.ANDROID_11:
            emit_unary(lc, node, OperationCode.HARD_SWISH)
            return
        chain = ElementwiseChain(lc, node)
        gate = emit_relu6_x_plus_3_over_6(chain, last=False)
        chain.op(OperationCode.MUL, [chain.x, gate], last=True)
