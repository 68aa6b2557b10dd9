"""aten.pow.Tensor_Scalar -> MUL(x, x) for exponent 2, SQRT for 0.5, else POW (API 29)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank, emit_unary, is_scalar
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def _exponent(node: Node):
    return node.args[1] if len(node.args) > 1 else node.kwargs.get("exponent")


def _form(node: Node) -> OperationCode:
    """The operation used for this node: MUL (square, API 27, rank <= 4), SQRT or POW."""
    exponent = float(_exponent(node))
    rank = len(node.meta["val"].shape)
    if exponent == 2.0 and rank <= MAX_RANK:
        return OperationCode.MUL
    if exponent == 0.5:
        return OperationCode.SQRT
    return OperationCode.POW


@register_builder
class PowBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.pow.Tensor_Scalar, FeatureLevel.ANDROID_8_1, "MUL (exponent 2); SQRT / POW (API 29)",
                  "float32, scalar exponent; exponents other than 2 need API 29"),
    )
    layout = LayoutClass.ORDER_PRESERVING
    reads_merged_views = True  # emit_unary computes on a merged view as on any dim order

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        exponent = _exponent(node)
        if not is_scalar(exponent):
            raise Refused(f"pow with exponent {exponent!r} (a real number is needed)")
        check_rank(node, max_rank=1 << 30)
        form = _form(node)
        if form != OperationCode.MUL:
            ctx.require(FeatureLevel.ANDROID_10, f"pow with exponent {exponent} ({form.name})")

    def define(self, node: Node, lc: LoweringContext) -> None:
        form = _form(node)
        g = lc.graph
        if form == OperationCode.MUL:
            x = lc.operand(node.args[0], lc.order(node.args[0]))
            emit_unary(lc, node, OperationCode.MUL, [x, g.emit_int32(0)])
        elif form == OperationCode.SQRT:
            emit_unary(lc, node, OperationCode.SQRT)
        else:
            exponent = g.emit_constant_tensor(torch.tensor([float(_exponent(node))], dtype=torch.float32))
            emit_unary(lc, node, OperationCode.POW, [exponent])
