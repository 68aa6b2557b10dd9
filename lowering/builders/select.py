"""aten.select_copy.int -> STRIDED_SLICE (API 28) with shrink_axis_mask on the physical axis."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import normalize_dim, tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank, remove_dims
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .slicing import emit_strided_slice

aten = torch.ops.aten


@register_builder
class SelectBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.select_copy.int, FeatureLevel.ANDROID_9, "STRIDED_SLICE (shrink_axis_mask)", "float32, rank <= 4, constant index"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, dim, index = node.args[:3]
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
        order = lc.order(x)
        # All dims selected away: NNAPI's result is [1] (stored as a 1-D value).
        out_order = remove_dims(order, [dim]) if len(order) > 1 else (0,)
        emit_strided_slice(lc, node, x, {dim: (begin, begin + 1, 1)}, shrink=[dim], out_order=out_order)
