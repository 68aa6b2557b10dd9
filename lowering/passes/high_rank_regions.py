"""Computations on values of rank > 4 rewritten at rank <= 4 (NNAPI's operations take at most 4
dims), before partitioning.

Models reshape through rank 5 to compute per group: split attention's softmax over the radix and
its weighted sum (``view(x, [B, r, C, H, W]) * attn.view(B, r, C, 1, 1)).sum(1)``, timm's
ResNeSt, SKNet), relative position logits added as two permuted, expanded rank-5 values
(BoTNet's and HaloNet's ``rel_h.permute(0, 3, 1, 4, 2) + rel_w.permute(0, 1, 3, 2, 4)``), a gate
summed over a split dim (WavLM's ``view(B, h, T, 2, 4).sum(-1)``). The view chains of
``patterns/view_chain.py`` carry data movement through rank > 4 but take no such computation.

A *region* is a connected set of nodes whose result or input has rank > 4: data movement (view,
permute, expand, (un)squeeze, clone) and computations (elementwise, sum / mean / amax, softmax,
matmul: VOLO's outlook attention, a softmax over a window and its product with the window's
values at rank 5, runs as a rank-3 or rank-4 matmul over the merged batch dims).
Every dim of size > 1 is described by the axes of ``high_rank_axes`` (shared by every value
holding the same data), so each computation is seen as working on a list of axes: its *blocks*
are the runs of consecutive axes that every operand has or lacks alike and that are reduced
alike; merged, they are its rank <= 4 form (``[B, r, C, H, W] * [B, r, C, 1, 1]`` summed over
``r`` is ``[B*r*C, H*W] * [B*r*C, 1]``, then ``[B, r, C*H*W]`` summed over dim 1). Each operand
is made from the value it was moved from (a rank <= 4 value, or a rewritten computation) by a
view, a permute of the runs it moves (at most 4) and a view to the blocks; a dim an ``expand``
added stays of size 1 where the operation broadcasts it. A region's results of rank <= 4 are
made the same way and replace the original nodes; the rest of the region is removed.

Only regions with a computation the view chains cannot take are rewritten (a reduction, a
softmax, a matmul, a unary operation, or an operand moved by a permute or an expand or computed at run
time on both sides), with static sizes and no operation outside the list below; anything else
is left as it was, for the view chains or the CPU.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import operator
from typing import Any, Callable, Sequence

import torch
from torch.export import ExportedProgram
from torch.fx import Graph, Node

from ..constant_folding import foldable_nodes
from .graph_rewrite import call, fake, rename_outputs
from .high_rank_axes import AxisMismatch, Axes

logger = logging.getLogger(__name__)
aten = torch.ops.aten
MAX_RANK = 4

_VIEWS = {aten.view.default, aten.reshape.default, aten._unsafe_view.default}
_SQUEEZES = {aten.squeeze.dims, aten.squeeze.dim, aten.squeeze.default}
_SAME = {aten.clone.default, aten.alias.default, aten.contiguous.default, aten.detach.default,
         aten.lift_fresh_copy.default}
_MOVES = _VIEWS | _SQUEEZES | _SAME | {aten.permute.default, aten.expand.default, aten.unsqueeze.default}
_UNARY = {aten.neg.default, aten.exp.default, aten.log.default, aten.sigmoid.default, aten.tanh.default,
          aten.relu.default, aten.abs.default, aten.sqrt.default, aten.rsqrt.default, aten.reciprocal.default,
          aten.gelu.default, aten.hardtanh.default, aten.clamp.default, aten.pow.Tensor_Scalar}
# With a number: the view chains take these (Swin's scale), so alone they call for no rewrite.
_SCALAR_ARITHMETIC = {aten.add.Scalar, aten.sub.Scalar, aten.mul.Scalar, aten.div.Scalar}
_BINARY = {aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor, aten.div.Tensor, aten.maximum.default,
           aten.minimum.default, aten.where.self} | _SCALAR_ARITHMETIC
_REDUCTIONS = {aten.sum.dim_IntList, aten.mean.dim, aten.amax.default, aten.amin.default}
_SOFTMAXES = {aten._softmax.default, aten.softmax.int, aten._log_softmax.default, aten.log_softmax.int}


class _Refused(Exception):
    """The region is left as it was (the reason says why)."""


@dataclasses.dataclass
class _Value:
    """A region value: the node its data is in (``source``, rank <= 4 or a rewritten computation)
    and its dims as axes. ``plain``: moved from the source by views only."""
    source: Node
    dims: list[list[int]]
    plain: bool = True


def _shape(node: Any) -> list[int] | None:
    value = fake(node)
    if not isinstance(value, torch.Tensor):
        return None
    if not all(isinstance(d, int) for d in value.shape):
        raise _Refused(f"{node.name} has a symbolic size")
    return list(value.shape)


def _rank(node: Any) -> int:
    value = node.meta.get("val") if isinstance(node, Node) else None
    return value.dim() if isinstance(value, torch.Tensor) else -1


def _in_region(node: Node) -> bool:
    return node.op == "call_function" and (_rank(node) > MAX_RANK or any(_rank(i) > MAX_RANK
                                                                         for i in node.all_input_nodes))


def _normalized(dims: Any, rank: int) -> list[int]:
    if dims is None or (isinstance(dims, (list, tuple)) and not dims):
        return list(range(rank))
    return sorted({d % rank for d in ([dims] if isinstance(dims, int) else dims)})


class _Analysis:
    """The axes of every value of a region, and its computations' blocks."""

    def __init__(self, constants: set[Node]) -> None:
        self.axes = Axes()
        self.values: dict[Node, _Value] = {}
        self.source_axes: dict[Node, list[int]] = {}
        self.constants = constants
        self.needs_rewrite = False

    # ---------------------------------------------------------------- values
    def value(self, node: Node) -> _Value:
        if node not in self.values:  # a rank <= 4 value entering the region
            dims = [[self.axes.new(s)] if s != 1 else [] for s in _shape(node)]
            self.values[node] = _Value(node, dims)
            self.source_axes[node] = [a for d in dims for a in d]
        return self.values[node]

    def leaves(self, dims: Sequence[Sequence[int]]) -> list[int]:
        return self.axes.leaves([a for d in dims for a in d])

    def real(self, value: _Value) -> set[int]:
        """The axes ``value`` holds data along (not added by an expand)."""
        return set(self.axes.leaves(self.source_axes[value.source]))

    # ----------------------------------------------------------------- nodes
    def visit(self, node: Node) -> None:
        target = node.target
        if target in _MOVES:
            self.values[node] = self._move(node)
        elif target in _UNARY or target in _BINARY or target in _REDUCTIONS or target in _SOFTMAXES:
            self._compute(node)
        elif target is aten.matmul.default and _rank(node.args[0]) >= 2 and _rank(node.args[1]) >= 2:
            self._matmul(node)
        else:
            raise _Refused(f"{node.name} ({target}) reads or makes a rank > 4 value")

    def _move(self, node: Node) -> _Value:
        source = self.value(node.args[0])
        dims, shape, target = source.dims, _shape(node), node.target
        plain = source.plain
        if target in _VIEWS:
            dims = self.axes.regroup([a for d in dims for a in d], shape)
        elif target is aten.permute.default:
            dims = [dims[p % len(dims)] for p in node.args[1]]
            plain = False
        elif target is aten.unsqueeze.default:
            dims = list(dims)
            dims.insert(node.args[1] % (len(dims) + 1), [])
        elif target in _SQUEEZES:
            dims = self._squeezed(node, dims)
        elif target is aten.expand.default:
            dims = [[] for _ in range(len(shape) - len(dims))] + list(dims)
            dims = [d if d or s == 1 else [self.axes.new(s)] for d, s in zip(dims, shape)]
            plain = False
        return _Value(source.source, dims, plain)

    @staticmethod
    def _squeezed(node: Node, dims: list[list[int]]) -> list[list[int]]:
        rank = len(dims)
        arg = node.args[1] if len(node.args) > 1 else None
        drop = set(range(rank)) if arg is None else set(_normalized(arg, rank))
        return [d for i, d in enumerate(dims) if not (i in drop and not d)]

    def _compute(self, node: Node) -> None:
        target = node.target
        tensors = [a for a in node.args if isinstance(a, Node) and _rank(a) >= 0]
        if target in _REDUCTIONS or target in _SOFTMAXES:
            tensors = tensors[:1]
            self.needs_rewrite = True
        elif target in _UNARY:
            self.needs_rewrite = True
        operands = [self.value(t) for t in tensors]
        moved = [v for t, v in zip(tensors, operands) if _rank(t) > MAX_RANK or t in self.values
                 and self.values[t].source is not t]
        if any(not v.plain for v in moved) or sum(1 for t in tensors if t not in self.constants) > 1 and moved:
            self.needs_rewrite = True
        rank = max(len(v.dims) for v in operands)
        space = []
        for p in range(rank):
            present = [v.dims[p - rank + len(v.dims)] for v in operands if p - rank + len(v.dims) >= 0]
            full = [d for d in present if d]
            for other in full[1:]:
                self.axes.unify(full[0], other)
            space.append(full[0] if full else [])
        if target in _REDUCTIONS:
            reduced = _normalized(node.args[1] if len(node.args) > 1 else None, rank)
            keep = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
            out = [[] if d in reduced else space[d] for d in range(rank)] if keep else \
                [space[d] for d in range(rank) if d not in reduced]
        else:
            out = space
        self.values[node] = _Value(node, out)
        self.source_axes[node] = [a for d in out for a in d]


    def _matmul(self, node: Node) -> None:
        """``a @ b``: batch dims broadcast, a's last dim identified with b's second last."""
        a, b = (self.value(t) for t in node.args[:2])
        self.needs_rewrite = True  # the view chains take no matrix product
        if bool(a.dims[-1]) != bool(b.dims[-2]):
            raise _Refused(f"{node.name}: a contracted dim of size 1 on one side only")
        if a.dims[-1]:
            self.axes.unify(a.dims[-1], b.dims[-2])
        rank = max(len(a.dims), len(b.dims)) - 2
        batch = []
        for p in range(rank):
            full = [v.dims[p - rank + len(v.dims) - 2] for v in (a, b) if p - rank + len(v.dims) - 2 >= 0]
            full = [d for d in full if d]
            for other in full[1:]:
                self.axes.unify(full[0], other)
            batch.append(full[0] if full else [])
        out = batch + [a.dims[-2], b.dims[-1]]
        self.values[node] = _Value(node, out)
        self.source_axes[node] = [x for d in out for x in d]


def _regions(graph: Graph) -> list[list[Node]]:
    """The connected sets of region nodes, each in graph order."""
    parent: dict[Node, Node] = {}

    def find(n: Node) -> Node:
        while parent[n] is not n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    members = [n for n in graph.nodes if _in_region(n)]
    for n in members:
        parent[n] = n
    for n in members:
        for i in n.all_input_nodes:
            if i in parent and (_rank(i) > MAX_RANK or _rank(n) > MAX_RANK):
                parent[find(i)] = find(n)
    groups: dict[Node, list[Node]] = {}
    for n in members:
        groups.setdefault(find(n), []).append(n)
    return list(groups.values())


# ------------------------------------------------------------------ the rank <= 4 form
def _kind(axis: int, real: set[int], expand: set[int]) -> str:
    return "real" if axis in real else "expand" if axis in expand else "absent"


def _blocks(order: list[int], signature) -> list[list[int]]:
    """``order`` cut into runs of consecutive axes of equal ``signature``."""
    runs: list[tuple[list[int], Any]] = []
    for axis in order:
        sig = signature(axis)
        if runs and runs[-1][1] == sig:
            runs[-1][0].append(axis)
        else:
            runs.append(([axis], sig))
    return [r for r, _ in runs]


def _distinct(axes: list[int], what: str) -> None:
    if len(set(axes)) != len(axes):
        raise _Refused(f"{what} holds an axis twice (a value combined with a permutation of itself)")


class _Rewriter:
    """Emits the rank <= 4 form of one analysed region."""

    def __init__(self, graph: Graph, analysis: _Analysis) -> None:
        self.graph = graph
        self.a = analysis
        self.new_of: dict[Node, Node] = {}  # a rewritten computation -> its rank <= 4 node
        self.made: dict[tuple, Node] = {}  # (source, blocks, kinds) -> the operand made so

    def size(self, axes: Sequence[int]) -> int:
        return math.prod(self.a.axes.size[x] for x in axes)

    def produce(self, origin: Node, value: _Value, blocks: list[list[int]], kinds: list[str]) -> Node:
        """``value``'s data as a tensor of ``blocks`` (size 1 where ``kinds`` says absent)."""
        key = (value.source, tuple(tuple(b) for b in blocks), tuple(kinds))
        if key not in self.made:
            self.made[key] = self._produce(origin, value, blocks, kinds)
        return self.made[key]

    def _produce(self, origin: Node, value: _Value, blocks: list[list[int]], kinds: list[str]) -> Node:
        source = self.new_of.get(value.source, value.source)
        held = self.a.axes.leaves(self.a.source_axes[value.source])
        _distinct(held, value.source.name)
        wanted = [x for b, k in zip(blocks, kinds) if k == "real" for x in b]
        if sorted(wanted) != sorted(held):
            raise _Refused(f"{origin.name} reads a value whose axes it does not hold alike")
        position = {x: i for i, x in enumerate(wanted)}
        runs: list[list[int]] = []
        for x in held:
            if runs and position[runs[-1][-1]] + 1 == position[x]:
                runs[-1].append(x)
            else:
                runs.append([x])
        x = source
        order = sorted(range(len(runs)), key=lambda r: position[runs[r][0]])
        if order != list(range(len(runs))):
            if len(runs) > MAX_RANK:
                raise _Refused(f"{origin.name} needs a transpose of {len(runs)} dims")
            x = self.view(origin, x, [self.size(r) for r in runs])
            x = call(self.graph, origin, aten.permute.default, (x, order))
        shape = [self.size(b) if k == "real" else 1 for b, k in zip(blocks, kinds)]
        x = self.view(origin, x, shape)
        if "expand" in kinds:
            full = [self.size(b) if k != "absent" else 1 for b, k in zip(blocks, kinds)]
            x = call(self.graph, origin, aten.expand.default, (x, full))
            x = call(self.graph, origin, aten.clone.default, (x,), {"memory_format": torch.contiguous_format})
        return x

    def view(self, origin: Node, x: Node, shape: list[int], exact: bool = False) -> Node:
        # Inside a region a value of no dim > 1 is held as [1] (NNAPI has no rank-0 tensors); a
        # region's 0-d result (``exact``) keeps its rank, as the program's output must.
        shape = shape if exact else (shape or [1])
        if list(fake(x).shape) == shape:
            return x
        if not fake(x).is_contiguous():  # a permute's or a slice's result: torch views only dense data
            x = call(self.graph, origin, aten.clone.default, (x,), {"memory_format": torch.contiguous_format})
        return call(self.graph, origin, aten.view.default, (x, shape))

    def matmul(self, node: Node) -> None:
        """``a @ b`` on blocks: the batch runs both operands hold or broadcast alike, then M, K, N
        each merged into one dim."""
        a, b = (self.a.value(t) for t in node.args[:2])
        out = self.a.values[node].dims
        batch = self.a.leaves(out[:-2])
        m, k, n = (self.a.axes.leaves(d) for d in (out[-2], a.dims[-1], out[-1]))
        _distinct(batch + m + k + n, node.name)
        real_a, real_b = self.a.real(a), self.a.real(b)
        if not (set(m) | set(k) <= real_a and set(k) | set(n) <= real_b) or set(batch) - (real_a | real_b):
            raise _Refused(f"{node.name} multiplies a dim an expand made")
        blocks = _blocks(batch, lambda x: (x in real_a, x in real_b))
        if len(blocks) + 2 > MAX_RANK:
            raise _Refused(f"{node.name} has {len(blocks)} batch dims that do not merge")
        kinds = [["real" if b[0] in real else "absent" for b in blocks] + ["real", "real"] for real in (real_a, real_b)]
        left = self.produce(node, a, blocks + [m, k], kinds[0])
        right = self.produce(node, b, blocks + [k, n], kinds[1])
        self.new_of[node] = call(self.graph, node, aten.matmul.default, (left, right))

    def compute(self, node: Node) -> None:
        """The computation ``node`` on its operands' blocks."""
        target = node.target
        if target is aten.matmul.default:
            self.matmul(node)
            return
        tensors = [a for a in node.args if isinstance(a, Node) and _rank(a) >= 0]
        if target in _REDUCTIONS or target in _SOFTMAXES:
            tensors = tensors[:1]
        operands = [self.a.value(t) for t in tensors]
        rank = max(len(v.dims) for v in operands)
        space = self.a.values[node].dims if target not in _REDUCTIONS else None
        input_dims = operands[0].dims if target in _REDUCTIONS else space
        reduced: set[int] = set()
        if target in _REDUCTIONS:
            dims = _normalized(node.args[1] if len(node.args) > 1 else None, rank)
            reduced = {x for d in dims for x in self.a.axes.leaves(input_dims[d])}
        elif target in _SOFTMAXES:
            reduced = set(self.a.axes.leaves(space[node.args[1] % rank]))
        order = self.a.leaves(input_dims)
        _distinct(order, node.name)
        reals = [self.a.real(v) for v in operands]
        missing = set(order) - set().union(*reals)
        expands = [missing if i == 0 else set() for i in range(len(operands))]
        blocks = _blocks(order, lambda x: (x in reduced, tuple(_kind(x, r, e) for r, e in zip(reals, expands))))
        if len(blocks) > MAX_RANK:
            raise _Refused(f"{node.name} works on {len(blocks)} dims that do not merge")
        made = {t: self.produce(node, v, blocks, [_kind(b[0], r, e) for b in blocks])
                for t, v, r, e in zip(tensors, operands, reals, expands)}
        args = [made.get(a, a) if isinstance(a, Node) else a for a in node.args]
        reduced_blocks = [i for i, b in enumerate(blocks) if b[0] in reduced]
        if target in _REDUCTIONS and not reduced_blocks:
            self.new_of[node] = args[0]  # over dims of size 1 only: the value itself
            return
        if target in _REDUCTIONS:
            # keepdim, but a 0-d result stays 0-d: its builder stores it as [1] and the program's
            # output keeps its rank.
            whole = _rank(node) == 0 and len(reduced_blocks) == len(blocks)
            args = [args[0], reduced_blocks, not whole, *args[3:]]
        elif target in _SOFTMAXES:
            if len(reduced_blocks) != 1:
                raise _Refused(f"{node.name}: a softmax over {len(reduced_blocks)} blocks")
            args[1] = reduced_blocks[0]
        new = call(self.graph, node, target, tuple(args), dict(node.kwargs))
        self.new_of[node] = new

    def exit(self, node: Node) -> Node:
        """The rank <= 4 node replacing ``node``, a region value of rank <= 4."""
        if node.target not in _MOVES:
            return self.view(node, self.new_of[node], _shape(node), exact=True)
        value = self.a.values[node]
        order = self.a.leaves(value.dims)
        _distinct(order, node.name)
        real = self.a.real(value)
        blocks = _blocks(order, lambda x: x in real)
        kinds = ["real" if b[0] in real else "expand" for b in blocks]
        if len(blocks) > MAX_RANK and "expand" in kinds:
            raise _Refused(f"{node.name} expands {len(blocks)} dims that do not merge")
        if "expand" not in kinds:
            blocks, kinds = [order], ["real"]
        return self.view(node, self.produce(node, value, blocks, kinds), _shape(node), exact=True)


def _constant_nodes(program: ExportedProgram) -> set[Node]:
    sig = program.graph_signature
    names = set(sig.inputs_to_parameters) | set(sig.inputs_to_buffers) | set(sig.inputs_to_lifted_tensor_constants)
    graph = program.graph_module.graph

    def is_constant(node: Node) -> bool:
        return node.op == "get_attr" or (node.op == "placeholder" and node.name in names)

    return {n for n in graph.nodes if is_constant(n)} | foldable_nodes(graph, is_constant)


def _rewrite_region(program: ExportedProgram, nodes: list[Node], constants: set[Node]) -> bool:
    """Rewrites one region at rank <= 4 if it needs it and can; whether it did."""
    graph = program.graph_module.graph
    analysis = _Analysis(constants)
    before = set(graph.nodes)
    try:
        for node in nodes:
            if any(u.op == "output" for u in node.users) and _rank(node) > MAX_RANK:
                raise _Refused(f"{node.name} is a rank > 4 program output")
            analysis.visit(node)
        if not analysis.needs_rewrite:
            return False
        rewriter = _Rewriter(graph, analysis)
        replacements: dict[Node, Node] = {}
        before = set(graph.nodes)
        for node in nodes:
            with graph.inserting_before(node):
                if node.target not in _MOVES:
                    rewriter.compute(node)
                if _rank(node) <= MAX_RANK:
                    replacements[node] = rewriter.exit(node)
    except (_Refused, AxisMismatch) as refusal:
        logger.debug("the rank > 4 region at %s is left as it is: %s", nodes[0].name, refusal)
        for node in reversed(list(graph.nodes)):  # what a refused rewrite had added
            if node not in before:
                graph.erase_node(node)
        return False
    for node, new in replacements.items():
        node.replace_all_uses_with(new)
    rename_outputs(program, {n.name: new.name for n, new in replacements.items()})
    for node in reversed(nodes):
        if not node.users:
            graph.erase_node(node)
    return True


def _stacks_as_views(graph: Graph) -> None:
    """``stack(xs, d)`` of rank > 4 before the last dim as ``view(cat(xs, d))`` (SKNet's paths
    stacked on dim 1): the same elements in the same order, entering the region as a view."""
    for node in list(graph.nodes):
        if node.target is not aten.stack.default or _rank(node) <= MAX_RANK or any(u.op == "output"
                                                                                  for u in node.users):
            continue
        tensors = list(node.args[0])
        dim = (node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)) % _rank(node)
        if dim >= _rank(tensors[0]) or not all(isinstance(d, int) for d in fake(node).shape):
            continue
        with graph.inserting_before(node):
            joined = call(graph, node, aten.cat.default, (tensors, dim))
            view = call(graph, node, aten.view.default, (joined, _shape(node)))
        node.replace_all_uses_with(view)
        graph.erase_node(node)


def _pick_on_source(graph: Graph, node: Node, x: Node, dim: int, pick: Callable[[Node, int], Node],
                    keeps_dim: bool) -> Node | None:
    """``pick(x, dim)`` (a select, or with ``keeps_dim`` a slice) taken before the permutes, the
    unsqueezes and the view that made the rank > 4 value ``x`` from a rank <= 4 one (new nodes
    before ``node``), or None. Through a permute P, pick(permute(v, P), d) = permute(pick(v, P[d]),
    P, less d for a select); through an unsqueeze at u != d, pick(unsqueeze(v, u), d) =
    unsqueeze(pick(v, d'), u'); through a view to S of a static source s, pick(view(s, S), j) =
    view(pick(view(s, [prod(S[:j]), S[j], prod(S[j + 1:])]), 1), S with dim j picked): every step
    at rank <= 4 until the last view."""
    rank = _rank(x)
    if rank <= MAX_RANK:
        return pick(x, dim)
    if x.target is aten.permute.default and isinstance(x.args[0], Node):
        order = [d % rank for d in x.args[1]]
        inner = _pick_on_source(graph, node, x.args[0], order[dim], pick, keeps_dim)
        if inner is None:
            return None
        kept = order if keeps_dim else [o - (o > order[dim]) for k, o in enumerate(order) if k != dim]
        return inner if kept == list(range(len(kept))) else call(graph, node, aten.permute.default, (inner, kept))
    if x.target is aten.unsqueeze.default and isinstance(x.args[0], Node):
        at = x.args[1] % rank
        if at == dim:
            return None
        inner = _pick_on_source(graph, node, x.args[0], dim - (dim > at), pick, keeps_dim)
        if inner is None:
            return None
        return call(graph, node, aten.unsqueeze.default, (inner, at if keeps_dim else at - (at > dim)))
    if x.target not in _VIEWS or not isinstance(x.args[0], Node):
        return None
    source, shape = x.args[0], _shape(x)
    if shape is None or _shape(source) is None or _rank(source) > MAX_RANK:
        return None
    before, after = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
    flat = call(graph, node, aten.view.default, (source, [before, shape[dim], after]))
    chosen = pick(flat, 1)
    kept = [_shape(chosen)[1]] if keeps_dim else []
    return call(graph, node, aten.view.default, (chosen, shape[:dim] + kept + shape[dim + 1:]))


def _selects_on_sources(graph: Graph) -> None:
    """``unbind`` / ``select`` / a ranged ``slice`` of a rank > 4 value moved from a rank <= 4 one,
    taken on the source first (hiera's ``qkv.reshape(B, -1, nw, 3, h, d).permute(3, 0, 4, 2, 1,
    5).unbind(0)``, D-FINE's ``reference_points[:, :, None, :, 2:]``): the pieces enter their region
    as moves, which a select or a slice is not."""
    for node in list(graph.nodes):
        try:
            _select_pieces_on_source(graph, node)
        except _Refused as refusal:   # a symbolic size: the view chains keep what they can
            logger.debug("%s is left as it is: %s", node.name, refusal)


def _picks(graph: Graph, node: Node) -> tuple[Node, int, list[tuple[Node, Callable[[Node, int], Node]]], bool] | None:
    """(the rank > 4 value, the dim, per piece the function that picks it, whether the dim stays)
    for an unbind, a select or a slice of less than the whole dim; None for anything else."""
    x = node.args[0] if node.args else None
    if not isinstance(x, Node) or _rank(x) <= MAX_RANK:
        return None
    rank = _rank(x)
    if node.target is aten.unbind.int:
        pieces = [u for u in node.users if u.target is operator.getitem]
        if len(pieces) != len(node.users):
            return None
        dim = (node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)) % rank
        return x, dim, [(u, _select_at(graph, u, u.args[1])) for u in pieces], False
    shape = _shape(x)
    if node.target is aten.select.int:
        dim = node.args[1] % rank
        return x, dim, [(node, _select_at(graph, node, node.args[2] % shape[dim]))], False
    if node.target is aten.slice.Tensor:
        args = list(node.args[1:]) + [0, None, None, 1][len(node.args) - 1:]
        dim, (start, end, step) = args[0] % rank, slice(*args[1:4]).indices(shape[args[0] % rank])
        if step < 1 or (start, end, step) == (0, shape[dim], 1):
            return None

        def cut(v: Node, d: int) -> Node:
            return call(graph, node, aten.slice.Tensor, (v, d, start, end, step))
        return x, dim, [(node, cut)], True
    return None


def _select_at(graph: Graph, piece: Node, index: int) -> Callable[[Node, int], Node]:
    def select(v: Node, d: int) -> Node:
        return call(graph, piece, aten.select.int, (v, d, index))
    return select


def _select_pieces_on_source(graph: Graph, node: Node) -> None:
    found = _picks(graph, node)
    if found is None:
        return
    x, dim, picks, keeps_dim = found
    for piece, pick in picks:
        before = set(graph.nodes)
        with graph.inserting_before(piece):
            try:
                new = _pick_on_source(graph, piece, x, dim, pick, keeps_dim)
                if new is not None and _shape(new) != _shape(piece):
                    new = None
            except _Refused:
                new = None
        if new is None:
            for added in reversed([n for n in graph.nodes if n not in before]):
                graph.erase_node(added)
            continue
        piece.replace_all_uses_with(new)
        graph.erase_node(piece)
    if node.target is aten.unbind.int and not node.users:
        graph.erase_node(node)


def rewrite_high_rank_regions(program: ExportedProgram) -> int:
    """Rewrites, in place, every region of rank > 4 values that needs and allows it; returns the
    number of regions rewritten."""
    graph = program.graph_module.graph
    _stacks_as_views(graph)
    _selects_on_sources(graph)
    regions = _regions(graph)
    if not regions:
        return 0
    constants = _constant_nodes(program)
    done = sum(_rewrite_region(program, nodes, constants) for nodes in regions)
    if done:
        graph.lint()
        program.graph_module.recompile()
    return done
