"""aten.slice_copy.Tensor -> STRIDED_SLICE (API 28) on the physical axis; a
whole-dim slice is a relabel. Bounds may be computed at run time (a SymInt node, e.g.
swin's un-padding ``x[:, :H, :W]``): the shape program computes them."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import normalize_dim, tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .slicing import emit_strided_slice, shape_env_of, slice_bounds

aten = torch.ops.aten


def slice_args(node: Node) -> tuple[Node, int, object, object, object]:
    """(x, dim, start, end, step) with dim non-negative (start/end may be None)."""
    names = ("dim", "start", "end", "step")
    defaults = (0, None, None, 1)
    values = [node.args[i + 1] if len(node.args) > i + 1 else node.kwargs.get(n, dflt)
              for i, (n, dflt) in enumerate(zip(names, defaults))]
    x = node.args[0]
    dim, start, end, step = values
    return x, normalize_dim(dim, len(tensor_shape(x))), start, end, step


def _is_whole(start, end, step, size) -> bool:
    if isinstance(start, Node) or isinstance(end, Node):
        return False
    return (start in (None, 0) and step == 1
            and (end is None or end >= 2**31 - 1 or (is_static(size) and end >= size)))


@register_builder
class SliceBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.slice_copy.Tensor, FeatureLevel.ANDROID_8_1,
                  "STRIDED_SLICE (API 28); whole-dim slice is a relabel",
                  "float32, rank <= 4, step >= 1 constant, non-empty; start/end constant or a size computed "
                  "at run time whose sign is provable"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, dim, start, end, step = slice_args(node)
        check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        if not isinstance(step, int):
            raise Refused(f"slice step computed at run time ({step}); only a constant step is supported")
        if step < 1:
            raise Refused(f"slice with step {step}")
        # Raises Refused when a run-time bound cannot be computed or its sign decided.
        slice_bounds(start, end, tensor_shape(x)[dim], shape_env_of(x, node))
        if not _is_whole(start, end, step, tensor_shape(x)[dim]):
            ctx.require(FeatureLevel.ANDROID_9, "slice (STRIDED_SLICE)")
        if any(d == 0 for d in tensor_shape(node)):
            raise Refused("empty slice (NNAPI has no zero-sized tensors)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, dim, start, end, step = slice_args(node)
        size = lc.shape(x)[dim]
        if _is_whole(start, end, step, size):
            value = lc.graph.value(lc.resolve(x))
            lc.graph.set_value(node, value.operand, value.dim_order, lc.shape(node))
            return
        begin, stop = slice_bounds(start, end, size, shape_env_of(x, node))
        emit_strided_slice(lc, node, x, {dim: (begin, stop, step)})
