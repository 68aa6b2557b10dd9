"""aten.squeeze_copy (.dims / .dim / .default) -> RESHAPE that drops size-1 dims
in the input's own dim order (no TRANSPOSE), or a relabel when nothing is dropped."""

from __future__ import annotations

from typing import Sequence

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import Dim, is_static
from .common import MAX_RANK, check_float_tensors, check_rank, remove_dims
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .view import check_integer_reshape, emit_integer_reshape

aten = torch.ops.aten


def squeezed_dims(node: Node) -> list[int]:
    """Logical input dims the node removes (requested dims whose size is 1)."""
    shape = tensor_shape(node.args[0])
    rank = len(shape)
    if len(node.args) < 2 or node.args[1] is None:
        requested = list(range(rank))
    elif isinstance(node.args[1], int):
        requested = [node.args[1]]
    else:
        requested = list(node.args[1])
    requested = sorted({normalize_dim(d, rank) for d in requested}) if rank else []
    return [d for d in requested if is_static(shape[d]) and shape[d] == 1]


def emit_unit_reshape(lc: LoweringContext, node: Node, source: Node, out_order: Sequence[int],
                      out_shape: Sequence[Dim]) -> None:
    """RESHAPE ``source`` (in its produced order) to ``node``'s value stored in ``out_order``.

    Valid only when the two differ by size-1 dims: the physical element order is
    then the same whatever the order, so no TRANSPOSE is needed.
    """
    g = lc.graph
    physical = [out_shape[d] for d in out_order] or [1]
    out = lc.emit_output(node, out_order, shape=list(out_shape))
    g.emit_operation(OperationCode.RESHAPE, [lc.operand(source, lc.order(source)), g.emit_int32_vector(physical)],
                     [out], debug_name=node.name)


@register_builder
class SqueezeBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.squeeze_copy.dims, FeatureLevel.ANDROID_8_1, "RESHAPE (or relabel)", "float32 (int32 / int64 as a view's), rank <= 4, static squeezed dims"),
        OpSupport(aten.squeeze_copy.dim, FeatureLevel.ANDROID_8_1, "RESHAPE (or relabel)", "float32 (int32 / int64 as a view's), rank <= 4, static squeezed dim"),
        OpSupport(aten.squeeze_copy.default, FeatureLevel.ANDROID_8_1, "RESHAPE (or relabel)", "float32 (int32 / int64 as a view's), rank <= 4"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        if tensor_dtype(node) in (torch.int32, torch.int64) and tensor_dtype(x) == tensor_dtype(node) and squeezed_dims(node):
            check_integer_reshape(node, ctx, "squeeze")   # gather indices from a topk (D-FINE's)
        elif not squeezed_dims(node) and tensor_dtype(node) in (torch.int32, torch.int64, torch.bool):
            pass  # a relabel: no operation
        else:
            check_float_tensors(node, x)
        check_rank(x, MAX_RANK, min_rank=0, what="input")
        shape = tensor_shape(x)
        if len(node.args) > 1 and node.args[1] is not None:
            dims = [node.args[1]] if isinstance(node.args[1], int) else list(node.args[1])
            if any(not is_static(shape[normalize_dim(d, len(shape))]) for d in dims):
                raise Refused("dynamic dim in squeeze (whether it is removed depends on its size)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        removed = squeezed_dims(node)
        order = lc.order(x)
        out_shape = lc.shape(node)
        if not removed:
            value = lc.graph.value(lc.resolve(x))
            lc.graph.set_value(node, value.operand, value.dim_order, out_shape)
            return
        if tensor_dtype(node) in (torch.int32, torch.int64):
            emit_integer_reshape(lc, node)
            return
        if not out_shape:
            # Everything squeezed: NNAPI keeps such a value as [1] (as reductions do).
            if len(lc.shape(x)) == 1:
                value = lc.graph.value(lc.resolve(x))
                lc.graph.set_value(node, value.operand, value.dim_order, [1])
            else:
                emit_unit_reshape(lc, node, x, (0,), [1])
            return
        emit_unit_reshape(lc, node, x, remove_dims(order, removed), out_shape)
