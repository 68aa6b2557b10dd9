"""aten.split_with_sizes_copy / split_copy.Tensor -> one STRIDED_SLICE (API 28) per
used output; each getitem's value is set here (see getitem.PROVIDED_OUTPUTS)."""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import normalize_dim, tensor_shape
from ..shape_program import as_dim
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .slicing import emit_strided_slice

aten = torch.ops.aten


def split_dim(node: Node) -> int:
    """The non-negative logical dim a split node cuts."""
    dim = node.args[2] if len(node.args) > 2 else node.kwargs.get("dim", 0)
    return normalize_dim(dim, len(tensor_shape(node.args[0])))


def piece_sizes(node: Node) -> list:
    """Size along the split dim of every output, from the node's output values (may be symbolic)."""
    dim = split_dim(node)
    return [as_dim(v.shape[dim]) for v in node.meta["val"]]


@register_builder
class SplitBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.split_with_sizes_copy.default, FeatureLevel.ANDROID_9, "STRIDED_SLICE per used output",
                  "float32, rank <= 4, no empty piece"),
        OpSupport(aten.split_copy.Tensor, FeatureLevel.ANDROID_9, "STRIDED_SLICE per used output", "float32, rank <= 4, no empty piece"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        for user in node.users:
            if user.target is not operator.getitem:
                raise Refused(f"split output list used directly by {user.name}")
        if any(s == 0 for s in piece_sizes(node)):
            raise Refused("split with an empty piece (NNAPI has no zero-sized tensors)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        dim = split_dim(node)
        offsets, offset = [], 0
        for size in piece_sizes(node):
            offsets.append((offset, offset + size))
            offset = offset + size
        for user in node.users:
            begin, end = offsets[user.args[1]]
            last = user.args[1] == len(offsets) - 1
            # The last piece runs to the end (mask), so no expression of the input size is needed.
            emit_strided_slice(lc, user, x, {dim: (begin, None if last else end, 1)})
