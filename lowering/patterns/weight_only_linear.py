"""torchao's weight-only int8 linear (``quantize_(model, Int8WeightOnlyConfig())``) as one
WeightOnlyLinearUnit.

Exported and converted to edge, each such linear reads
``mm(x, _to_dim_order_copy(permute_copy(int8 weight, [1, 0]), float32)) * scale`` with the
int8 weight and the scales as parameters (the bias, if any, is a separate add after the
reshape back). Lowered node by node, the int8 permute and the cast run on the CPU every
call and hand NNAPI a float weight; as a unit the weight stays an 8-bit constant.
"""

from __future__ import annotations

import math

import torch
from torch.fx import Graph, Node

from ..node_units import NodeUnit, WeightOnlyLinearUnit
from ..node_utils import aten_op, normalize_dim, tensor_dtype, tensor_shape
from .pattern_context import PatternContext, unclaimed_matches

aten = torch.ops.aten
_CASTS = (torch.ops.dim_order_ops._to_dim_order_copy.default, aten._to_copy.default)


def _only_user(node: Node) -> Node | None:
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _is_transpose(node: Node) -> bool:
    """A permute_copy / t_copy swapping the two dims of a 2-D tensor."""
    op = aten_op(node)
    if op == aten.t_copy.default:
        return True
    if op != aten.permute_copy.default:
        return False
    return [normalize_dim(d, 2) for d in node.args[1]] == [1, 0] and len(tensor_shape(node)) == 2


def _is_int8_to_float(node: Node) -> bool:
    return (aten_op(node) in _CASTS and tensor_dtype(node) == torch.float32
            and tensor_dtype(node.args[0]) == torch.int8)


def _weight_chain(weight: Node, ctx: PatternContext) -> tuple[Node, tuple[Node, ...], bool] | None:
    """(codes, chain, transposed) when ``weight`` is a known 2-D int8 tensor cast to float32
    and perhaps transposed, each step read by the next only."""
    chain: list[Node] = []
    node = weight
    while isinstance(node, Node) and node.op == "call_function" and len(chain) < 2:
        if not (_is_transpose(node) or _is_int8_to_float(node)):
            break
        chain.insert(0, node)
        node = node.args[0]
    # The codes themselves may have other readers (a shared weight); the steps may not.
    if any(_only_user(step) is not chain[i + 1] for i, step in enumerate(chain[:-1])):
        return None
    casts = [n for n in chain if _is_int8_to_float(n)]
    if len(casts) != 1 or not ctx.is_known(node) or tensor_dtype(node) != torch.int8:
        return None
    if len(tensor_shape(node)) != 2:
        return None
    return node, tuple(chain), len(chain) == 2


def _scale_operand(mul: Node, mm: Node, ctx: PatternContext) -> Node | None:
    """The known float32 factor of ``mul`` beside ``mm``: one value per output feature
    (trailing dim) or one value, not broadcasting the result beyond mm's shape."""
    if aten_op(mul) != aten.mul.Tensor or len(mul.args) != 2:
        return None
    others = [a for a in mul.args if a is not mm]
    if len(others) != 1 or not isinstance(others[0], Node) or not ctx.is_known(others[0]):
        return None
    scale = others[0]
    if tensor_dtype(scale) != torch.float32 or tensor_shape(mul) != tensor_shape(mm):
        return None
    shape, out_features = tensor_shape(scale), tensor_shape(mm)[-1]
    if not all(isinstance(d, int) for d in shape) or len(shape) > 2:
        return None
    if math.prod(shape) == 1:
        return scale
    if shape[-1] != out_features or math.prod(shape) != out_features:
        return None
    return scale


def match_weight_only_linear(mm: Node, ctx: PatternContext) -> WeightOnlyLinearUnit | None:
    """The weight-only int8 linear whose matrix product is ``mm``, if the pattern is complete."""
    if mm.op != "call_function" or aten_op(mm) != aten.mm.default:
        return None
    found = _weight_chain(mm.args[1], ctx)
    mul = _only_user(mm)
    if found is None or mul is None or _only_user(mm.args[1]) is not mm:
        return None
    scale = _scale_operand(mul, mm, ctx)
    if scale is None:
        return None
    codes, chain, transposed = found
    return WeightOnlyLinearUnit(codes, chain, transposed, mm, scale, mul)


def find_weight_only_linears(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every weight-only int8 linear of ``graph`` whose nodes no earlier matcher claimed."""
    return unclaimed_matches(graph, claimed, lambda node: match_weight_only_linear(node, ctx))
