"""STRIDED_SLICE emission shared by slice_copy, select_copy and split_with_sizes_copy."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import sympy
import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..shape_program import Dim, as_dim, describe_unsupported, is_static, reads_tensor_data
from ..size_bounds import provably_at_least, provably_at_most
from .common import physical_axis
from .node_builder import Refused

# PyTorch spells "to the end" as a huge end (sys.maxsize); anything past INT32 is that.
INT32_MAX = 2**31 - 1


def shape_env_of(*values: Any) -> Any:
    """The ShapeEnv of the first symbolic size among ``values`` (nodes, fake tensors or
    SymInts), or None when every size is static."""
    for value in values:
        val = value.meta.get("val") if isinstance(value, Node) else value
        sizes = val.shape if isinstance(val, torch.Tensor) else [val]
        for size in sizes:
            if isinstance(size, torch.SymInt):
                return size.node.shape_env
    return None


def slice_index(index: Any, size: Dim, shape_env: Any, what: str) -> Dim:
    """PyTorch's slice index rule (negative counts from the end, then clamp to [0, size]) for a
    constant or a run-time ``index`` (a SymInt node: its expression is computed by the shape
    program). The clamp is left out where it provably changes nothing; the sign of a run-time
    index must be provable (Refused otherwise)."""
    if isinstance(index, Node):
        val = index.meta.get("val")
        if not isinstance(val, torch.SymInt):
            raise Refused(f"slice {what} {index.name} is not an integer")
        expr = as_dim(val)
        reason = describe_unsupported([expr])
        if reason:
            raise Refused(f"slice {what} {index.name}: {reason}")
        if provably_at_least(expr, 0, shape_env):
            index = expr
        elif provably_at_most(expr, -1, shape_env):
            index = expr + size
            if not provably_at_least(index, 0, shape_env):
                index = sympy.Max(0, index)
            return index
        else:
            raise Refused(f"slice {what} {expr} may be negative or not (cannot decide how PyTorch wraps it)")
    elif index < 0:
        if is_static(size):
            return max(0, index + size)
        wrapped = size + index
        return wrapped if provably_at_least(wrapped, 0, shape_env) else sympy.Max(0, wrapped)
    if is_static(size) and is_static(index):
        return min(index, size)
    if provably_at_least(size - index, 0, shape_env):
        return index
    if provably_at_least(index - size, 0, shape_env):
        return size
    return sympy.Min(index, size)


def slice_bounds(start: Any, end: Any, size: Dim, shape_env: Any = None) -> tuple[Dim, Optional[Dim]]:
    """(begin, end) of a PyTorch slice on a dim of ``size``; end None means "to the end".
    ``start``/``end`` are None, ints, or SymInt nodes computed at run time."""
    begin = slice_index(start, size, shape_env, "start") if start is not None else 0
    if end is None or (isinstance(end, int) and (end >= INT32_MAX or (is_static(size) and end >= size))):
        return begin, None
    stop = slice_index(end, size, shape_env, "end")
    if sympy.sympify(stop - size) == 0:
        return begin, None
    return begin, stop


def strided_slice_inputs(lc: LoweringContext, source: int, order: Sequence[int],
                         bounds: Mapping[int, tuple[Dim, Optional[Dim], int]], shrink: Sequence[int] = ()) -> list[int]:
    """STRIDED_SLICE's inputs slicing operand ``source`` (stored in ``order``).

    ``bounds`` maps a logical dim to (begin, end or None for "to the end", step);
    other dims are taken whole through the begin/end masks, so their (possibly
    dynamic) sizes never need an expression. ``shrink`` lists logical dims
    dropped by shrink_axis_mask (their slice must be one element).
    """
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
    return [source, g.emit_int32_vector(begin), g.emit_int32_vector(end), g.emit_int32_vector(strides),
            g.emit_int32(begin_mask), g.emit_int32(end_mask), g.emit_int32(shrink_mask)]


def _run_time_start(lc: LoweringContext, node: Node, bounds: Mapping[int, tuple[Dim, Optional[Dim], int]],
                    shrink: Sequence[int], same_order: bool) -> int | None:
    """The dim of a one-dim slice whose start is read from a tensor at run time (a KV cache's
    position) but whose length is not, when GATHER (API 29) can take it: then the indices are
    given to NNAPI at every execution and a new position needs no new compiled model."""
    if len(bounds) != 1 or shrink or not same_order or lc.graph.feature_level < FeatureLevel.ANDROID_10:
        return None
    (dim, (begin, _, _)), = bounds.items()
    length = (lc.shape(node) or [1])[dim]
    if reads_tensor_data(length) or not lc.graph.per_execution_values([begin]):
        return None
    return dim


def emit_strided_slice(lc: LoweringContext, node: Node, source: Node,
                       bounds: Mapping[int, tuple[Dim, Optional[Dim], int]], shrink: Sequence[int] = (),
                       out_order: Sequence[int] | None = None) -> int:
    """STRIDED_SLICE of ``source`` (in its produced order) into ``node``'s value
    (``bounds`` and ``shrink``: :func:`strided_slice_inputs`); a slice at a position read from a
    tensor is a GATHER of indices computed at every execution instead."""
    order = lc.order(source)
    out_shape = lc.shape(node) or [1]
    out = lc.emit_output(node, tuple(out_order) if out_order is not None else order, shape=out_shape)
    dim = _run_time_start(lc, node, bounds, shrink, out_order is None or tuple(out_order) == tuple(order))
    if dim is not None:
        begin, _, step = bounds[dim]
        g = lc.graph
        indices = g.emit_per_execution_arange(begin, out_shape[dim], step)
        g.emit_operation(OperationCode.GATHER,
                         [lc.operand(source, order), g.emit_int32(physical_axis(order, dim)), indices], [out],
                         debug_name=node.name)
        return out
    lc.graph.emit_operation(OperationCode.STRIDED_SLICE,
                            strided_slice_inputs(lc, lc.operand(source, order), order, bounds, shrink), [out],
                            debug_name=node.name)
    return out


__all__ = ["INT32_MAX", "emit_strided_slice", "shape_env_of", "slice_bounds", "slice_index", "strided_slice_inputs"]
