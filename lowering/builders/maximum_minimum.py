"""aten.maximum / minimum -> MAXIMUM / MINIMUM (API 29, broadcasting like the binary ops)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, op_name
from . import register_builder
from .common import check_float_tensors, check_rank, elementwise_operands
from .node_builder import CheckContext, NodeBuilder

aten = torch.ops.aten

_CODES = {aten.maximum.default: OperationCode.MAXIMUM, aten.minimum.default: OperationCode.MINIMUM}


@register_builder
class MaximumMinimumBuilder(NodeBuilder):
    targets = tuple(_CODES)

    def check(self, node: Node, ctx: CheckContext) -> None:
        a, b = node.args[:2]
        check_float_tensors(node, a, b)
        code = _CODES[aten_op(node)]
        ctx.require(FeatureLevel.ANDROID_10, f"{op_name(aten_op(node))} ({code.name})")
        check_rank(node, max_rank=1 << 30, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        operands, order = elementwise_operands(lc, node, node.args[:2])
        out = lc.emit_output(node, order)
        lc.graph.emit_operation(_CODES[aten_op(node)], operands, [out], debug_name=node.name)
