"""aten.abs / neg / exp / sqrt / rsqrt -> ABS / NEG / EXP / SQRT / RSQRT (API 29)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op
from .common import check_float_tensors, check_rank, emit_unary
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten

_CODES = {
    aten.abs.default: OperationCode.ABS,
    aten.neg.default: OperationCode.NEG,
    aten.exp.default: OperationCode.EXP,
    aten.sqrt.default: OperationCode.SQRT,
    aten.rsqrt.default: OperationCode.RSQRT,
}


@register_builder
class UnaryMathBuilder(NodeBuilder):
    """One-input float ops that NNAPI has from API 29 with no upper rank limit."""

    ops = (
        OpSupport(aten.abs.default, FeatureLevel.ANDROID_10, "ABS", "float32"),
        OpSupport(aten.neg.default, FeatureLevel.ANDROID_10, "NEG", "float32"),
        OpSupport(aten.exp.default, FeatureLevel.ANDROID_10, "EXP", "float32"),
        OpSupport(aten.sqrt.default, FeatureLevel.ANDROID_10, "SQRT", "float32"),
        OpSupport(aten.rsqrt.default, FeatureLevel.ANDROID_10, "RSQRT", "float32"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, max_rank=1 << 30)

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_unary(lc, node, _CODES[aten_op(node)])
