"""aten.reciprocal (what ``c / x`` becomes) -> DIV of a [1] constant 1.0 by x."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class ReciprocalBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.reciprocal.default, FeatureLevel.ANDROID_9, "DIV", "float32, rank <= 4 (c / x becomes c * reciprocal(x))"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        order = lc.order(x)
        g = lc.graph
        one = g.emit_constant_tensor(torch.ones(1, dtype=torch.float32))
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.DIV, [one, lc.operand(x, order), g.emit_int32(0)], [out], debug_name=node.name)
