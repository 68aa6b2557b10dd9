"""aten.relu -> RELU (or folded into the producer's fused activation)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank, emit_unary
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class ReluBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.relu.default, FeatureLevel.ANDROID_8_1, "RELU or fused activation", "float32, rank <= 4"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK)

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_unary(lc, node, OperationCode.RELU)
