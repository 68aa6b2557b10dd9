"""aten.unsqueeze_copy -> RESHAPE inserting a size-1 dim in the input's own dim
order (no TRANSPOSE), or a relabel for a 0-d input (already stored as [1]). An int32 / int64
tensor (held in TENSOR_INT32, which RESHAPE does not take) -> EXPAND_DIMS (API 29) in
PyTorch's dim order."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import is_tensor_node, normalize_dim, tensor_dtype, tensor_shape
from .bool_values import check_bool_conversion, emit_bool_reshape, emit_result, keeps_integer_dtype, operand
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, NodeBuilder, OpSupport
from .registry import register_builder
from .squeeze import emit_unit_reshape

aten = torch.ops.aten


def insert_dim(order: tuple[int, ...], dim: int) -> tuple[int, ...]:
    """Dim order after inserting logical dim ``dim`` (size 1) into a value stored in ``order``.

    The new dim is placed right after logical dim ``dim - 1`` (first if ``dim`` is
    0), so an identity order stays identity; any place is valid for a size-1 dim.
    """
    shifted = [d + 1 if d >= dim else d for d in order]
    position = shifted.index(dim - 1) + 1 if dim > 0 else 0
    return tuple(shifted[:position] + [dim] + shifted[position:])


@register_builder
class UnsqueezeBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.unsqueeze_copy.default, FeatureLevel.ANDROID_8_1, "RESHAPE; EXPAND_DIMS for integers",
                  "float32, output rank <= 4; bool from API 29 (SELECT, RESHAPE, NOT_EQUAL), static sizes; "
                  "int32 / int64 (held in int32) from API 29"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        if is_tensor_node(node.args[0]) and tensor_dtype(node.args[0]) == torch.bool:
            check_bool_conversion(node, ctx, "unsqueeze of a bool tensor")
            return
        if keeps_integer_dtype(node):
            check_rank(node, MAX_RANK, what="output")
            if tensor_shape(node.args[0]):
                ctx.require(FeatureLevel.ANDROID_10, "unsqueeze of an integer tensor (EXPAND_DIMS)")
            return
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        if tensor_dtype(x) == torch.bool:
            emit_bool_reshape(lc, node, x)
            return
        out_shape = lc.shape(node)
        if len(tensor_shape(x)) == 0:
            value = lc.graph.value(lc.resolve(x))
            lc.graph.set_value(node, value.operand, (0,), out_shape)
            return
        dim = normalize_dim(node.args[1], len(out_shape))
        if keeps_integer_dtype(node):
            g = lc.graph
            g.emit_operation(OperationCode.EXPAND_DIMS, [operand(lc, x, lc.dtype(x)), g.emit_int32(dim)],
                             [emit_result(lc, node)], debug_name=node.name)
            return
        emit_unit_reshape(lc, node, x, insert_dim(lc.order(x), dim), out_shape)

