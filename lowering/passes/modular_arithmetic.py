"""An integer remainder by a constant taken through the sums and products by constants it reads,
so that no value it needs leaves int32 (NNAPI has no 64-bit integers).

CANINE hashes each code point as ``((ids + 1) * prime) % buckets`` for eight primes: in int64 the
product of an id that may be any int32 value exceeds int32, so the partitioner refused the ``add``
and the ``mul`` (and ``remainder`` had no builder): 24 CPU operations. Taking residues first
computes the same result, since x -> x mod m respects sums and products (floor division's
remainder, the divisor's sign, as ``torch.remainder``):

    (a + c) mod m = ((a mod m) + (c mod m)) mod m,   (a * c) mod m = ((a mod m) * (c mod m)) mod m

so ``remainder(e, m)`` for ``e`` built from one integer tensor by ``add`` / ``sub`` / ``mul`` with
integer numbers becomes the same operations on residues, each followed by ``remainder(., m)``:
every value lies in [0, m) or, before its remainder, below m * m. Applied for 0 < m <= 46340
(m * m < 2^31); a residue the chain reads several times (the eight hashes of one ``ids``) is
computed once.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from torch.export import ExportedProgram
from torch.fx import Graph, Node

from .graph_rewrite import bound_args, call, fake, rewrite_nodes

aten = torch.ops.aten

LARGEST_MODULUS = 46340   # m * m < 2^31: a product of two residues fits int32
_STEPS = {aten.add.Tensor: operator.add, aten.add.Scalar: operator.add, aten.sub.Tensor: operator.sub,
          aten.sub.Scalar: operator.sub, aten.mul.Tensor: operator.mul, aten.mul.Scalar: operator.mul}


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _step(node: Any) -> tuple[Node, Any] | None:
    """(the tensor, the integer) of ``tensor op integer`` (alpha 1) on an integer tensor, else None."""
    if not isinstance(node, Node) or node.op != "call_function" or node.target not in _STEPS:
        return None
    a, c = node.args[:2]
    if bound_args(node).get("alpha", 1) != 1 or not _integer(c):
        return None
    value = fake(a) if isinstance(a, Node) else None
    if not isinstance(value, torch.Tensor) or value.dtype not in (torch.int32, torch.int64):
        return None
    return a, c


class _Residues:
    """Residues mod m of the nodes of one graph, each made once (new nodes before ``at``)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.made: dict[tuple[Node, int], Node] = {}

    def of(self, at: Node, x: Node, m: int) -> Node:
        found = self.made.get((x, m))
        if found is not None:
            return found
        step = _step(x)
        if step is None:
            reduced = call(self.graph, at, aten.remainder.Scalar, (x, m))
        else:
            a, c = step
            combined = call(self.graph, at, x.target, (self.of(at, a, m), c % m))
            reduced = call(self.graph, at, aten.remainder.Scalar, (combined, m))
        self.made[(x, m)] = reduced
        return reduced


def take_residues_first(program: ExportedProgram) -> int:
    """Rewrites, in place, every ``remainder(e, m)`` of an integer chain ``e`` as above; returns
    how many were rewritten."""
    residues = _Residues(program.graph_module.graph)

    def rewrite_for(node: Node):
        if node.target is not aten.remainder.Scalar:
            return None
        m = node.args[1]
        if not _integer(m) or not 0 < m <= LARGEST_MODULUS or _step(node.args[0]) is None:
            return None
        return lambda graph, n: residues.of(n, n.args[0], m)

    return rewrite_nodes(program, rewrite_for)
