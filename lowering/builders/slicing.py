"""STRIDED_SLICE emission shared by slice_copy, select_copy and split_with_sizes_copy."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import sympy
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import OperationCode
from ..shape_program import Dim, is_static

# PyTorch spells "to the end" as a huge end (sys.maxsize); anything past INT32 is that.
INT32_MAX = 2**31 - 1


def clamp_index(index: int, size: Dim) -> Dim:
    """PyTorch's slice index rule: negative counts from the end, then clamp to [0, size]."""
    if index < 0:
        return max(0, index + size) if is_static(size) else sympy.Max(0, size + index)
    if is_static(size):
        return min(index, size)
    return sympy.Min(index, size)


def slice_bounds(start: Optional[int], end: Optional[int], size: Dim) -> tuple[Dim, Optional[Dim]]:
    """(begin, end) of a PyTorch slice on a dim of ``size``; end None means "to the end"."""
    begin = clamp_index(start, size) if start is not None else 0
    if end is None or end >= INT32_MAX or (is_static(size) and end >= size):
        return begin, None
    return begin, clamp_index(end, size)


def emit_strided_slice(lc: LoweringContext, node: Node, source: Node,
                       bounds: Mapping[int, tuple[Dim, Optional[Dim], int]], shrink: Sequence[int] = (),
                       out_order: Sequence[int] | None = None) -> int:
    """STRIDED_SLICE of ``source`` (in its produced order) into ``node``'s value.

    ``bounds`` maps a logical dim to (begin, end or None for "to the end", step);
    other dims are taken whole through the begin/end masks, so their (possibly
    dynamic) sizes never need an expression. ``shrink`` lists logical dims
    dropped by shrink_axis_mask (their slice must be one element).
    """
    order = lc.order(source)
    begin, end, strides = [], [], []
    begin_mask = end_mask = shrink_mask = 0
    for i, d in enumerate(order):
        if d in bounds:
            b, e, step = bounds[d]
            begin.append(b)
            end.append(0 if e is None else e)
            if e is None:
                end_mask |= 1 << i
            strides.append(step)
        else:
            begin.append(0)
            end.append(0)
            strides.append(1)
            begin_mask |= 1 << i
            end_mask |= 1 << i
        if d in shrink:
            shrink_mask |= 1 << i
    g = lc.graph
    out_shape = lc.shape(node) or [1]
    out = lc.emit_output(node, tuple(out_order) if out_order is not None else order, shape=out_shape)
    g.emit_operation(OperationCode.STRIDED_SLICE,
                     [lc.operand(source, order), g.emit_int32_vector(begin), g.emit_int32_vector(end),
                      g.emit_int32_vector(strides), g.emit_int32(begin_mask), g.emit_int32(end_mask),
                      g.emit_int32(shrink_mask)], [out], debug_name=node.name)
    return out


__all__ = ["INT32_MAX", "clamp_index", "emit_strided_slice", "slice_bounds"]
