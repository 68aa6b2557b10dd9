"""aten.copy.default(self, src) (``t[...] = v`` after functionalization): ``src`` broadcast to
``self``'s shape. A uniform constant ``src`` -> a constant (static shape) or FILL (symbolic
shape, API 30); ``src`` of ``self``'s shape -> a relabel (int32 / int64 too: Hugging Face's StaticCache
copies its position into a buffer); else zeros + ADD (broadcast)."""

from __future__ import annotations

import sympy
import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import tensor_dtype, tensor_shape
from .bool_values import HELD_IN_INT32
from .common import MAX_RANK, check_float_tensors, check_rank
from .full import emit_broadcast, emit_filled, require_fill, uniform_value
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def _same_shape(a: Node, b: Node) -> bool:
    sa, sb = tensor_shape(a), tensor_shape(b)
    return len(sa) == len(sb) and all(sympy.sympify(x - y) == 0 for x, y in zip(sa, sb))


@register_builder
class CopyBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.copy.default, FeatureLevel.ANDROID_8_1,
                  "uniform constant: a constant or FILL (API 30); same shape: a relabel; else zeros + ADD",
                  "float32, rank 1..4; int32 / int64 (held in int32) of self's shape"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        target, src = node.args[0], node.args[1]
        if not isinstance(src, Node):
            raise Refused(f"copy from a non-tensor {src!r}")
        if tensor_dtype(node) in HELD_IN_INT32 and tensor_dtype(src) in HELD_IN_INT32:
            if not _same_shape(node, src) or ctx.is_foldable(src):
                raise Refused("integer copy other than of a run-time value of self's shape")
            check_rank(node, MAX_RANK, min_rank=0, what="output")
            check_int64_result(node, ctx)
            return
        check_float_tensors(node, target, src)
        check_rank(node, MAX_RANK, what="output")
        if _same_shape(node, src) and uniform_value(ctx.folded_value(src)) is None:
            return  # a relabel
        require_fill(node, ctx, "copy")

    def define(self, node: Node, lc: LoweringContext) -> None:
        src = node.args[1]
        value = uniform_value(lc.constant(src)) if lc.is_constant(src) else None
        if value is not None:
            emit_filled(lc, node, value)
        elif _same_shape(node, src):
            produced = lc.graph.value(lc.resolve(src))
            lc.graph.set_value(node, produced.operand, produced.dim_order, lc.shape(node))
        else:
            emit_broadcast(lc, node, src)
