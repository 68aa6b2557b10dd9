"""aten.cumsum -> a prefix sum in ceil(log2 n) steps along a dim of static length n.

NNAPI has no cumulative sum. Hillis and Steele's scan computes it with element-wise operations:
after the step of shift ``s`` (1, 2, 4, ... < n) every element holds the sum of the last ``2 s``
inputs up to it, so ``y[j] += y[j - s]`` (0 where ``j < s``) for each ``s`` in turn leaves the
inclusive prefix sum. Each step shifts ``y`` along the dim, filling zeros, and ADDs it:

- float32 (API 28): PAD with ``s`` zeros in front, STRIDED_SLICE back to length n. The sums
  are formed in another order than eager's sequential loop: the values differ by rounding only
  (each result is a sum of at most ceil(log2 n) partial sums, as accurate as pairwise summation).
- int32, and int64 held in int32 (API 30: TENSOR_INT32 ADD and MUL; PAD, CONCATENATION and
  STRIDED_SLICE take no TENSOR_INT32): GATHER of ``y[max(j - s, 0)]`` times a constant 0/1 mask
  ``j >= s``. Exact; an int64 result (PyTorch's default for integer inputs) must provably fit
  int32 (builders/integer_ranges.py: a 0/1 mask's cumsum along n is within [0, n]).

It works in the input's dim order (a convolution's NHWC result needs no TRANSPOSE). A dim of
dynamic length is refused: the number of steps and their constants depend on it.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import Dim, is_static
from .bool_values import HELD_IN_INT32
from .common import MAX_RANK, check_rank, physical_axis
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def _is_integer(node: Node) -> bool:
    return tensor_dtype(node.args[0]) in HELD_IN_INT32


def _shifts(n: int) -> list[int]:
    """The shifts of the scan's steps: 1, 2, 4, ... below ``n``."""
    shifts, s = [], 1
    while s < n:
        shifts.append(s)
        s *= 2
    return shifts


@register_builder
class CumsumBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.cumsum.default, FeatureLevel.ANDROID_9,
                  "ceil(log2 n) x (PAD + STRIDED_SLICE + ADD); integers: GATHER + MUL + ADD (API 30)",
                  "float32, or int32 / int64 (an int64 result provably within int32), rank 1-4; a dim of static "
                  "length n (a dynamic one stays on the CPU)"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, dim = node.args[:2]
        check_rank(x, MAX_RANK, min_rank=1, what="input")
        shape = tensor_shape(x)
        length = shape[normalize_dim(dim, len(shape))]
        if not is_static(length):
            raise Refused(f"cumsum along a dim of dynamic length {length} (the scan's steps depend on it)")
        source, result = tensor_dtype(x), tensor_dtype(node)
        if source in HELD_IN_INT32 and result in HELD_IN_INT32:
            ctx.require(FeatureLevel.ANDROID_11, "integer cumsum (TENSOR_INT32 ADD and MUL)")
            check_int64_result(node, ctx)
        elif not (source == torch.float32 and result == torch.float32):
            raise Refused(f"cumsum of {source} to {result} (NNAPI's sum here: float32 -> float32, int32 / int64 "
                          "-> int32 / int64)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, dim = node.args[:2]
        g = lc.graph
        order = lc.order(x)
        shape = lc.shape(x)
        dim = normalize_dim(dim, len(shape))
        axis = physical_axis(order, dim)
        physical = permute_shape(shape, order)
        n = int(shape[dim])
        y = lc.operand(x, order)
        steps = _shifts(n)
        if not steps:  # one element along the dim: the sum is the input
            g.set_value(node, y, order, shape)
            return
        for i, s in enumerate(steps):
            shifted = (_shifted_integers if _is_integer(node) else _shifted_floats)(lc, node, y, physical, axis, s)
            out = lc.emit_output(node, order) if i == len(steps) - 1 else g.emit_like(y, physical,
                                                                                      debug_name=f"{node.name}.{s}")
            g.emit_operation(OperationCode.ADD, [y, shifted, g.emit_int32(int(FuseCode.NONE))], [out],
                             debug_name=node.name)
            y = out


def _shifted_floats(lc: LoweringContext, node: Node, y: int, physical: list[Dim], axis: int, s: int) -> int:
    """``y`` moved ``s`` places along ``axis``, zeros in front: PAD, then STRIDED_SLICE to its length."""
    g = lc.graph
    rank = len(physical)
    padded_shape = [d + s if i == axis else d for i, d in enumerate(physical)]
    padded = g.emit_like(y, padded_shape, debug_name=f"{node.name}.pad{s}")
    paddings = [p for i in range(rank) for p in ((s, 0) if i == axis else (0, 0))]
    g.emit_operation(OperationCode.PAD, [y, g.emit_int32_tensor(paddings, [rank, 2])], [padded], debug_name=node.name)
    shifted = g.emit_like(y, physical, debug_name=f"{node.name}.shift{s}")
    # begin 0 everywhere; end n along the axis, the whole dim elsewhere (end_mask: sizes may be dynamic).
    ends = [physical[axis] if i == axis else 0 for i in range(rank)]
    end_mask = sum(1 << i for i in range(rank) if i != axis)
    g.emit_operation(OperationCode.STRIDED_SLICE, [padded, g.emit_int32_vector([0] * rank), g.emit_int32_vector(ends),
                                                   g.emit_int32_vector([1] * rank), g.emit_int32(0),
                                                   g.emit_int32(end_mask), g.emit_int32(0)],
                     [shifted], debug_name=node.name)
    return shifted


def _shifted_integers(lc: LoweringContext, node: Node, y: int, physical: list[Dim], axis: int, s: int) -> int:
    """``y`` moved ``s`` places along ``axis``, zeros in front: GATHER of ``y[max(j - s, 0)]`` (the
    first ``s`` are any value), then MUL by 0 / 1 (zero for the first ``s``)."""
    g = lc.graph
    n = int(physical[axis])
    gathered = g.emit_like(y, physical, debug_name=f"{node.name}.gather{s}")
    indices = torch.clamp(torch.arange(n, dtype=torch.int32) - s, min=0)
    g.emit_operation(OperationCode.GATHER, [y, g.emit_int32(axis), g.emit_constant_tensor(indices)], [gathered],
                     debug_name=node.name)
    mask_shape = [n if i == axis else 1 for i in range(len(physical))]
    mask = (torch.arange(n) >= s).to(torch.int32).reshape(mask_shape)
    shifted = g.emit_like(y, physical, debug_name=f"{node.name}.shift{s}")
    g.emit_operation(OperationCode.MUL, [gathered, g.emit_constant_tensor(mask), g.emit_int32(int(FuseCode.NONE))],
                     [shifted], debug_name=node.name)
    return shifted
