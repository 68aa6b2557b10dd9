"""The masked ("safe") softmax of scaled_dot_product_attention as one MaskedSoftmaxUnit.

PyTorch's attention decomposes its softmax so that a row whose logits are all
-inf (fully masked) gives zeros instead of NaN:

    s = softmax(x, d)
    keep = logical_not(any(logical_not(x == -inf), d, keepdim=True))
    out = where(keep, full_like(s, 0), s)

Its bool tensors have no place on the delegate's float path, and leaving them
on the CPU splits every attention layer in two; builders/masked_softmax.py
emits the unit with float operations only.
"""

from __future__ import annotations

import math

import torch
from torch.fx import Graph, Node

from ..node_units import MaskedSoftmaxUnit, NodeUnit
from ..node_utils import aten_op, normalize_dim, tensor_dtype, tensor_shape
from .pattern_context import PatternContext

aten = torch.ops.aten
MAX_RANK = 4


def _call(node, op) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and aten_op(node) == op


def _only_user_is(node: Node, user: Node) -> bool:
    return list(node.users) == [user]


def match_masked_softmax(where: Node) -> MaskedSoftmaxUnit | None:
    """The masked softmax ending at ``where``, if the whole pattern is there."""
    if not _call(where, aten.where.self) or len(where.args) != 3:
        return None
    cond, fill, softmax = where.args
    if not (_call(softmax, aten._softmax.default) and _call(fill, aten.full_like.default)
            and _call(cond, aten.logical_not.default)):
        return None
    x = softmax.args[0]
    if not isinstance(x, Node) or tensor_dtype(x) != torch.float32 or (len(softmax.args) > 2 and softmax.args[2]):
        return None
    rank = len(tensor_shape(x))
    if not 1 <= rank <= MAX_RANK:
        return None
    dim = normalize_dim(int(softmax.args[1]), rank)
    if fill.args[0] is not softmax or fill.args[1] != 0 or fill.kwargs.get("dtype") not in (None, torch.float32):
        return None
    reduced = cond.args[0]
    if not _call(reduced, aten.any.dim) or len(reduced.args) < 3 or not reduced.args[2]:
        return None
    if normalize_dim(int(reduced.args[1]), rank) != dim:
        return None
    valid = reduced.args[0]
    if not _call(valid, aten.logical_not.default):
        return None
    is_inf = valid.args[0]
    if not _call(is_inf, aten.eq.Scalar) or is_inf.args[0] is not x:
        return None
    if not (isinstance(is_inf.args[1], float) and math.isinf(is_inf.args[1]) and is_inf.args[1] < 0):
        return None
    chain = [(is_inf, valid), (valid, reduced), (reduced, cond), (cond, where), (fill, where)]
    if not all(_only_user_is(a, b) for a, b in chain):
        return None
    return MaskedSoftmaxUnit(x, dim, softmax, (is_inf, valid, reduced, cond, fill), where)


def find_masked_softmaxes(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every masked softmax of ``graph`` whose nodes no earlier matcher claimed."""
    found: list[NodeUnit] = []
    for node in graph.nodes:
        unit = match_masked_softmax(node) if node.op == "call_function" else None
        if unit is not None and not claimed.intersection(unit.nodes):
            found.append(unit)
    return found
