"""Channel shuffle (ShuffleNet): ``x.view(N, g, C/g, H, W).transpose(1, 2)
[.contiguous()].view(N, C, H, W)`` as one ChannelShuffleUnit.

The pattern passes through a rank-5 tensor, which NNAPI cannot hold, so its
nodes are only delegable together (builders/channel_shuffle.py emits them).

In a convert_pt2e program each view and permute keeps its input's scale and zero
point (SAME_PARAMETERS), so the shuffle reads ``dq -> view -> q -> dq -> permute
[-> clone] -> q -> dq -> view -> q``: one quantized unit, whose inner quantize /
dequantize pairs pass the codes unchanged. It is matched before the quantized
ops, which would otherwise take each view alone (with its rank-5 result).
"""

from __future__ import annotations

import torch
from torch.fx import Graph, Node

from ..node_units import ChannelShuffleUnit, NodeUnit
from ..node_utils import (aten_op, is_dequantize, is_per_channel, is_quantize, is_tensor_node, noop_copy_refusal,
                          normalize_dim, quant_params, tensor_shape)
from ..shape_program import is_static
from .pattern_context import PatternContext

aten = torch.ops.aten


def _only_user(node: Node) -> Node | None:
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _is_call(node: Node | None, op) -> bool:
    return node is not None and node.op == "call_function" and aten_op(node) == op


def _next(node: Node, chain: list[Node] | None) -> Node | None:
    """The only user of ``node``, reading it as its first argument; in a quantized shuffle
    (``chain`` not None) past a quantize -> dequantize pair of the chain's parameters."""
    user = _only_user(node)
    if chain is not None and is_quantize(user):
        dq = _only_user(user)
        params = quant_params(chain[0])
        if not is_dequantize(dq) or is_per_channel(dq) or not quant_params(user) == quant_params(dq) == params:
            return None
        chain.extend((user, dq))
        node, user = dq, _only_user(dq)
    if user is None or user.op != "call_function" or not user.args or user.args[0] is not node:
        return None
    if chain is not None:
        chain.append(user)
    return user


def _quantized_end(merge: Node, chain: list[Node]) -> bool:
    """Whether the shuffled result is quantized with the input's parameters (ending ``chain``)."""
    q = _only_user(merge)
    if not is_quantize(q) or quant_params(q) != quant_params(chain[0]):
        return False
    chain.append(q)
    return True


def match_channel_shuffle(split: Node, quantized: bool = False) -> ChannelShuffleUnit | None:
    """The channel shuffle starting at view node ``split``, if the pattern is complete;
    ``quantized``: convert_pt2e's form (module docstring), from a dequantized input."""
    if not _is_call(split, aten.view_copy.default):
        return None
    x = split.args[0]
    if not is_tensor_node(x) or not is_tensor_node(split):
        return None
    chain = None
    if quantized:
        if not is_dequantize(x) or is_per_channel(x) or _only_user(x) is not split:
            return None
        chain = [x, split]
    in_shape, split_shape = tensor_shape(x), tensor_shape(split)
    rank = len(in_shape)
    if not 1 <= rank <= 4 or len(split_shape) != rank + 1:
        return None

    permute = _next(split, chain)
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
    merge = _next(permute, chain)
    if merge is not None and aten_op(merge) != aten.view_copy.default:
        if noop_copy_refusal(merge) is not None:
            return None
        copy, merge = merge, _next(merge, chain)
    if not _is_call(merge, aten.view_copy.default) or tensor_shape(merge) != in_shape:
        return None
    if chain is not None and not _quantized_end(merge, chain):
        return None
    return ChannelShuffleUnit(x, split, permute, copy, merge, axis, int(groups), tuple(chain or ()))


def _find(graph: Graph, claimed: set[Node], quantized: bool) -> list[NodeUnit]:
    found: list[NodeUnit] = []
    taken = set(claimed)
    for node in graph.nodes:
        if node in taken:
            continue
        unit = match_channel_shuffle(node, quantized)
        if unit is not None and not taken.intersection(unit.nodes):
            found.append(unit)
            taken.update(unit.nodes)
    return found


def find_channel_shuffles(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every complete channel shuffle of ``graph`` whose nodes no earlier matcher claimed."""
    return _find(graph, claimed, quantized=False)


def find_quantized_channel_shuffles(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every complete quantized channel shuffle (convert_pt2e's form) of ``graph``."""
    return _find(graph, claimed, quantized=True)
