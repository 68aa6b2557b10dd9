"""View chains that pass through rank > 4 tensors (ViewChainUnit), with the plan
that computes each of their ends at rank <= 4.

NNAPI operands have at most 4 dims, but PyTorch models reshape through rank 5
and 6 to move data: nn.MultiheadAttention's packed in-projection
(``unflatten -> unsqueeze -> transpose -> squeeze``), Swin's window partition and
reverse (``view(B, H/w, w, W/w, w, C).permute(0, 1, 3, 2, 4, 5)...view``), its
qkv split (``view(B, N, 3, h, d).permute(2, 0, 3, 1, 4)[i]``) and its masked
attention (``view(B/nw, nw, h, N, N) + mask``). Such a *chain* starts at a
rank <= 4 value, goes through view-like ops (and elementwise ops with a
constant operand) whose results have rank > 4 and are read only inside the
chain, and ends at rank <= 4 values. Its intermediate values are never
materialized; each end is computed from the chain's input directly.

Every value of a chain is described by a ``Layout`` (node_units.py): the base (a
rank <= 4 value holding the data) is seen as a row-major grid of *factors*; the
value picks some factors at a fixed index (``select``), lists the others in its
own element order, and groups consecutive ones into its dims. A view refines the
factors, a permute reorders the groups, (un)squeeze adds or drops empty groups.
An end is then emitted (builders/view_chain.py) as: RESHAPE of the base so that
the selected factors become ranges of one dim each, STRIDED_SLICE, RESHAPE to the
free factors (merging those that stay adjacent), and either a relabeled dim
order (no operation) or TRANSPOSE + RESHAPE. A chain whose plan needs a rank > 4
operand anywhere becomes a unit with a ``refusal``, which the partitioner reports.

A slice of one index of a dim (``unbind`` reaches the edge program as such slices) is a select
that keeps the dim with size 1. An expand of a size-1 dim (grouped-query attention's
``repeat_kv``) adds a *tiled* factor: the base is TILEd (API 29) to hold it before the rest of
the plan. A transpose of 5 or 6 dims that do not merge (MobileViTv2's patch unfold) is done as
the fewest rank-4 TRANSPOSEs found by a breadth-first search over moves of contiguous blocks.

Elementwise ops inside a chain (Swin's mask add) must see their chain input
in the base's own element order (a reshape of it); they run on the value with
its size-1 dims dropped, which is rank <= 4, and become the base of what follows.
Their other operand is a constant, or a value computed at run time that is a
plain view (view / unsqueeze, no permute) of a rank <= 4 value, so a reshape of
that value (dynamic Swin's mask, built from the padded sizes at run time).

Sizes may be symbolic (dynamic H and W): a factor's size is then a sympy
expression, and a view splits or merges factors only where sympy proves the
quotient is an integer expression (a padded size is written ``7 * ceil(x / 7)``
by shape_program.as_dim, so its window split is exact).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from typing import Any, Callable, Sequence

import sympy
import torch
from torch.fx import Graph, Node

from ..nnapi_codes import OperationCode
from ..node_units import ElementwisePlan, EndPlan, Layout, NodeUnit, ViewChainUnit
from ..node_utils import aten_op, is_tensor_node, noop_copy_refusal, normalize_dim, op_name, tensor_dtype, tensor_shape
from ..shape_program import Dim, describe_unsupported, is_static
from .pattern_context import PatternContext

aten = torch.ops.aten
MAX_RANK = 4

_VIEW_OPS = frozenset({
    aten.view_copy.default, aten.permute_copy.default, aten.unsqueeze_copy.default, aten.squeeze_copy.dims,
    aten.squeeze_copy.dim, aten.squeeze_copy.default, aten.select_copy.int, aten.expand_copy.default,
    aten.slice_copy.Tensor,
})
_ELEMENTWISE = {
    aten.add.Tensor: OperationCode.ADD, aten.sub.Tensor: OperationCode.SUB, aten.mul.Tensor: OperationCode.MUL,
    aten.div.Tensor: OperationCode.DIV, aten.add.Scalar: OperationCode.ADD, aten.mul.Scalar: OperationCode.MUL,
}


class _NoMatch(Exception):
    """The chain cannot be lowered at rank <= 4, for the reason given."""


class _Operand(Exception):
    """The value is the broadcast operand of another chain's elementwise op (that chain claims it)."""


def _quotient(n: Dim, d: Dim) -> Dim | None:
    """``n / d`` if it is provably a whole number (static, or a sympy integer expression), else None."""
    if is_static(n) and is_static(d):
        return n // d if n % d == 0 else None
    q = sympy.sympify(n) / sympy.sympify(d)
    if q.is_Integer:
        return int(q)
    return q if q.is_integer else None


# ------------------------------------------------------------------ layouts
_ids = itertools.count()


def base_layout(base: Node | None, shape: Sequence[int]) -> Layout:
    """The layout of ``base`` itself."""
    factors = tuple((next(_ids), s) for s in shape if s != 1)
    groups = [1 if s != 1 else 0 for s in shape]
    return Layout(base, tuple(shape), factors, (), tuple(f for f, _ in factors), tuple(groups))


def _view(layout: Layout, shape: Sequence[int]) -> Layout:
    sizes = layout.sizes
    seq = [(f, sizes[f]) for f in layout.order]
    factors = list(layout.factors)
    groups, i = [], 0
    for s in shape:
        need, count = s, 0
        while need != 1:
            if i >= len(seq):
                raise _NoMatch(f"view to {list(shape)} does not match the element count")
            fid, f = seq[i]
            rest, inner_size = _quotient(need, f), _quotient(f, need)
            if rest is not None:
                need = rest
            elif inner_size is not None:
                # Split factor f (row-major: outer part first) so that the dim ends inside it.
                outer, inner = (next(_ids), need), (next(_ids), inner_size)
                seq[i:i + 1] = [outer, inner]
                k = factors.index((fid, f))
                factors[k:k + 1] = [outer, inner]
                need = 1
            else:
                raise _NoMatch(f"view to {list(shape)} mixes dims of the permuted value (not a pure regrouping)")
            if inner_size is not None and rest is None and fid in layout.tiled:
                raise _NoMatch(f"view to {list(shape)} splits a dim an expand added")
            i += 1
            count += 1
        groups.append(count)
    if i != len(seq):
        raise _NoMatch(f"view to {list(shape)} does not match the element count")
    return dataclasses.replace(layout, factors=tuple(factors), order=tuple(f for f, _ in seq), groups=tuple(groups))


def _permute(layout: Layout, perm: Sequence[int]) -> Layout:
    dims = layout.dims()
    rank = len(dims)
    new = [dims[normalize_dim(p, rank)] for p in perm]
    return dataclasses.replace(layout, order=tuple(f for d in new for f in d), groups=tuple(len(d) for d in new))


def _select(layout: Layout, dim: int, index: int) -> Layout:
    dims = layout.dims()
    dim = normalize_dim(dim, len(dims))
    sizes = layout.sizes
    size = math.prod(sizes[f] for f in dims[dim])
    if not (is_static(size) and all(is_static(sizes[f]) for f in dims[dim])):
        raise _NoMatch(f"select from a dim of symbolic size {size}")
    if not -size <= index < size:
        raise _NoMatch(f"select index {index} out of range for size {size}")
    index %= size
    fixed = dict(layout.fixed)
    for f in reversed(dims[dim]):  # mixed-radix digits, innermost factor last
        fixed[f] = index % sizes[f]
        index //= sizes[f]
    groups = list(layout.groups)
    del groups[dim]
    order = tuple(f for f in layout.order if f not in fixed)
    return dataclasses.replace(layout, fixed=tuple(fixed.items()), order=order, groups=tuple(groups))


def _slice(layout: Layout, dim: int, start: int | None, end: int | None, step: int) -> Layout:
    """A slice that keeps a whole dim (a view) or one index of it (unbind's slices: a select that
    keeps the dim, with size 1)."""
    rank = len(layout.groups)
    dim = normalize_dim(dim, rank)
    size = layout.shape()[dim]
    if not is_static(size):
        raise _NoMatch(f"slice of a dim of symbolic size {size}")
    start, end, _ = slice(start, end, step).indices(size)
    if step == 1 and (start, end) == (0, size):
        return layout
    if step != 1 or end - start != 1:
        raise _NoMatch(f"slice [{start}:{end}:{step}] of a rank-{rank} value (only one index or the whole dim)")
    selected = _select(layout, dim, start)
    groups = list(selected.groups)
    groups.insert(dim, 0)
    return dataclasses.replace(selected, groups=tuple(groups))


def _expand(layout: Layout, out_shape: Sequence[Dim]) -> Layout:
    """An expand of size-1 dims: each becomes a new factor, placed in the base's factor list
    right after the factor that precedes it in the value's element order (where a TILE of the
    base will make room for it)."""
    groups = [0] * (len(out_shape) - len(layout.groups)) + list(layout.groups)
    dims = [[]] * (len(out_shape) - len(layout.groups)) + layout.dims()
    factors, order, tiled = list(layout.factors), [], list(layout.tiled)
    for d, (ids, want) in enumerate(zip(dims, out_shape)):
        have = math.prod(layout.sizes[f] for f in ids)
        if want == -1 or want == have or (want == 1 and not ids):
            order.extend(ids)
            continue
        if ids:
            raise _NoMatch(f"expand of a dim of size {have} to {want}")
        if not is_static(want):
            raise _NoMatch(f"expand to a symbolic size {want}")
        new = (next(_ids), want)
        at = [f for f, _ in factors].index(order[-1]) + 1 if order else 0
        factors.insert(at, new)
        order.append(new[0])
        tiled.append(new[0])
        groups[d] = 1
    return dataclasses.replace(layout, factors=tuple(factors), order=tuple(order), groups=tuple(groups),
                               tiled=tuple(tiled))


def _apply(node: Node, layout: Layout) -> Layout:
    """Layout of ``node``'s result given its chain input's ``layout``."""
    op = aten_op(node)
    rank = len(layout.groups)
    out_shape = tensor_shape(node)
    if op == aten.view_copy.default:
        result = _view(layout, out_shape)
    elif op == aten.permute_copy.default:
        result = _permute(layout, node.args[1])
    elif op == aten.unsqueeze_copy.default:
        groups = list(layout.groups)
        groups.insert(normalize_dim(node.args[1], rank + 1), 0)
        result = dataclasses.replace(layout, groups=tuple(groups))
    elif op in (aten.squeeze_copy.dims, aten.squeeze_copy.dim, aten.squeeze_copy.default):
        arg = node.args[1] if len(node.args) > 1 else None
        dims = range(rank) if arg is None else [arg] if isinstance(arg, int) else arg
        drop = {normalize_dim(d, rank) for d in dims}
        result = dataclasses.replace(
            layout, groups=tuple(g for d, g in enumerate(layout.groups) if not (d in drop and g == 0)))
    elif op == aten.select_copy.int:
        result = _select(layout, node.args[1], node.args[2])
    elif op == aten.expand_copy.default:
        result = _expand(layout, out_shape)
    elif op == aten.slice_copy.Tensor:
        result = _slice(layout, *(list(node.args[1:]) + [0, None, None, 1][len(node.args) - 1:]))
    else:  # a no-op copy
        result = layout
    if result.shape() != out_shape:  # a bug in the algebra rather than a model property
        raise _NoMatch(f"layout tracking lost the shape at {node.name} ({result.shape()} != {out_shape})")
    return result


# -------------------------------------------------------------------- plans
def _runs(ids: Sequence[int], order: Sequence[int], same: Callable[[int, int], bool]) -> list[list[int]]:
    """``ids`` split into runs of ids that are also consecutive in ``order`` (and ``same``)."""
    position = {f: i for i, f in enumerate(order)}
    runs: list[list[int]] = []
    for f in ids:
        if runs and position[runs[-1][-1]] + 1 == position[f] and same(runs[-1][-1], f):
            runs[-1].append(f)
        else:
            runs.append([f])
    return runs


def _tiles(layout: Layout) -> tuple[tuple[Dim, int, Dim], ...]:
    """(outer, n, inner) per factor an expand added, in base order: each TILE makes room for one
    factor in the base (those before it already in place, those after it not yet)."""
    sizes, tiles = layout.sizes, []
    ids = [f for f, _ in layout.factors]
    for i, f in enumerate(ids):
        if f in layout.tiled:
            inner = math.prod(sizes[g] for g in ids[i + 1:] if g not in layout.tiled)
            tiles.append((math.prod(sizes[g] for g in ids[:i]), sizes[f], inner))
    return tuple(tiles)


def plan_end(layout: Layout, out_shape: Sequence[int]) -> EndPlan:
    """The rank <= 4 operations computing an end value; raises _NoMatch if none."""
    plan = _plan_end(layout, out_shape)
    return dataclasses.replace(plan, tiles=_tiles(layout)) if layout.tiled else plan


def _plan_end(layout: Layout, out_shape: Sequence[int]) -> EndPlan:
    sizes, fixed = layout.sizes, dict(layout.fixed)
    slice_shape, begin, end = None, (), ()
    if fixed:
        # Segments of the base: a run of selected factors followed by free ones;
        # selecting the outer factors of a segment is a range of the merged dim.
        segments: list[tuple[list[int], list[int]]] = []
        for f, _ in layout.factors:
            if f in fixed:
                if not segments or segments[-1][1]:
                    segments.append(([], []))
                segments[-1][0].append(f)
            else:
                if not segments:
                    segments.append(([], []))
                segments[-1][1].append(f)
        shape, b, e = [], [], []
        for chosen, free in segments:
            inner = math.prod(sizes[f] for f in free)
            index = 0
            for f in chosen:
                index = index * sizes[f] + fixed[f]
            shape.append(math.prod(sizes[f] for f in chosen) * inner)
            b.append(index * inner)
            e.append(index * inner + inner)
        if len(shape) > MAX_RANK:
            raise _NoMatch(f"selecting from it needs a rank-{len(shape)} STRIDED_SLICE")
        slice_shape, begin, end = tuple(shape), tuple(b), tuple(e)
    free_ids = [f for f, _ in layout.factors if f not in fixed]
    dims = layout.dims()
    dim_of = {f: d for d, ids in enumerate(dims) for f in ids}
    fine = _runs(free_ids, layout.order, lambda a, b: dim_of[a] == dim_of[b])
    nonempty = [d for d, ids in enumerate(dims) if ids]
    if len(fine) == len(nonempty) and len(fine) <= MAX_RANK:
        # Every dim is one run of the free factors: RESHAPE, then relabel (units last physically).
        free_shape = [math.prod(sizes[f] for f in run) for run in fine]
        physical = [dim_of[run[0]] for run in fine] + [d for d, ids in enumerate(dims) if not ids]
        free_shape += [1] * (len(physical) - len(fine))
        return EndPlan(layout, slice_shape, begin, end, tuple(free_shape), tuple(physical), (), tuple(out_shape))
    merged = _runs(free_ids, layout.order, lambda a, b: True)
    position = {f: i for i, f in enumerate(layout.order)}
    perm = sorted(range(len(merged)), key=lambda i: position[merged[i][0]])
    run_sizes = [math.prod(sizes[f] for f in run) for run in merged]
    if len(merged) <= MAX_RANK:
        return EndPlan(layout, slice_shape, begin, end, tuple(run_sizes), None, tuple(perm), tuple(out_shape))
    steps = transpose_steps(tuple(perm))
    if steps is None:
        raise _NoMatch(f"it is a rank-{len(merged)} transpose after merging adjacent dims")
    shapes = [(tuple(math.prod(run_sizes[r] for r in block) for block in blocks), block_perm)
              for blocks, block_perm in steps]
    return EndPlan(layout, slice_shape, begin, end, shapes[0][0], None, shapes[0][1], tuple(out_shape),
                   later_transposes=tuple(shapes[1:]))


# A permutation of more dims than NNAPI's TRANSPOSE takes is searched for as a shortest sequence of
# rank <= 4 transposes, each moving contiguous blocks of the dims as they lie after the last one.
MAX_SEARCHED_DIMS = 6


def transpose_steps(target: tuple[int, ...]) -> tuple[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]], ...] | None:
    """The fewest rank <= 4 TRANSPOSEs that turn dims ``0 .. k-1`` (in memory order) into the order
    ``target``: per step, the dims grouped into contiguous blocks (the RESHAPE) and the blocks'
    permutation. None if ``target`` has more than MAX_SEARCHED_DIMS dims."""
    if len(target) > MAX_SEARCHED_DIMS:
        return None
    previous = _shortest_transposes(len(target))
    steps = []
    state = target
    while previous[state] is not None:
        state, blocks, block_perm = previous[state]
        steps.append((blocks, block_perm))
    return tuple(reversed(steps))


@functools.lru_cache(maxsize=None)
def _shortest_transposes(k: int) -> dict[tuple[int, ...], tuple | None]:
    """Breadth-first search over the orders of k dims from ``0 .. k-1``: per order, the order it
    is reached from in the fewest steps, with that step's blocks and block permutation."""
    start = tuple(range(k))
    previous: dict[tuple[int, ...], tuple | None] = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for state in frontier:
            for blocks in _contiguous_blocks(state):
                for block_perm in itertools.permutations(range(len(blocks))):
                    moved = tuple(d for b in block_perm for d in blocks[b])
                    if moved not in previous:
                        previous[moved] = (state, blocks, block_perm)
                        following.append(moved)
        frontier = following
    return previous


def _contiguous_blocks(state: tuple[int, ...]) -> list[tuple[tuple[int, ...], ...]]:
    """Every split of ``state`` into 2 to MAX_RANK contiguous blocks."""
    k = len(state)
    splits = []
    for count in range(1, MAX_RANK):
        for cuts in itertools.combinations(range(1, k), count):
            bounds = (0, *cuts, k)
            splits.append(tuple(state[a:b] for a, b in zip(bounds, bounds[1:])))
    return splits


# ------------------------------------------------------------------ matching
def _rank(node: Any) -> int:
    return len(tensor_shape(node)) if is_tensor_node(node) else -1


def _region_input(node: Node, is_known: Callable[[Any], bool]) -> tuple[Node | None, int]:
    """(the argument through which ``node`` would join a chain, its index)."""
    op = aten_op(node)
    if op in _VIEW_OPS or noop_copy_refusal(node) is None:
        return (node.args[0], 0) if isinstance(node.args[0], Node) else (None, 0)
    if op in _ELEMENTWISE:
        args = node.args[:2]
        tensors = [i for i, a in enumerate(args) if isinstance(a, Node) and not is_known(a)]
        if len(tensors) == 2:  # the chain brings the operand of the result's shape; the other broadcasts
            tensors = [i for i in tensors if is_tensor_node(args[i]) and tensor_shape(args[i]) == tensor_shape(node)]
        if tensors:
            return args[tensors[0]], tensors[0]
    return None, 0


def _check_value(node: Node) -> None:
    if tensor_dtype(node) != torch.float32:
        raise _NoMatch(f"{node.name} is {tensor_dtype(node)} (the float path takes float32 only)")
    unsupported = describe_unsupported(tensor_shape(node))
    if unsupported:
        raise _NoMatch(f"{node.name}: {unsupported}")


_PLAIN_VIEWS = frozenset({aten.view_copy.default, aten.unsqueeze_copy.default, aten.squeeze_copy.dims,
                          aten.squeeze_copy.dim, aten.squeeze_copy.default})


def _runtime_operand(node: Node, other: Node, out_shape: Sequence[Dim]) -> tuple[Node, list[Node], tuple]:
    """(the rank <= 4 value ``other`` is a plain view of, the rank > 4 views in between,
    ``other``'s shape with the result's size-1 dims dropped)."""
    views, source = [], other
    while _rank(source) > MAX_RANK:
        if aten_op(source) not in _PLAIN_VIEWS and noop_copy_refusal(source) is not None:
            raise _NoMatch(f"{node.name}: its operand {other.name} is not a plain view of a rank <= 4 value")
        if len(source.users) != 1:
            raise _NoMatch(f"{node.name}: its rank-{_rank(source)} operand {source.name} has other readers")
        _check_value(source)
        views.append(source)
        source = source.args[0]
    if _rank(source) < 0:
        raise _NoMatch(f"{node.name}: operand {source!r}")
    _check_value(source)
    shape = tensor_shape(other)
    shape = [1] * (len(out_shape) - len(shape)) + list(shape)
    if any(s == 1 and shape[d] != 1 for d, s in enumerate(out_shape)):
        raise _NoMatch(f"{node.name}: operand {other.name} of shape {shape} does not broadcast")
    return source, views, tuple(shape[d] for d, s in enumerate(out_shape) if s != 1)


def _elementwise(node: Node, layout: Layout, arg: int, is_known: Callable[[Any], bool]) -> ElementwisePlan:
    op = aten_op(node)
    other = node.args[1 - arg]
    alpha = node.kwargs.get("alpha", 1)
    if alpha != 1 or (len(node.args) > 2 and node.args[2] != 1):
        raise _NoMatch(f"{node.name}: alpha other than 1")
    out_shape = tensor_shape(node)
    runtime = None
    if isinstance(other, Node):
        if tensor_dtype(other) not in (torch.float32, None):
            raise _NoMatch(f"{node.name}: {tensor_dtype(other)} operand")
        if not is_known(other):
            runtime = _runtime_operand(node, other, out_shape)
    elif not isinstance(other, (int, float)) or isinstance(other, bool):
        raise _NoMatch(f"{node.name}: operand {other!r}")
    if out_shape != layout.shape():
        raise _NoMatch(f"{node.name} broadcasts its rank-{len(out_shape)} input")
    if not layout.is_plain():
        raise _NoMatch(f"{node.name} reads a permuted or selected rank-{len(out_shape)} value")
    merged = _merged_dims(node, out_shape, other)
    squeezed = tuple(math.prod(out_shape[d] for d in group) for group in merged)
    if runtime is None:
        return ElementwisePlan(_ELEMENTWISE[op], layout, arg, other, squeezed, tuple(out_shape), merged_dims=merged)
    source, views, other_shape = runtime
    other_shape = _merge_shape(other_shape, out_shape, merged)
    return ElementwisePlan(_ELEMENTWISE[op], layout, arg, source, squeezed, tuple(out_shape),
                           other_views=tuple(views), other_shape=other_shape, merged_dims=merged)


def _merged_dims(node: Node, out_shape: Sequence[Dim], other: Any) -> tuple[tuple[int, ...], ...]:
    """The result's dims of size > 1, one group per dim, or, when there are more than 4 of them,
    consecutive dims merged where the other operand broadcasts alike (Swin's mask add at batch > 1:
    ``[B, nw, h, N, N] + [1, nw, 1, N, N]`` runs as ``[B, nw, h, N*N] + [1, nw, 1, N*N]``)."""
    keep = [d for d, s in enumerate(out_shape) if s != 1]
    if len(keep) <= MAX_RANK:
        return tuple((d,) for d in keep)
    shape = list(tensor_shape(other)) if is_tensor_node(other) else []
    shape = [1] * (len(out_shape) - len(shape)) + shape
    groups: list[list[int]] = []
    for d in keep:
        full = shape[d] != 1
        if groups and d == groups[-1][-1] + 1 and (shape[groups[-1][-1]] != 1) == full:
            groups[-1].append(d)
        else:
            groups.append([d])
    if len(groups) > MAX_RANK:
        raise _NoMatch(f"{node.name} has {len(keep)} dims of size > 1")
    return tuple(tuple(g) for g in groups)


def _merge_shape(other_shape: tuple, out_shape: Sequence[Dim], merged: tuple[tuple[int, ...], ...]) -> tuple:
    """``other_shape`` (the result's size-1 dims dropped) regrouped as ``merged``."""
    position = {d: i for i, d in enumerate(d for d, s in enumerate(out_shape) if s != 1)}
    return tuple(math.prod(other_shape[position[d]] for d in group) for group in merged)


def _grow(start: Node, source: Node, is_known: Callable[[Any], bool], unit: ViewChainUnit) -> None:
    """Follows the chain from ``start`` (its first rank > 4 node); raises _NoMatch."""
    _check_value(source)
    if _rank(source) > MAX_RANK or _rank(source) < 1:
        raise _NoMatch(f"its input {source.name} has rank {_rank(source)}")
    pending = [(start, base_layout(source, tensor_shape(source)))]
    while pending:
        node, layout_in = pending.pop()
        _check_value(node)
        unit.members.append(node)
        if aten_op(node) in _ELEMENTWISE:
            plan = _elementwise(node, layout_in, _region_input(node, is_known)[1], is_known)
            unit.elementwise[node] = plan
            unit.members.extend(plan.other_views)
            # The result is stored as squeezed_shape (merged dims included); seen as out_shape.
            layout = _view(base_layout(node, plan.squeezed_shape), plan.out_shape)
        else:
            layout = _apply(node, layout_in)
        if _rank(node) == 0:
            raise _NoMatch(f"{node.name} is 0-d")
        if _rank(node) <= MAX_RANK:
            unit.ends[node] = plan_end(layout, tensor_shape(node))
            continue
        for user in node.users:
            if user.op != "call_function":
                raise _NoMatch(f"the rank-{_rank(node)} value {node.name} is a program output")
            joined, _ = _region_input(user, is_known)
            if joined is not node and aten_op(user) in _ELEMENTWISE and node in user.args[:2]:
                raise _Operand()
            if joined is not node:
                raise _NoMatch(f"{user.name} ({op_name(user.target)}) reads the rank-{_rank(node)} value {node.name}")
            pending.append((user, layout))


def find_view_chains(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every view chain of ``graph`` not starting at a node an earlier matcher
    claimed (channel shuffles). A chain that cannot be done at rank <= 4 is a unit
    of its rank > 4 nodes with the ``refusal`` reason."""
    found: list[NodeUnit] = []
    taken = set(claimed)
    position = {n: i for i, n in enumerate(graph.nodes)}
    for node in graph.nodes:
        if node.op != "call_function" or _rank(node) <= MAX_RANK or node in taken or ctx.is_known(node):
            continue
        source, _ = _region_input(node, ctx.is_known)
        if source is None or _rank(source) > MAX_RANK:
            continue  # not a chain start (its chain, if any, starts earlier)
        unit = ViewChainUnit(source)
        try:
            _grow(node, source, ctx.is_known, unit)
        except _Operand:
            continue  # the chain whose elementwise op reads this value claims it
        except _NoMatch as e:
            reason = f"rank-{_rank(node)} view chain from {source.name} cannot be done at rank <= 4: {e}"
            unit = ViewChainUnit(source, [m for m in unit.members if _rank(m) > MAX_RANK], refusal=reason)
        unit.members.sort(key=position.__getitem__)
        found.append(unit)
        taken.update(unit.members)
    return found
