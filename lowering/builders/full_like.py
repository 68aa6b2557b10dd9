"""aten.full_like(x, value) (also ``t.fill_(v)`` / ``t.zero_()``, which to_edge decomposes into
it): every element ``value`` in ``x``'s shape -> a constant (static shape) or FILL (symbolic
shape, API 30). The zeros of attention's masked softmax are that unit's (builders/masked_softmax.py)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from .common import MAX_RANK, check_float_tensors, check_rank, is_scalar
from .full import emit_filled, require_fill
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def _fill_value(node: Node):
    return node.args[1] if len(node.args) > 1 else node.kwargs.get("fill_value")


@register_builder
class FullLikeBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.full_like.default, FeatureLevel.ANDROID_8_1,
                  "static: a constant; symbolic shape: FILL (API 30); in a masked softmax: no operation",
                  "float32, rank 1..4, constant fill value"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        # The partitioner takes the node before this check when it is part of a masked softmax.
        check_float_tensors(node)
        check_rank(node, MAX_RANK, what="output")
        value = _fill_value(node)
        if not is_scalar(value):
            raise Refused(f"full_like with a fill value computed at run time ({value})")
        require_fill(node, ctx, "full_like")

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_filled(lc, node, float(_fill_value(node)))
