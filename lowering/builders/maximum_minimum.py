"""aten.maximum / minimum -> MAXIMUM / MINIMUM (API 29, broadcasting like the binary ops)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op
from .common import check_float_tensors, check_rank, elementwise_operands
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .quantization import requantizing
from .registry import register_builder

aten = torch.ops.aten

_CODES = {aten.maximum.default: OperationCode.MAXIMUM, aten.minimum.default: OperationCode.MINIMUM}


@register_builder
class MaximumMinimumBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.maximum.default, FeatureLevel.ANDROID_10, "MAXIMUM", "float32, broadcasting",
                  quantized=requantizing(aten.maximum.default, since=FeatureLevel.ANDROID_10, inputs=(0, 1))),
        OpSupport(aten.minimum.default, FeatureLevel.ANDROID_10, "MINIMUM", "float32, broadcasting",
                  quantized=requantizing(aten.minimum.default, since=FeatureLevel.ANDROID_10, inputs=(0, 1))),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        a, b = node.args[:2]
        check_float_tensors(node, a, b)
        check_rank(node, max_rank=1 << 30, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        operands, order = elementwise_operands(lc, node, node.args[:2])
        out = lc.emit_output(node, order)
        lc.graph.emit_operation(_CODES[aten_op(node)], operands, [out], debug_name=node.name)
