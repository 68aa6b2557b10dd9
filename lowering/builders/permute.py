"""aten.permute_copy -> no operation: the result is the same operand with a
relabeled dim order. A TRANSPOSE appears only where a consumer (or the
partition output) needs another physical order, and may cancel with the layout
change a convolution needed anyway."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import normalize_dim, tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, NodeBuilder, OpSupport
from .quantization import same_parameters
from .registry import register_builder

aten = torch.ops.aten


def compose_order(order: tuple[int, ...], perm: list[int]) -> tuple[int, ...]:
    """Dim order of ``permute(x, perm)`` when ``x`` is stored in ``order``.

    Physical dim i holds x's logical dim order[i], which is the output's logical
    dim perm.index(order[i]).
    """
    return tuple(perm.index(d) for d in order)


@register_builder
class PermuteBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.permute_copy.default, FeatureLevel.ANDROID_9, "(relabels the dim order; TRANSPOSE where needed)",
                  "float32, rank <= 4; rank 5 only inside a channel shuffle (API 29) or a view chain that reduces "
                  "to rank 4",
                  quantized=same_parameters(aten.permute.default, aten.transpose.int)),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        # (Rank 5 inside a channel shuffle is the ChannelShuffleUnit's to check.)
        # The relabeled value may need a TRANSPOSE later (API 28, rank <= 4).
        check_rank(node, MAX_RANK, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        rank = len(tensor_shape(x))
        perm = [normalize_dim(d, rank) for d in node.args[1]]
        if rank == 0:
            perm = [0]  # NNAPI stores a 0-d tensor as [1]
        value = lc.graph.value(lc.resolve(x))
        lc.graph.set_value(node, value.operand, compose_order(value.dim_order, perm), lc.shape(node))
