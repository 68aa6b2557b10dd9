"""Channel shuffle (ShuffleNet): ``x.view(N, g, C/g, H, W).transpose(1, 2)
[.contiguous()].view(N, C, H, W)`` as one ChannelShuffleUnit.

The pattern passes through a rank-5 tensor, which NNAPI cannot hold, so its
nodes are only delegable together (builders/channel_shuffle.py emits them).
"""

from __future__ import annotations

import torch
from torch.fx import Graph, Node

from ..node_units import ChannelShuffleUnit, NodeUnit
from ..node_utils import aten_op, is_tensor_node, noop_copy_refusal, normalize_dim, tensor_shape
from ..shape_program import is_static
from .pattern_context import PatternContext

aten = torch.ops.aten


def _only_user(node: Node) -> Node | None:
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _is_call(node: Node | None, op) -> bool:
    return node is not None and node.op == "call_function" and aten_op(node) == op


def match_channel_shuffle(split: Node) -> ChannelShuffleUnit | None:
    """The channel shuffle starting at view node ``split``, if the pattern is complete."""
    if not _is_call(split, aten.view_copy.default):
        return None
    x = split.args[0]
    if not is_tensor_node(x) or not is_tensor_node(split):
        return None
    in_shape, split_shape = tensor_shape(x), tensor_shape(split)
    rank = len(in_shape)
    if not 1 <= rank <= 4 or len(split_shape) != rank + 1:
        return None

    permute = _only_user(split)
    if not _is_call(permute, aten.permute_copy.default):
        return None
    perm = [normalize_dim(d, rank + 1) for d in permute.args[1]]
    swapped = [i for i, d in enumerate(perm) if d != i]
    if len(swapped) != 2 or swapped[1] != swapped[0] + 1 or perm[swapped[0]] != swapped[1]:
        return None
    axis = swapped[0]
    groups, group_size, channels = split_shape[axis], split_shape[axis + 1], in_shape[axis]
    # NNAPI's num_groups is a constant; the other dims may be symbolic.
    if not all(is_static(d) for d in (groups, group_size, channels)) or int(groups) * int(group_size) != int(channels):
        return None
    if split_shape[:axis] != in_shape[:axis] or split_shape[axis + 2:] != in_shape[axis + 1:]:
        return None

    copy = None
    merge = _only_user(permute)
    if merge is not None and merge.op == "call_function" and aten_op(merge) != aten.view_copy.default:
        if noop_copy_refusal(merge) is not None:
            return None
        copy, merge = merge, _only_user(merge)
    if not _is_call(merge, aten.view_copy.default):
        return None
    if merge.args[0] is not (copy if copy is not None else permute) or tensor_shape(merge) != in_shape:
        return None
    return ChannelShuffleUnit(x, split, permute, copy, merge, axis, int(groups))


def find_channel_shuffles(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every complete channel shuffle of ``graph`` whose nodes no earlier matcher claimed."""
    found: list[NodeUnit] = []
    taken = set(claimed)
    for node in graph.nodes:
        if node in taken:
            continue
        unit = match_channel_shuffle(node)
        if unit is not None and not taken.intersection(unit.nodes):
            found.append(unit)
            taken.update(unit.nodes)
    return found
