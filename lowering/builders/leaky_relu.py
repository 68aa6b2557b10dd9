"""aten.leaky_relu -> PRELU with a constant [1] alpha (NNAPI has no LEAKY_RELU)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import check_float_tensors, check_rank, emit_unary
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


def _negative_slope(node: Node) -> float:
    return float(node.args[1] if len(node.args) > 1 else node.kwargs.get("negative_slope", 0.01))


@register_builder
class LeakyReluBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.leaky_relu.default, FeatureLevel.ANDROID_10, "PRELU", "float32, constant [1] alpha"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, max_rank=1 << 30)  # PRELU has no upper rank limit

    def define(self, node: Node, lc: LoweringContext) -> None:
        alpha = lc.graph.emit_constant_tensor(torch.tensor([_negative_slope(node)], dtype=torch.float32))
        emit_unary(lc, node, OperationCode.PRELU, [alpha])
