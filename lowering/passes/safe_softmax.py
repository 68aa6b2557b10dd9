"""The masked ("safe") softmax of scaled_dot_product_attention -> float operations
only: REDUCE_MAX, MAXIMUM, SUB, EXP, REDUCE_SUM, MAXIMUM, DIV (API 29).

PyTorch's attention decomposes its softmax so that a row whose logits are all
-inf (fully masked) gives zeros instead of NaN:

    s = softmax(x, d)
    keep = logical_not(any(logical_not(x == -inf), d, keepdim=True))
    out = where(keep, full_like(s, 0), s)

Its bool tensors have no place on the delegate's float path, and leaving them
on the CPU splits every attention layer in two. The same values come from

    m = max(max_d(x), -FLT_MAX)       # finite, also for a fully masked row
    e = exp(x - m)                    # all 0 in a fully masked row
    out = e / max(sum_d(e), FLT_MIN)  # 0 / FLT_MIN = 0 there; elsewhere sum >= 1

which is PyTorch's own softmax formula (exp(x - max) / sum) where any logit is
finite, and exactly 0 where none is. ``find_safe_softmaxes`` recognizes the
pattern for the partitioner's checks (through CheckContext) and for
``record_safe_softmaxes`` in preprocess; the ``where`` node then emits the
operations, the bool nodes emit nothing, and the softmax itself is emitted as
SOFTMAX only if something outside the pattern reads it. The partitioner keeps
a pattern's nodes in one partition (partitioners/node_groups.py), so no bool
value crosses a partition boundary.
"""

from __future__ import annotations

import dataclasses
import math

import torch
from torch.fx import Graph, Node

from ..graph import permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import aten_op, normalize_dim, tensor_dtype, tensor_shape

aten = torch.ops.aten
MAX_RANK = 4
# REDUCE_MAX, MAXIMUM, EXP, REDUCE_SUM
SAFE_SOFTMAX_FEATURE_LEVEL = FeatureLevel.ANDROID_10
_FLT_MAX = float(torch.finfo(torch.float32).max)
_FLT_MIN = float(torch.finfo(torch.float32).tiny)


@dataclasses.dataclass(frozen=True)
class SafeSoftmaxMatch:
    """One masked softmax of ``input`` over its logical dim ``dim``."""

    input: Node
    dim: int
    softmax: Node
    mask: tuple[Node, ...]   # eq, logical_not, any, logical_not, full_like: bool and fill nodes
    where: Node              # the result

    @property
    def nodes(self) -> tuple[Node, ...]:
        """The pattern's nodes, softmax first."""
        return (self.softmax, *self.mask, self.where)

    @property
    def softmax_used_outside(self) -> bool:
        inside = set(self.nodes)
        return any(u not in inside for u in self.softmax.users)


def _call(node, op) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and aten_op(node) == op


def _only_user_is(node: Node, user: Node) -> bool:
    return list(node.users) == [user]


def match_safe_softmax(where: Node) -> SafeSoftmaxMatch | None:
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
    return SafeSoftmaxMatch(x, dim, softmax, (is_inf, valid, reduced, cond, fill), where)


def find_safe_softmaxes(graph: Graph) -> dict[Node, SafeSoftmaxMatch]:
    """Every node of every masked softmax in ``graph`` -> its match."""
    found: dict[Node, SafeSoftmaxMatch] = {}
    for node in graph.nodes:
        match = match_safe_softmax(node) if node.op == "call_function" else None
        if match is not None:
            for member in match.nodes:
                found[member] = match
    return found


def emit_safe_softmax(node: Node, lc: LoweringContext, match: SafeSoftmaxMatch) -> None:
    """Emits the masked softmax as ``node``'s (the where's) value, in the input's dim order."""
    g = lc.graph
    x = match.input
    order = lc.order(x)
    axis = order.index(match.dim)
    dims = permute_shape(lc.shape(x), order)
    reduced = [1 if i == axis else d for i, d in enumerate(dims)]
    x_op = lc.operand(x, order)
    axes, keep, no_fuse = g.emit_int32_vector([axis]), g.emit_bool(True), g.emit_int32(int(FuseCode.NONE))
    steps = iter(range(1, 10))

    def op(code: OperationCode, inputs: list[int], shape, out: int | None = None) -> int:
        out = g.emit_tensor(shape, debug_name=f"{node.name}.{next(steps)}") if out is None else out
        g.emit_operation(code, inputs, [out], debug_name=node.name)
        return out

    def const(value: float) -> int:
        return g.emit_constant_tensor(torch.tensor([value], dtype=torch.float32))

    row_max = op(OperationCode.REDUCE_MAX, [x_op, axes, keep], reduced)
    row_max = op(OperationCode.MAXIMUM, [row_max, const(-_FLT_MAX)], reduced)
    shifted = op(OperationCode.SUB, [x_op, row_max, no_fuse], dims)
    exps = op(OperationCode.EXP, [shifted], dims)
    total = op(OperationCode.REDUCE_SUM, [exps, axes, keep], reduced)
    total = op(OperationCode.MAXIMUM, [total, const(_FLT_MIN)], reduced)
    op(OperationCode.DIV, [exps, total, no_fuse], dims, out=lc.emit_output(node, order))


def record_safe_softmaxes(lc: LoweringContext, graph: Graph) -> None:
    """Takes over the emission of every masked softmax (``lc.emitters``)."""
    for node, match in find_safe_softmaxes(graph).items():
        if node is match.where:
            lc.emitters[node] = lambda n, c, m=match: emit_safe_softmax(n, c, m)
        elif node is not match.softmax or not match.softmax_used_outside:
            lc.emitters[node] = lambda n, c: None
