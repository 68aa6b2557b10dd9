"""aten.slice_scatter(self, src, dim, start, end, step=1) (``t[a:b] = v`` after
functionalization) -> CONCATENATION of STRIDED_SLICE(self, ..start), src and
STRIDED_SLICE(self, start + len(src)..) along dim, a part provably empty left out.

When a part may or may not be empty (a KV cache written at a run-time position ``p``: the part
before is empty at ``p = 0``), NNAPI, which has no zero-sized tensors, cannot take that form.
Then (API 29, a static size along dim) the result is GATHER(CONCATENATION(self, src), dim, idx):
``idx[t]`` is ``size + t - start`` inside ``[start, start + len(src))`` and ``t`` outside,
computed inside the NNAPI model from the start (no SCATTER needed; ``gathered_positions``)."""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node

from ..graph import NnapiGraph, permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_shape
from ..shape_program import Dim, describe_unsupported
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from ..size_bounds import provably_at_least, provably_at_most
from .slicing import shape_env_of, slice_index, strided_slice_inputs

aten = torch.ops.aten


def scatter_args(node: Node) -> tuple[Node, Node, int, Any, Any, Any]:
    """(self, src, dim, start, end, step) with dim non-negative."""
    names = ("dim", "start", "end", "step")
    defaults = (0, None, None, 1)
    dim, start, end, step = [node.args[i + 2] if len(node.args) > i + 2 else node.kwargs.get(n, dflt)
                             for i, (n, dflt) in enumerate(zip(names, defaults))]
    return node.args[0], node.args[1], normalize_dim(dim, len(tensor_shape(node))), start, end, step


def _parts(node: Node) -> tuple[int, Dim, Dim, Dim, bool | None, bool | None]:
    """(dim, begin, src length, size, keep the part before, keep the part after); a keep flag is
    None when that part's emptiness cannot be decided over the program's size ranges."""
    target, src, dim, start, _, step = scatter_args(node)
    if step != 1:
        raise Refused(f"slice_scatter with step {step} (only step 1 is a concatenation)")
    size = tensor_shape(target)[dim]
    env = shape_env_of(target, src, node)
    begin = slice_index(start, size, env, "start") if start is not None else 0
    length = tensor_shape(src)[dim]
    keep = []
    for where, part in (("before", begin), ("after", size - begin - length)):
        reason = describe_unsupported([part])
        if reason:
            raise Refused(f"slice_scatter: the part {where} the slice: {reason}")
        if provably_at_most(part, 0, env):
            keep.append(False)
        elif provably_at_least(part, 1, env):
            keep.append(True)
        else:
            keep.append(None)
    return dim, begin, length, size, keep[0], keep[1]


def _check_gathered(ctx: CheckContext, begin: Dim, length: Dim, size: Dim, before: bool | None) -> None:
    """Refuses the GATHER form when its level, a dynamic size or its expressions do not allow it."""
    where, part = ("before", begin) if before is None else ("after", size - begin - length)
    undecided = f"cannot decide whether the part {where} the slice (size {part}) is empty"
    ctx.require(FeatureLevel.ANDROID_10, f"slice_scatter where it {undecided} (GATHER)")
    if not isinstance(size, int):
        raise Refused(f"slice_scatter: {undecided}, and the dim written has the dynamic size {size} "
                      "(the GATHER form needs a static one)")
    reason = describe_unsupported([size - begin, size + length])
    if reason:
        raise Refused(f"slice_scatter at a run-time position: {reason}")


def _emit_bool(g: NnapiGraph, code: OperationCode, inputs: list[int], size: int, name: str) -> int:
    out = g.emit_tensor([size], torch.bool, debug_name=name)
    g.emit_operation(code, inputs, [out], debug_name=name)
    return out


def gathered_positions(g: NnapiGraph, begin: Dim, length: Dim, size: int, name: str) -> int:
    """A ``[size]`` TENSOR_INT32 operand: for each position t of the written dim, where it is read
    from in ``cat([self, src])``, ``size + t - begin`` inside ``[begin, begin + length)`` and
    ``t`` outside. NNAPI computes it from two numbers given at each execution (``size - begin``
    and ``size + length``), so neither the lowering nor the values given grow with ``size``:
    ``shifted = ramp[size - begin : 2 size - begin]`` (SLICE of the constant ``0 .. 2 size - 1``)
    is ``size + t - begin``, and t is inside the run exactly when ``size <= shifted < size +
    length``. The same operand serves every write at the same place (a layer's K and V, every
    layer) in one model."""
    key = ("slice_scatter positions", str(begin), str(length), size)
    if key in g.shared_operands:
        return g.shared_operands[key]
    ramp = g.emit_constant_tensor(torch.arange(2 * size, dtype=torch.int32), debug_name=f"{name}.ramp")
    shifted = g.emit_tensor([size], torch.int32, debug_name=f"{name}.shifted")
    g.emit_operation(OperationCode.SLICE, [ramp, g.emit_per_execution_vector([size - begin]), g.emit_int32_vector([size])],
                     [shifted], debug_name=f"{name} (size + t - start)")
    from_start = _emit_bool(g, OperationCode.GREATER_EQUAL, [shifted, g.emit_int32_vector([size])], size,
                            f"{name} (t >= start)")
    before_end = _emit_bool(g, OperationCode.LESS, [shifted, g.emit_per_execution_vector([size + length])], size,
                            f"{name} (t < end)")
    inside = _emit_bool(g, OperationCode.LOGICAL_AND, [from_start, before_end], size, f"{name} (inside)")
    positions = g.emit_tensor([size], torch.int32, debug_name=f"{name}.positions")
    g.emit_operation(OperationCode.SELECT, [inside, shifted, g.emit_constant_tensor(torch.arange(size, dtype=torch.int32))],
                     [positions], debug_name=f"{name} (positions)")
    g.shared_operands[key] = positions
    return positions


@register_builder
class SliceScatterBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.slice_scatter.default, FeatureLevel.ANDROID_9,
                  "STRIDED_SLICE + CONCATENATION; a scatter over the whole dim is a relabel of src",
                  "float32, rank 1..4, step 1, non-empty src; a part beside the slice that may be empty "
                  "(a run-time start) needs API 29 (CONCATENATION + GATHER) and a static size along dim"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        target, src = node.args[0], node.args[1]
        check_float_tensors(node, target, src)
        check_rank(node, MAX_RANK, what="output")
        if any(d == 0 for d in tensor_shape(src)):
            raise Refused("slice_scatter of an empty src (NNAPI has no zero-sized tensors)")
        dim, begin, length, size, before, after = _parts(node)
        if before is None or after is None:
            _check_gathered(ctx, begin, length, size, before)

    def define(self, node: Node, lc: LoweringContext) -> None:
        target, src = node.args[0], node.args[1]
        dim, begin, length, size, before, after = _parts(node)
        if before is None or after is None:
            self._define_gathered(node, lc, dim, begin, length, size)
            return
        order = lc.order(src) if not lc.is_constant(src) or lc.is_constant(target) else lc.order(target)
        g = lc.graph
        pieces = []
        for keep, lo, hi, what in ((before, 0, begin, "before"), (after, begin + length, None, "after")):
            if not keep:
                if what == "after":
                    pieces.append(lc.operand(src, order))
                continue
            shape = list(lc.shape(target))
            shape[dim] = (hi if hi is not None else size) - lo
            piece = g.emit_tensor(permute_shape(shape, order), torch.float32, debug_name=f"{node.name}.{what}")
            g.emit_operation(OperationCode.STRIDED_SLICE,
                             strided_slice_inputs(lc, lc.operand(target, order), order, {dim: (lo, hi, 1)}),
                             [piece], debug_name=f"{node.name} ({what})")
            if what == "after":
                pieces.append(lc.operand(src, order))
            pieces.append(piece)
        if len(pieces) == 1:
            produced = lc.graph.value(lc.resolve(src), order)
            g.set_value(node, produced.operand, order, lc.shape(node))
            return
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.CONCATENATION, [*pieces, g.emit_int32(physical_axis(order, dim))], [out],
                         debug_name=node.name)

    @staticmethod
    def _define_gathered(node: Node, lc: LoweringContext, dim: int, begin: Dim, length: Dim, size: int) -> None:
        target, src = node.args[0], node.args[1]
        g = lc.graph
        order = lc.order(target)
        axis = g.emit_int32(physical_axis(order, dim))
        shape = list(lc.shape(target))
        shape[dim] = size + length
        both = g.emit_tensor(permute_shape(shape, order), torch.float32, debug_name=f"{node.name}.with_src")
        g.emit_operation(OperationCode.CONCATENATION, [lc.operand(target, order), lc.operand(src, order), axis],
                         [both], debug_name=f"{node.name} (self, src)")
        # At a position read from a tensor (a KV cache's), computed by NNAPI at every execution.
        positions = gathered_positions(g, begin, length, size, node.name)
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.GATHER, [both, axis, positions], [out], debug_name=node.name)
