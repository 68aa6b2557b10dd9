"""A view chain through rank > 4 values (ViewChainUnit) -> RESHAPE / STRIDED_SLICE /
TRANSPOSE at rank <= 4, each end computed from the chain's input directly
(patterns/view_chain.py plans how; its intermediate values never exist).
"""

from __future__ import annotations

import math
from typing import Sequence

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_units import ElementwisePlan, EndPlan, ViewChainUnit
from .node_builder import CheckContext, UnitBuilder, level_refusal
from .registry import register_unit_builder


@register_unit_builder
class ViewChainBuilder(UnitBuilder):
    """view / permute / select / (un)squeeze chains through rank 5-6 -> rank <= 4 RESHAPE, STRIDED_SLICE, TRANSPOSE."""

    unit = ViewChainUnit
    since = FeatureLevel.ANDROID_9  # TRANSPOSE, STRIDED_SLICE, SUB, DIV
    what = "a rank > 4 view chain done at rank 4 (TRANSPOSE)"

    def refusal(self, unit: ViewChainUnit, ctx: CheckContext) -> str | None:
        # A chain that cannot be planned at rank <= 4 is refused whatever the level.
        if unit.refusal:
            return unit.refusal
        if any(plan.tiles for plan in unit.ends.values()):
            reason = level_refusal("a rank > 4 expand (TILE)", FeatureLevel.ANDROID_10, ctx.feature_level)
            if reason:
                return reason
        return super().refusal(unit, ctx)

    def define(self, unit: ViewChainUnit, lc: LoweringContext) -> None:
        """Emits every end and elementwise op of the chain; its other nodes need no operation."""
        grids: dict = {}  # the base reshaped for slicing, shared by the ends (e.g. q, k and v)
        for node in unit.members:
            if node in unit.ends:
                emit_end(node, lc, unit.ends[node], grids)
            elif node in unit.elementwise:
                emit_elementwise(node, lc, unit.elementwise[node])


def _memory_ordered(lc: LoweringContext, base: Node, base_shape: Sequence[int]) -> tuple[int, list[int]]:
    """``base``'s operand with its elements in row-major logical order, and its physical dims."""
    value = lc.graph.value(lc.resolve(base))
    order = value.dim_order
    if len(order) != len(base_shape):
        order = identity(len(base_shape))
    non_unit = [d for d in order if base_shape[d] != 1]
    if non_unit != sorted(non_unit):
        order = identity(len(base_shape))
    operand = lc.graph.operand_of(lc.resolve(base), order)
    return operand, [base_shape[d] for d in order]


def _reshape(lc: LoweringContext, operand: int, dims: list[int], shape: Sequence[int], name: str) -> int:
    if list(dims) == list(shape):
        return operand
    g = lc.graph
    out = g.emit_tensor(list(shape), debug_name=name)
    g.emit_operation(OperationCode.RESHAPE, [operand, g.emit_int32_vector(list(shape))], [out], debug_name=name)
    return out


def emit_end(node: Node, lc: LoweringContext, plan: EndPlan, grids: dict | None = None) -> None:
    """Emits ``node``'s value (an end of a chain) from the chain's base.

    ``grids`` caches the base reshaped for slicing, shared by the ends of one
    chain (e.g. the q, k and v selects of a packed projection).
    """
    g = lc.graph
    name = node.name
    operand, dims = _memory_ordered(lc, plan.layout.base, plan.layout.base_shape)
    for outer, n, inner in plan.tiles:  # room for each factor an expand added (TILE, API 29)
        operand = _reshape(lc, operand, dims, [outer, 1, inner], f"{name}.untiled")
        dims = [outer, n, inner]
        tiled = g.emit_tensor(dims, debug_name=f"{name}.tiled")
        g.emit_operation(OperationCode.TILE, [operand, g.emit_int32_vector([1, n, 1])], [tiled], debug_name=name)
        operand = tiled
    if plan.slice_shape is not None:
        key = (plan.layout.base, plan.tiles, plan.slice_shape)
        grids = {} if grids is None else grids
        if key not in grids:
            grids[key] = _reshape(lc, operand, dims, plan.slice_shape, f"{name}.grid")
        operand = grids[key]
        sliced = [e - b for b, e in zip(plan.slice_begin, plan.slice_end)]
        out = g.emit_tensor(sliced, debug_name=f"{name}.slice")
        rank = len(sliced)
        g.emit_operation(OperationCode.STRIDED_SLICE,
                         [operand, g.emit_int32_vector(plan.slice_begin), g.emit_int32_vector(plan.slice_end),
                          g.emit_int32_vector([1] * rank), g.emit_int32(0), g.emit_int32(0), g.emit_int32(0)],
                         [out], debug_name=name)
        operand, dims = out, sliced
    out_shape = list(plan.out_shape)
    if plan.relabel is not None:
        if list(dims) == list(plan.free_shape):
            out = operand
        else:
            out = g.emit_tensor(list(plan.free_shape), debug_name=name)
            g.emit_operation(OperationCode.RESHAPE, [operand, g.emit_int32_vector(list(plan.free_shape))], [out],
                             debug_name=name)
        g.set_value(node, out, plan.relabel, out_shape)
        return
    for shape, perm in ((plan.free_shape, plan.perm), *plan.later_transposes):
        operand = _reshape(lc, operand, dims, shape, f"{name}.factors")
        dims = [shape[p] for p in perm]
        transposed = g.emit_tensor(dims, debug_name=f"{name}.transposed")
        g.emit_operation(OperationCode.TRANSPOSE, [operand, g.emit_int32_vector(list(perm))], [transposed],
                         debug_name=name)
        operand = transposed
    out = lc.emit_output(node, identity(len(out_shape)), shape=out_shape)
    g.emit_operation(OperationCode.RESHAPE, [transposed, g.emit_int32_vector(out_shape)], [out], debug_name=name)


def emit_elementwise(node: Node, lc: LoweringContext, plan: ElementwisePlan) -> None:
    """Emits an elementwise op of a chain on its size-1-dims-dropped value."""
    g = lc.graph
    layout = plan.input_layout
    operand, dims = _memory_ordered(lc, layout.base, layout.base_shape)
    x_op = _reshape(lc, operand, dims, plan.squeezed_shape, f"{node.name}.input")
    if plan.other_shape is not None:  # a run-time value, reshaped to broadcast in the squeezed rank
        operand, dims = _memory_ordered(lc, plan.other, tuple(lc.shape(plan.other)))
        other_op = _reshape(lc, operand, dims, list(plan.other_shape) or [1], f"{node.name}.operand")
        inputs = [x_op, other_op] if plan.region_arg == 0 else [other_op, x_op]
        _emit_elementwise_op(node, lc, plan, inputs)
        return
    if isinstance(plan.other, Node):
        other = lc.graph.constant(lc.resolve(plan.other)).to(torch.float32)
        rank = len(plan.out_shape)
        other = other.reshape([1] * (rank - other.dim()) + list(other.shape))
        groups = plan.merged_dims
        other = other.reshape([math.prod(other.shape[d] for d in g) for g in groups]) if groups else other.reshape(1)
    else:
        other = torch.tensor([float(plan.other)], dtype=torch.float32)
    other_op = g.emit_constant_tensor(other)
    inputs = [x_op, other_op] if plan.region_arg == 0 else [other_op, x_op]
    _emit_elementwise_op(node, lc, plan, inputs)


def _emit_elementwise_op(node: Node, lc: LoweringContext, plan: ElementwisePlan, inputs: list[int]) -> None:
    g = lc.graph
    out = g.emit_tensor(list(plan.squeezed_shape) or [1], debug_name=node.name)
    g.emit_operation(plan.code, [*inputs, g.emit_int32(int(FuseCode.NONE))], [out], debug_name=node.name)
    g.set_value(node, out, identity(len(plan.squeezed_shape) or 1), list(plan.squeezed_shape) or [1])
