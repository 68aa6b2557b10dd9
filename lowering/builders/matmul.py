"""aten.matmul of two tensors of one rank (2-4) with equal batch dims -> one BATCH_MATMUL
(feature level 6), kept whole by to_edge: attention's ``q @ kᵀ`` and ``p @ v`` on [B, H, L, D]
need no RESHAPE to rank 3 and back, and a transposed kᵀ no TRANSPOSE (adj_y). Other matmuls
(broadcast batch dims, 1-D operands, a constant operand, which mm makes FULLY_CONNECTED's
weights) and matmuls below feature level 6 are decomposed by to_edge (bmm / mm with views)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .common import check_float_tensors
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def emit_batch_matmul(node: Node, lc: LoweringContext) -> None:
    """One BATCH_MATMUL of ``node``'s two inputs (same rank, 2-4). An input already stored with
    its last two dims swapped (attention's kᵀ) is read as it is, with its adj flag set, so no
    TRANSPOSE is emitted. Both adj flags are always given: the header calls them optional, but
    Android's validation wants 4 inputs (docs/nnapi_facts.md §6.6)."""
    g = lc.graph
    rank = len(lc.shape(node))
    swapped = (*range(rank - 2), rank - 1, rank - 2)
    inputs, adj = [], []
    for x in node.args[:2]:
        transposed = not lc.is_constant(x) and lc.order(x) == swapped
        inputs.append(lc.operand(x, swapped if transposed else identity(rank)))
        adj.append(g.emit_bool(transposed))
    out = lc.emit_output(node, identity(rank))
    g.emit_operation(OperationCode.BATCH_MATMUL, [*inputs, *adj], [out], debug_name=node.name)


@register_builder
class MatmulBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.matmul.default, FeatureLevel.FEATURE_LEVEL_6, "BATCH_MATMUL",
                  "float32, both inputs computed, of one rank 2-4 with equal batch dims (others are decomposed)",
                  keep=True),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        a, b = node.args[:2]
        check_float_tensors(node, a, b)
        sa, sb = tensor_shape(a), tensor_shape(b)
        if len(sa) != len(sb) or not 2 <= len(sa) <= 4:
            raise Refused(f"matmul of ranks {len(sa)} and {len(sb)} (BATCH_MATMUL takes two inputs of one rank, 2-4)")
        if ctx.is_foldable(a) or ctx.is_foldable(b):
            # Decomposed instead: a constant right operand becomes FULLY_CONNECTED's weights.
            raise Refused("matmul with a constant operand (decomposed into mm / bmm)")
        if [str(d) for d in sa[:-2]] != [str(d) for d in sb[:-2]]:
            raise Refused(f"matmul with broadcast batch dims {list(sa[:-2])} and {list(sb[:-2])} "
                          "(BATCH_MATMUL takes equal batch dims)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_batch_matmul(node, lc)
