"""aten.cos -> 1 - 2·sin²(x/2): MUL / SIN / MUL / MUL / SUB (SIN: API 29; NNAPI has no COS).

Not SIN(x + π/2): rounding x + π/2 to float32 moves a large argument by up to half its ulp
(cos(1000) off by ~3e-5). Halving is exact, so the half-angle form keeps the argument and
only adds a few roundings near 1 to the result.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import check_float_tensors, check_rank
from .elementwise_chain import ElementwiseChain
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class CosBuilder(NodeBuilder):
    ops = (OpSupport(aten.cos.default, FeatureLevel.ANDROID_10, "MUL / SIN / SUB", "float32, rank 1-4"),)
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, what="cos input")  # MUL and SUB take rank 1-4

    def define(self, node: Node, lc: LoweringContext) -> None:
        c = ElementwiseChain(lc, node)
        sine = c.op(OperationCode.SIN, [c.op(OperationCode.MUL, [c.x, c.const(0.5)])])
        twice_square = c.op(OperationCode.MUL, [c.op(OperationCode.MUL, [sine, sine]), c.const(2.0)])
        c.op(OperationCode.SUB, [c.const(1.0), twice_square], last=True)
