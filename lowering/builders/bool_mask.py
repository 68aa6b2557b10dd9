"""eq.Scalar / logical_not / any.dim / full_like / where.self: taken only as parts of
attention's masked softmax (passes/safe_softmax.py), which is emitted with float
operations; alone they are refused, since the delegate has no TENSOR_BOOL8 path
(EQUAL, LOGICAL_NOT, REDUCE_ANY and SELECT are not lowered)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import LoweringError
from ..lowering_context import LoweringContext
from ..node_utils import aten_op
from . import register_builder
from .node_builder import CheckContext, NodeBuilder, Refused

aten = torch.ops.aten

_WHAT = {
    aten.eq.Scalar: "comparison to a bool mask (EQUAL)",
    aten.logical_not.default: "LOGICAL_NOT of a bool mask",
    aten.any.dim: "REDUCE_ANY of a bool mask",
    aten.where.self: "where() with a bool condition (SELECT)",
    aten.full_like.default: "full_like",
}


@register_builder
class MaskedSoftmaxPartBuilder(NodeBuilder):
    targets = tuple(_WHAT)

    def check(self, node: Node, ctx: CheckContext) -> None:
        # The partitioner takes these nodes before this check when they form a masked softmax.
        raise Refused(f"{_WHAT[aten_op(node)]} outside a masked softmax is not lowered "
                      "(the delegate has no TENSOR_BOOL8 path)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        raise LoweringError(f"{node.name}: {aten_op(node).__name__} outside a masked softmax (partitioner bug)")
