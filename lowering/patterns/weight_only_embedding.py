"""torchao's weight-only int8 embedding (``quantize_(model, Int8WeightOnlyConfig(),
filter_fn=...)`` applied to an ``nn.Embedding``) as one WeightOnlyEmbeddingUnit.

Exported, such a lookup reads ``embedding(torchao.dequantize_affine(codes, [1, dim], scales,
zero_points, int8), ids)`` with the int8 table, the per-row scales and zero points as
parameters. Lowered node by node, the dequantize is folded at lowering time and the .pte holds
the table in float32; as a unit it stays 8-bit.
"""

from __future__ import annotations

import torch
from torch.fx import Graph, Node

from ..node_units import NodeUnit, WeightOnlyEmbeddingUnit
from ..node_utils import aten_op, tensor_dtype, tensor_shape
from .pattern_context import PatternContext, unclaimed_matches

aten = torch.ops.aten


def _dequantize_affine() -> object | None:
    """torchao's dequantize_affine op, if torchao is installed."""
    try:
        return torch.ops.torchao.dequantize_affine.default
    except (AttributeError, RuntimeError):
        return None


def match_weight_only_embedding(node: Node, ctx: PatternContext) -> WeightOnlyEmbeddingUnit | None:
    """The weight-only int8 embedding whose lookup is ``node``, if the pattern is complete."""
    if node.op != "call_function" or aten_op(node) != aten.embedding.default:
        return None
    dequantize = node.args[0]
    op = _dequantize_affine()
    if op is None or not isinstance(dequantize, Node) or aten_op(dequantize) != op or len(dequantize.users) != 1:
        return None
    codes, block, scale = dequantize.args[:3]
    zero_point = dequantize.args[3] if len(dequantize.args) > 3 else None
    if not (isinstance(codes, Node) and ctx.is_known(codes) and tensor_dtype(codes) == torch.int8):
        return None
    shape = tensor_shape(codes)
    if len(shape) != 2 or list(block) != [1, shape[1]]:
        return None  # one scale per row only
    if not (isinstance(scale, Node) and ctx.is_known(scale)):
        return None
    if zero_point is not None and not (isinstance(zero_point, Node) and ctx.is_known(zero_point)):
        return None
    return WeightOnlyEmbeddingUnit(codes, scale, zero_point, dequantize, node)


def find_weight_only_embeddings(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every weight-only int8 embedding of ``graph`` whose nodes no earlier matcher claimed."""
    return unclaimed_matches(graph, claimed, lambda node: match_weight_only_embedding(node, ctx))
