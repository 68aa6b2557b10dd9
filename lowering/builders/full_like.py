"""aten.full_like: taken only as the zeros of attention's masked softmax
(a MaskedSoftmaxUnit, builders/masked_softmax.py), which emits no operation for it; alone it is refused."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class FullLikeBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.full_like.default, FeatureLevel.ANDROID_10, "(part of a masked softmax)", "only the zeros of a masked softmax"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        # The partitioner takes the node before this check when it is part of a masked softmax.
        raise Refused("full_like outside a masked softmax is not lowered")

    def define(self, node: Node, lc: LoweringContext) -> None:
        raise LoweringError(f"{node.name}: full_like outside a masked softmax (partitioner bug)")
