"""aten.view_copy (view / reshape / flatten) -> RESHAPE, without a transpose when
the input's physical order already lists its non-unit dims in PyTorch order.
The first view of a channel shuffle (passes/channel_shuffle.py) -> CHANNEL_SHUFFLE."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import torch
from torch.fx import Node

from ..graph import LoweringError, identity, same_memory_order
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..shape_program import Dim
from . import register_builder
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, NodeBuilder

if TYPE_CHECKING:
    from ..passes.channel_shuffle import ChannelShuffleMatch

aten = torch.ops.aten


def emit_reshape(lc: LoweringContext, node: Node, source: Node, out_shape: Sequence[Dim],
                 out_order: Sequence[int] | None = None) -> None:
    """RESHAPE ``source`` to logical ``out_shape`` (result stored in ``out_order``,
    default identity; the caller guarantees that order keeps memory order)."""
    in_order = lc.order(source)
    if not same_memory_order(lc.shape(source), in_order, identity(len(in_order))):
        in_order = identity(len(in_order))
    out_order = tuple(out_order) if out_order is not None else identity(len(out_shape))
    g = lc.graph
    physical_shape = [out_shape[d] for d in out_order] or [1]
    out = lc.emit_output(node, out_order, shape=list(out_shape))
    g.emit_operation(OperationCode.RESHAPE, [lc.operand(source, in_order), g.emit_int32_vector(physical_shape)],
                     [out], debug_name=node.name)


@register_builder
class ViewBuilder(NodeBuilder):
    targets = (aten.view_copy.default,)

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        # Rank 5 only inside a channel shuffle (which becomes one CHANNEL_SHUFFLE).
        if ctx.channel_shuffle(node) is None:
            check_rank(node.args[0], MAX_RANK, what="input")
            check_rank(node, MAX_RANK, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        match = lc.channel_shuffles.get(node)
        if match is not None:
            emit_channel_shuffle(lc, node, match)
            return
        if max(len(lc.shape(node)), len(lc.shape(node.args[0]))) > MAX_RANK:
            # Rank > 4 views exist only inside a channel shuffle or a view region, whose
            # passes emit them; reaching here means the pattern was split (partitioner bug).
            raise LoweringError(f"{node.name}: rank > 4 view outside a complete channel shuffle or view region "
                                "(partitioner bug)")
        emit_reshape(lc, node, node.args[0], lc.shape(node))


def emit_channel_shuffle(lc: LoweringContext, node: Node, match: "ChannelShuffleMatch") -> None:
    """The shuffle of ``match.input`` in its own physical order (no layout change);
    ``node`` (the pattern's first view) holds the shuffled value, which has the
    input's logical shape, and the pattern's other nodes alias it.

    One CHANNEL_SHUFFLE from API 29; at API 28 the same permutation as RESHAPE to
    [outer, groups, C / groups, inner], TRANSPOSE of the middle dims, RESHAPE back.
    """
    x = match.input
    order = lc.order(x)
    g = lc.graph
    axis = physical_axis(order, match.axis)
    out = lc.emit_output(node, order, shape=lc.shape(x))
    if g.feature_level >= FeatureLevel.ANDROID_10:
        g.emit_operation(OperationCode.CHANNEL_SHUFFLE,
                         [lc.operand(x, order), g.emit_int32(match.groups), g.emit_int32(axis)],
                         [out], debug_name=match.merge.name)
        return
    physical = [lc.shape(x)[d] for d in order]
    outer, inner = math.prod(physical[:axis]), math.prod(physical[axis + 1:])
    channels = physical[axis]
    grid = [outer, match.groups, channels // match.groups, inner]
    grouped = g.emit_tensor(grid, debug_name=f"{match.merge.name}.groups")
    g.emit_operation(OperationCode.RESHAPE, [lc.operand(x, order), g.emit_int32_vector(grid)], [grouped],
                     debug_name=match.merge.name)
    swapped = g.emit_tensor([grid[0], grid[2], grid[1], grid[3]], debug_name=f"{match.merge.name}.swapped")
    g.emit_operation(OperationCode.TRANSPOSE, [grouped, g.emit_int32_vector([0, 2, 1, 3])], [swapped],
                     debug_name=match.merge.name)
    g.emit_operation(OperationCode.RESHAPE, [swapped, g.emit_int32_vector(physical)], [out],
                     debug_name=match.merge.name)

