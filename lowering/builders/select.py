"""aten.select_copy.int -> STRIDED_SLICE (API 28) with shrink_axis_mask on the physical axis; an
element of a 1-D int32 / int64 tensor (held in TENSOR_INT32, which STRIDED_SLICE does not take)
-> GATHER (API 29) of that index, a [1] operand standing for the 0-d result."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_shape
from ..shape_program import is_static
from .bool_values import emit_result, keeps_integer_dtype
from .common import MAX_RANK, check_float_tensors, check_rank, remove_dims
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .slicing import emit_strided_slice

aten = torch.ops.aten


@register_builder
class SelectBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.select_copy.int, FeatureLevel.ANDROID_9, "STRIDED_SLICE (shrink_axis_mask); GATHER for integers",
                  "float32, rank <= 4, constant index; int32 / int64 (held in int32) of rank 1 from API 29"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, dim, index = node.args[:3]
        if keeps_integer_dtype(node):
            if len(tensor_shape(x)) != 1:
                raise Refused(f"select in an integer tensor of rank {len(tensor_shape(x))} (GATHER, then a RESHAPE "
                              "that takes no TENSOR_INT32: rank 1 only)")
            ctx.require(FeatureLevel.ANDROID_10, "select in an integer tensor (GATHER)")
        else:
            check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        if not isinstance(index, int):
            raise Refused(f"select index computed at run time ({index}); only a constant index is supported")
        size = tensor_shape(x)[normalize_dim(dim, len(tensor_shape(x)))]
        if is_static(size) and not -size <= index < size:
            raise Refused(f"select index {index} out of range for size {size}")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, dim, index = node.args[:3]
        shape = lc.shape(x)
        dim = normalize_dim(dim, len(shape))
        begin = index + shape[dim] if index < 0 else index
        if keeps_integer_dtype(node):
            g = lc.graph
            g.emit_operation(OperationCode.GATHER, [lc.operand(x), g.emit_int32(0), g.emit_int32_vector([begin])],
                             [emit_result(lc, node)], debug_name=node.name)
            return
        order = lc.order(x)
        # All dims selected away: NNAPI's result is [1] (stored as a 1-D value).
        out_order = remove_dims(order, [dim]) if len(order) > 1 else (0,)
        emit_strided_slice(lc, node, x, {dim: (begin, begin + 1, 1)}, shrink=[dim], out_order=out_order)

