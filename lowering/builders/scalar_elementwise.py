"""aten.add / sub / mul / div .Scalar (tensor op Python number) -> ADD / MUL / DIV
with a [1]-shaped constant, in the tensor's own dim order.

``x - b`` is emitted as ADD of ``-b * alpha`` (exact in IEEE arithmetic, and
ADD exists from API 27); division stays DIV, since multiplying by ``1 / b``
would round differently.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op
from .common import MAX_RANK, check_float_tensors, check_rank, fuse_operand, is_scalar
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

_CODES = {
    aten.add.Scalar: OperationCode.ADD,
    aten.sub.Scalar: OperationCode.ADD,  # x + (-b)
    aten.mul.Scalar: OperationCode.MUL,
    aten.div.Scalar: OperationCode.DIV,
}


def scalar_operand(node: Node) -> float:
    """The number combined with the tensor (sub folded into a negated addend)."""
    op = aten_op(node)
    b = float(node.args[1])
    alpha = node.args[2] if len(node.args) > 2 else node.kwargs.get("alpha", 1)
    if op == aten.add.Scalar:
        return b * alpha
    if op == aten.sub.Scalar:
        return -(b * alpha)
    return b


@register_builder
class ScalarElementwiseBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.add.Scalar, FeatureLevel.ANDROID_8_1, "ADD", "float32, rank <= 4, number operand, alpha"),
        OpSupport(aten.sub.Scalar, FeatureLevel.ANDROID_8_1, "ADD (of the negated number)", "float32, rank <= 4, number operand, alpha"),
        OpSupport(aten.mul.Scalar, FeatureLevel.ANDROID_8_1, "MUL", "float32, rank <= 4, number operand"),
        OpSupport(aten.div.Scalar, FeatureLevel.ANDROID_9, "DIV", "float32, rank <= 4, number operand"),
    )
    fuses_activation = True

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, b = node.args[:2]
        check_float_tensors(node, x)
        check_rank(node, MAX_RANK, what="output")
        if not isinstance(x, Node) or not is_scalar(b):
            raise Refused(f"{aten_op(node).__name__} of {type(x).__name__} and {type(b).__name__}")
        if node.kwargs.get("rounding_mode") is not None:
            raise Refused(f"div with rounding_mode={node.kwargs['rounding_mode']!r}")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        g = lc.graph
        order = lc.order(x)
        b_op = g.emit_constant_tensor(torch.tensor([scalar_operand(node)], dtype=torch.float32))
        out = lc.emit_output(node, order)
        g.emit_operation(_CODES[aten_op(node)], [lc.operand(x, order), b_op, fuse_operand(lc, node)], [out],
                         debug_name=node.name)
