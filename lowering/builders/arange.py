"""aten.arange.start_step of a length known only at run time (``arange(n)`` with n a token
count) -> SLICE (API 29) of the constant ``start, start + step, ...`` as long as n can be, its
length computed by the shape program. int32 / int64 only (held in TENSOR_INT32); an arange of
static length is a constant, folded at lowering time, and never reaches this builder."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_dtype, tensor_shape
from ..shape_program import describe_unsupported
from ..size_bounds import greatest_value
from .bool_values import HELD_IN_INT32, emit_result
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .slicing import shape_env_of

aten = torch.ops.aten


def _longest(node: Node) -> int | None:
    """The most elements the arange can have over the program's ranges (None: unbounded)."""
    length = tensor_shape(node)[0]
    return length if isinstance(length, int) else greatest_value(length, shape_env_of(node))


@register_builder
class ArangeBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.arange.start_step, FeatureLevel.ANDROID_10, "SLICE of a constant",
                  "int32 / int64 (held in int32), number start and step, a length bounded by the program's ranges"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        start, _, step = (list(node.args) + [1])[:3]
        if tensor_dtype(node) not in HELD_IN_INT32:
            raise Refused(f"arange of dtype {tensor_dtype(node)} (int32 / int64 only)")
        if not (isinstance(start, int) and isinstance(step, int)):
            raise Refused("arange with a start or step computed at run time")
        reason = describe_unsupported(tensor_shape(node))
        if reason:
            raise Refused(f"arange: {reason}")
        if _longest(node) is None:
            raise Refused(f"arange of length {tensor_shape(node)[0]}, which the program's ranges do not bound")
        ctx.require(FeatureLevel.ANDROID_10, "arange of a length computed at run time (SLICE)")
        check_int64_result(node, ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        start, _, step = (list(node.args) + [1])[:3]
        g = lc.graph
        longest = _longest(node)
        values = g.emit_constant_tensor(torch.arange(longest, dtype=torch.int32) * step + start,
                                        debug_name=f"{node.name}.values")
        g.emit_operation(OperationCode.SLICE, [values, g.emit_int32_vector([0]), g.emit_int32_vector(lc.shape(node))],
                         [emit_result(lc, node)], debug_name=node.name)
