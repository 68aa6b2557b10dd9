"""aten.fill.Scalar / fill.Tensor (``t.fill_(v)``, ``t[...] = v`` after functionalization):
every element the value -> a constant (static shape) or FILL (symbolic shape, API 30); a
0-d value computed at run time is broadcast (zeros + ADD)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from .common import MAX_RANK, check_float_tensors, check_rank, is_scalar
from .full import emit_broadcast, emit_filled, require_fill, uniform_value
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class FillBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.fill.Scalar, FeatureLevel.ANDROID_8_1, "static: a constant; symbolic shape: FILL (API 30)",
                  "float32, rank 1..4"),
        OpSupport(aten.fill.Tensor, FeatureLevel.ANDROID_8_1,
                  "static: a constant; symbolic shape: FILL (API 30); a computed value: zeros + ADD",
                  "float32, rank 1..4, 0-d value"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        value = node.args[1]
        check_float_tensors(node, node.args[0], value)
        check_rank(node, MAX_RANK, what="output")
        if isinstance(value, Node):
            if uniform_value(ctx.folded_value(value)) is None and len(value.meta["val"].shape) != 0:
                raise Refused("fill with a value that is not 0-d")
        elif not is_scalar(value):
            raise Refused(f"fill with a value computed at run time ({value})")
        require_fill(node, ctx, "fill")

    def define(self, node: Node, lc: LoweringContext) -> None:
        value = node.args[1]
        if isinstance(value, Node):
            known = uniform_value(lc.constant(value)) if lc.is_constant(value) else None
            if known is None:
                emit_broadcast(lc, node, value)
                return
            value = known
        emit_filled(lc, node, float(value))
