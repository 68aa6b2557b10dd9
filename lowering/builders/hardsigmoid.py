"""aten.hardsigmoid -> RELU6(x + 3) * (1/6) as ADD (fused RELU6) + MUL (NNAPI has no hard sigmoid)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from .common import MAX_RANK, check_float_tensors, check_rank
from .elementwise_chain import ElementwiseChain
from .hardswish import emit_relu6_x_plus_3_over_6
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class HardsigmoidBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.hardsigmoid.default, FeatureLevel.ANDROID_8_1, "ADD (fused RELU6) + MUL", "float32, rank 1-4", keep=True),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK)

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_relu6_x_plus_3_over_6(ElementwiseChain(lc, node), last=True)
