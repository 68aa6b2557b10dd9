"""aten.tanh -> TANH."""

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
class TanhBuilder(NodeBuilder):
    """TANH takes rank 1-4 from API 27."""

    ops = (
        OpSupport(aten.tanh.default, FeatureLevel.ANDROID_8_1, "TANH", "float32, rank 1-4"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK)

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_unary(lc, node, OperationCode.TANH)
