"""aten.expand_copy -> nothing (same shape, bool included), RESHAPE (new leading size-1 dims),
TILE (API 29) or, below API 29, ADD of a -0.0 constant holding the expanded dims. int32 and
int64 (held in TENSOR_INT32) are expanded by TILE alone.

Everything works in the input's physical dim order; new leading dims are put
first physically, which keeps the element order, so no TRANSPOSE is needed.
-0.0 is the exact additive identity (x + -0.0 == x bit for bit, -0.0 included),
so the broadcasting ADD copies values exactly.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_dtype, tensor_shape
from ..shape_program import Dim, is_static
from .bool_values import HELD_IN_INT32
from .common import MAX_RANK, check_float_tensors, check_rank
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def expansion(node: Node) -> tuple[list[Dim], list[Dim]]:
    """(input shape aligned to the output rank, output shape)."""
    in_shape, out_shape = tensor_shape(node.args[0]), tensor_shape(node)
    return [1] * (len(out_shape) - len(in_shape)) + list(in_shape), list(out_shape)


def multiples(aligned: list[Dim], out_shape: list[Dim]) -> list[Dim]:
    """How many times each logical dim is repeated (1 where the input already has the size)."""
    return [o if (is_static(i) and i == 1) else 1 for i, o in zip(aligned, out_shape)]


def at_output_rank(lc: LoweringContext, node: Node, x: Node, aligned: list[Dim]) -> tuple[int, tuple[int, ...]]:
    """(operand, dim order) of ``x`` at the rank of ``aligned`` (its shape with new leading size-1
    dims): a RESHAPE adding them first physically, which keeps the element order (no TRANSPOSE),
    or ``x``'s own operand when there are none."""
    g = lc.graph
    # A 0-d input is stored as [1]: it stands for the last aligned dim.
    new_dims = len(aligned) - max(len(tensor_shape(x)), 1)
    x_value = g.value(lc.resolve(x))
    order = tuple(range(new_dims)) + tuple(d + new_dims for d in x_value.dim_order)
    if not new_dims:
        return x_value.operand, order
    source = g.emit_tensor(permute_shape(aligned, order), lc.dtype(x) or torch.float32, debug_name=f"{node.name}.rank")
    g.emit_operation(OperationCode.RESHAPE, [x_value.operand, g.emit_int32_vector(permute_shape(aligned, order))],
                     [source], debug_name=node.name)
    return source, order


def _check_integer(node: Node, ctx: CheckContext, new_dims: int, reps: list[Dim]) -> None:
    """An int32 / int64 expand: TILE (API 29) takes TENSOR_INT32, RESHAPE only from feature
    level 6, and no -0.0 ADD copies integers; the values are the input's (held in int32)."""
    if new_dims:
        ctx.require(FeatureLevel.FEATURE_LEVEL_6, "expand of an integer tensor to a higher rank (TENSOR_INT32 RESHAPE)")
    if not all(is_static(m) and m == 1 for m in reps):
        ctx.require(FeatureLevel.ANDROID_10, "expand of an integer tensor (TILE)")
    check_int64_result(node, ctx)


@register_builder
class ExpandBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.expand_copy.default, FeatureLevel.ANDROID_8_1, "nothing / RESHAPE / TILE (API 29); ADD of -0.0 below",
                  "float32, output rank <= 4; dynamic expanded dims need API 29; int32 / int64 (held in int32): "
                  "TILE (API 29), a higher rank from feature level 6; bool: to its own shape only"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        integer = tensor_dtype(node) in HELD_IN_INT32 and tensor_dtype(x) == tensor_dtype(node)
        if tensor_dtype(node) == torch.bool and tensor_dtype(x) == torch.bool:
            aligned, out_shape = expansion(node)
            if len(aligned) != len(tensor_shape(x)) or not all(is_static(m) and m == 1
                                                                for m in multiples(aligned, out_shape)):
                raise Refused("expand of a bool tensor other than to its own shape (TILE and RESHAPE take no BOOL8)")
            return
        if not integer:
            check_float_tensors(node, x)
        check_rank(node, MAX_RANK, what="output")
        aligned, out_shape = expansion(node)
        reps = multiples(aligned, out_shape)
        if integer:
            _check_integer(node, ctx, len(aligned) - max(len(tensor_shape(x)), 1), reps)
            return
        if all(is_static(m) and m == 1 for m in reps):
            return
        if ctx.feature_level < FeatureLevel.ANDROID_10 and not all(is_static(m) for m in reps):
            ctx.require(FeatureLevel.ANDROID_10, "expand along a dynamic dim (TILE)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        g = lc.graph
        aligned, out_shape = expansion(node)
        source, order = at_output_rank(lc, node, x, aligned)
        reps = multiples(aligned, out_shape)
        if all(is_static(m) and m == 1 for m in reps):
            g.set_value(node, source, order, out_shape)
            return
        out = lc.emit_output(node, order)
        if g.feature_level >= FeatureLevel.ANDROID_10:
            g.emit_operation(OperationCode.TILE, [source, g.emit_int32_vector(permute_shape(reps, order))], [out],
                             debug_name=node.name)
            return
        zeros = torch.full([int(m) for m in permute_shape(reps, order)], -0.0, dtype=torch.float32)
        g.emit_operation(OperationCode.ADD, [source, g.emit_constant_tensor(zeros), g.emit_int32(int(FuseCode.NONE))],
                         [out], debug_name=node.name)
