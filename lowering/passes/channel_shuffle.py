"""Channel shuffle (ShuffleNet): ``x.view(N, g, C/g, H, W).transpose(1, 2)
[.contiguous()].view(N, C, H, W)`` -> one CHANNEL_SHUFFLE (API 29; RESHAPE + TRANSPOSE at API 28).

The pattern passes through a rank-5 tensor, which NNAPI cannot hold, so its
nodes are only delegable together. ``find_channel_shuffles`` recognizes it
(used both by the partitioner's checks, through ``CheckContext``, and by
``record_channel_shuffles`` in preprocess); the first view then emits the
CHANNEL_SHUFFLE on the channel axis in the input's physical order (axis 3 for
NHWC, so no TRANSPOSE) and the other nodes become aliases of it.

PyTorch's result is out[k*g + i] = in[i*(C/g) + k] (the [g, C/g] grid read
column by column), which is NNAPI's definition with num_groups = g.
"""

from __future__ import annotations

import dataclasses

import torch
from torch.fx import Graph, Node

from ..builders.clone_dim_order import noop_copy_refusal
from ..lowering_context import LoweringContext
from ..node_utils import aten_op, is_tensor_node, normalize_dim, tensor_shape
from ..shape_program import is_static

aten = torch.ops.aten


@dataclasses.dataclass(frozen=True)
class ChannelShuffleMatch:
    """One recognized channel shuffle of ``input`` along its logical dim ``axis``."""

    input: Node
    split: Node          # view_copy: dim ``axis`` of size C -> [groups, C / groups]
    permute: Node        # permute_copy swapping those two dims
    copy: Node | None    # optional contiguous clone / _clone_dim_order
    merge: Node          # view_copy back to the input's shape: the shuffled result
    axis: int
    groups: int

    @property
    def nodes(self) -> tuple[Node, ...]:
        """The pattern's nodes, in graph order."""
        return tuple(n for n in (self.split, self.permute, self.copy, self.merge) if n is not None)


def _only_user(node: Node) -> Node | None:
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def match_channel_shuffle(split: Node) -> ChannelShuffleMatch | None:
    """The channel shuffle starting at view node ``split``, if the pattern is complete."""
    if split.op != "call_function" or aten_op(split) != aten.view_copy.default:
        return None
    x = split.args[0]
    if not is_tensor_node(x) or not is_tensor_node(split):
        return None
    in_shape, split_shape = tensor_shape(x), tensor_shape(split)
    rank = len(in_shape)
    if not 1 <= rank <= 4 or len(split_shape) != rank + 1:
        return None

    permute = _only_user(split)
    if permute is None or permute.op != "call_function" or aten_op(permute) != aten.permute_copy.default:
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
    if merge is None or merge.op != "call_function" or aten_op(merge) != aten.view_copy.default:
        return None
    if merge.args[0] is not (copy if copy is not None else permute) or tensor_shape(merge) != in_shape:
        return None
    return ChannelShuffleMatch(x, split, permute, copy, merge, axis, int(groups))


def find_channel_shuffles(graph: Graph) -> dict[Node, ChannelShuffleMatch]:
    """Every node of every complete channel shuffle in ``graph`` -> its match."""
    found: dict[Node, ChannelShuffleMatch] = {}
    for node in graph.nodes:
        if node in found:
            continue
        match = match_channel_shuffle(node)
        if match is not None:
            for member in match.nodes:
                found[member] = match
    return found


def record_channel_shuffles(lc: LoweringContext, graph: Graph) -> None:
    """Records each channel shuffle of the partition: its first view emits
    CHANNEL_SHUFFLE (``lc.channel_shuffles``), the other nodes alias that view."""
    for node, match in find_channel_shuffles(graph).items():
        if node is match.split:
            lc.channel_shuffles[node] = match
        else:
            lc.aliases[node] = match.split
