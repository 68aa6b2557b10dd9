"""View chains that pass through rank > 4 tensors -> rank <= 4 RESHAPE /
STRIDED_SLICE / TRANSPOSE.

NNAPI operands have at most 4 dims, but PyTorch models reshape through rank 5
and 6 to move data: nn.MultiheadAttention's packed in-projection
(``unflatten -> unsqueeze -> transpose -> squeeze``), Swin's window partition and
reverse (``view(B, H/w, w, W/w, w, C).permute(0, 1, 3, 2, 4, 5)...view``), its
qkv split (``view(B, N, 3, h, d).permute(2, 0, 3, 1, 4)[i]``) and its masked
attention (``view(B/nw, nw, h, N, N) + mask``). Such a *region* starts at a
rank <= 4 value, goes through view-like ops (and elementwise ops with a
constant operand) whose results have rank > 4 and are read only inside the
region, and ends at rank <= 4 values. Its intermediate values are never
materialized; each end is computed from the region's input directly.

Every value of a region is described by a ``Layout``: the base (a rank <= 4
value holding the data) is seen as a row-major grid of *factors*; the value
picks some factors at a fixed index (``select``), lists the others in its own
element order, and groups consecutive ones into its dims. A view refines the
factors, a permute reorders the groups, (un)squeeze adds or drops empty groups.
An end is then emitted as: RESHAPE of the base so that the selected factors
become ranges of one dim each, STRIDED_SLICE, RESHAPE to the free factors
(merging those that stay adjacent), and either a relabeled dim order (no
operation) or TRANSPOSE + RESHAPE. A region whose plan needs a rank > 4
operand anywhere is refused, with that reason, by the partitioner, which
also keeps each region inside one partition (partitioners/node_groups.py).

Elementwise ops inside a region (Swin's mask add) must see their region input
in the base's own element order (a reshape of it); they run on the value with
its size-1 dims dropped, which is rank <= 4, and become the base of what follows.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any, Callable, Sequence

import torch
from torch.fx import Graph, Node

from ..builders.clone_dim_order import noop_copy_refusal
from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import aten_op, is_tensor_node, normalize_dim, op_name, tensor_dtype, tensor_shape
from ..shape_program import is_static
from .channel_shuffle import find_channel_shuffles

aten = torch.ops.aten
MAX_RANK = 4
# What every region may emit (TRANSPOSE, STRIDED_SLICE, SUB, DIV).
REGION_FEATURE_LEVEL = FeatureLevel.ANDROID_9

_VIEW_OPS = frozenset({
    aten.view_copy.default, aten.permute_copy.default, aten.unsqueeze_copy.default, aten.squeeze_copy.dims,
    aten.squeeze_copy.dim, aten.squeeze_copy.default, aten.select_copy.int, aten.expand_copy.default,
})
_ELEMENTWISE = {
    aten.add.Tensor: OperationCode.ADD, aten.sub.Tensor: OperationCode.SUB, aten.mul.Tensor: OperationCode.MUL,
    aten.div.Tensor: OperationCode.DIV, aten.add.Scalar: OperationCode.ADD, aten.mul.Scalar: OperationCode.MUL,
}


class _NoMatch(Exception):
    """The region cannot be lowered at rank <= 4, for the reason given."""


# ------------------------------------------------------------------ layouts
@dataclasses.dataclass(frozen=True)
class Layout:
    """A region value as a view of ``base`` (see the module docstring).

    ``factors`` lists (id, size) in the base's row-major order, sizes > 1;
    ``fixed`` maps a selected factor id to its index; ``order`` lists the other
    factor ids in this value's element order; ``groups`` gives, per logical
    dim, how many consecutive ids of ``order`` it spans (0 for a size-1 dim).
    """

    base: Node | None
    base_shape: tuple[int, ...]
    factors: tuple[tuple[int, int], ...]
    fixed: tuple[tuple[int, int], ...]
    order: tuple[int, ...]
    groups: tuple[int, ...]

    @property
    def sizes(self) -> dict[int, int]:
        return dict(self.factors)

    def dims(self) -> list[list[int]]:
        """Factor ids of each logical dim."""
        out, it = [], iter(self.order)
        for count in self.groups:
            out.append(list(itertools.islice(it, count)))
        return out

    def shape(self) -> list[int]:
        sizes = self.sizes
        return [math.prod(sizes[f] for f in dim) for dim in self.dims()]

    def is_plain(self) -> bool:
        """Whether the value is the base reshaped (nothing selected, base element order)."""
        return not self.fixed and list(self.order) == [f for f, _ in self.factors]


_ids = itertools.count()


def base_layout(base: Node | None, shape: Sequence[int], unit_dims: Sequence[int] = ()) -> Layout:
    """The layout of ``base`` itself (optionally with extra size-1 dims at ``unit_dims``)."""
    factors = tuple((next(_ids), int(s)) for s in shape if s != 1)
    groups = [1 if s != 1 else 0 for s in shape]
    for d in sorted(unit_dims):
        groups.insert(d, 0)
    return Layout(base, tuple(int(s) for s in shape), factors, (), tuple(f for f, _ in factors), tuple(groups))


def _view(layout: Layout, shape: Sequence[int]) -> Layout:
    sizes = layout.sizes
    seq = [(f, sizes[f]) for f in layout.order]
    factors = list(layout.factors)
    groups, i = [], 0
    for s in shape:
        need, count = int(s), 0
        while need > 1:
            if i >= len(seq):
                raise _NoMatch(f"view to {list(shape)} does not match the element count")
            fid, f = seq[i]
            if need % f == 0:
                need //= f
            elif f % need == 0:
                # Split factor f (row-major: outer part first) so that the dim ends inside it.
                outer, inner = (next(_ids), need), (next(_ids), f // need)
                seq[i:i + 1] = [outer, inner]
                k = factors.index((fid, f))
                factors[k:k + 1] = [outer, inner]
                need = 1
            else:
                raise _NoMatch(f"view to {list(shape)} mixes dims of the permuted value (not a pure regrouping)")
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


def _apply(node: Node, layout: Layout) -> Layout:
    """Layout of ``node``'s result given its region input's ``layout``."""
    op = aten_op(node)
    rank = len(layout.groups)
    out_shape = [int(d) for d in tensor_shape(node)]
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
        if out_shape != layout.shape():
            raise _NoMatch(f"expand to {out_shape} of a rank-{rank} value (only a same-shape expand is a view)")
        result = layout
    else:  # a no-op copy
        result = layout
    if result.shape() != out_shape:  # a bug in the algebra rather than a model property
        raise _NoMatch(f"layout tracking lost the shape at {node.name} ({result.shape()} != {out_shape})")
    return result


# -------------------------------------------------------------------- plans
@dataclasses.dataclass(frozen=True)
class EndPlan:
    """How one end of a region is emitted from its base (sizes are static)."""

    layout: Layout
    slice_shape: tuple[int, ...] | None      # base reshaped for STRIDED_SLICE (None: nothing selected)
    slice_begin: tuple[int, ...]
    slice_end: tuple[int, ...]
    free_shape: tuple[int, ...]              # RESHAPE target: the free factors, merged where possible
    relabel: tuple[int, ...] | None          # dim order of the result if no TRANSPOSE is needed
    perm: tuple[int, ...]                    # else TRANSPOSE perm, then RESHAPE to out_shape
    out_shape: tuple[int, ...]


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


def plan_end(layout: Layout, out_shape: Sequence[int]) -> EndPlan:
    """The rank <= 4 operations computing an end value; raises _NoMatch if none."""
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
    if len(merged) > MAX_RANK:
        raise _NoMatch(f"it is a rank-{len(merged)} transpose after merging adjacent dims")
    position = {f: i for i, f in enumerate(layout.order)}
    perm = sorted(range(len(merged)), key=lambda i: position[merged[i][0]])
    free_shape = tuple(math.prod(sizes[f] for f in run) for run in merged)
    return EndPlan(layout, slice_shape, begin, end, free_shape, None, tuple(perm), tuple(out_shape))


@dataclasses.dataclass(frozen=True)
class ElementwisePlan:
    """An elementwise op inside a region, run on its value with size-1 dims dropped."""

    code: OperationCode
    input_layout: Layout
    region_arg: int                      # which argument comes from the region (0 or 1)
    other: Any                           # the constant node or Python number
    squeezed_shape: tuple[int, ...]      # the result without its size-1 dims (rank <= 4)
    out_shape: tuple[int, ...]


@dataclasses.dataclass
class ViewRegion:
    """One region: its nodes and how each is emitted."""

    input: Node
    nodes: list[Node] = dataclasses.field(default_factory=list)
    ends: dict[Node, EndPlan] = dataclasses.field(default_factory=dict)
    elementwise: dict[Node, ElementwisePlan] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class ViewRegions:
    """All regions of a graph: member node -> region; rank > 4 node -> why its region was refused."""

    members: dict[Node, ViewRegion] = dataclasses.field(default_factory=dict)
    refusals: dict[Node, str] = dataclasses.field(default_factory=dict)

    def groups(self) -> list[list[Node]]:
        """The nodes of each region (which must share one partition), in graph order."""
        unique = {id(r): r for r in self.members.values()}
        return [r.nodes for r in unique.values()]


# ------------------------------------------------------------------ matching
def _rank(node: Any) -> int:
    return len(tensor_shape(node)) if is_tensor_node(node) else -1


def _region_input(node: Node, is_known: Callable[[Any], bool]) -> tuple[Node | None, int]:
    """(the argument through which ``node`` would join a region, its index)."""
    op = aten_op(node)
    if op in _VIEW_OPS or noop_copy_refusal(node) is None:
        return (node.args[0], 0) if isinstance(node.args[0], Node) else (None, 0)
    if op in _ELEMENTWISE:
        args = node.args[:2]
        tensors = [i for i, a in enumerate(args) if isinstance(a, Node) and not is_known(a)]
        if len(tensors) == 1:
            return args[tensors[0]], tensors[0]
    return None, 0


def _check_value(node: Node) -> None:
    if tensor_dtype(node) != torch.float32:
        raise _NoMatch(f"{node.name} is {tensor_dtype(node)} (the float path takes float32 only)")
    if not all(is_static(d) for d in tensor_shape(node)):
        raise _NoMatch(f"{node.name} has a dynamic dim")


def _elementwise(node: Node, layout: Layout, arg: int, is_known: Callable[[Any], bool]) -> ElementwisePlan:
    op = aten_op(node)
    other = node.args[1 - arg]
    alpha = node.kwargs.get("alpha", 1)
    if alpha != 1 or (len(node.args) > 2 and node.args[2] != 1):
        raise _NoMatch(f"{node.name}: alpha other than 1")
    if isinstance(other, Node):
        if not is_known(other):
            raise _NoMatch(f"{node.name}: both operands are computed at run time")
        if tensor_dtype(other) not in (torch.float32, None):
            raise _NoMatch(f"{node.name}: {tensor_dtype(other)} operand")
    elif not isinstance(other, (int, float)) or isinstance(other, bool):
        raise _NoMatch(f"{node.name}: operand {other!r}")
    out_shape = [int(d) for d in tensor_shape(node)]
    if out_shape != layout.shape():
        raise _NoMatch(f"{node.name} broadcasts its rank-{len(out_shape)} input")
    if not layout.is_plain():
        raise _NoMatch(f"{node.name} reads a permuted or selected rank-{len(out_shape)} value")
    squeezed = tuple(d for d in out_shape if d != 1)
    if len(squeezed) > MAX_RANK:
        raise _NoMatch(f"{node.name} has {len(squeezed)} dims of size > 1")
    return ElementwisePlan(_ELEMENTWISE[op], layout, arg, other, squeezed, tuple(out_shape))


def _grow(start: Node, source: Node, is_known: Callable[[Any], bool], region: ViewRegion) -> None:
    """Follows the region from ``start`` (its first rank > 4 node); raises _NoMatch."""
    _check_value(source)
    if _rank(source) > MAX_RANK or _rank(source) < 1:
        raise _NoMatch(f"its input {source.name} has rank {_rank(source)}")
    shape = [int(d) for d in tensor_shape(source)]
    pending = [(start, base_layout(source, shape))]
    while pending:
        node, layout_in = pending.pop()
        _check_value(node)
        region.nodes.append(node)
        if aten_op(node) in _ELEMENTWISE:
            plan = _elementwise(node, layout_in, _region_input(node, is_known)[1], is_known)
            region.elementwise[node] = plan
            layout = base_layout(node, plan.squeezed_shape,
                                 unit_dims=[d for d, s in enumerate(plan.out_shape) if s == 1])
        else:
            layout = _apply(node, layout_in)
        if _rank(node) == 0:
            raise _NoMatch(f"{node.name} is 0-d")
        if _rank(node) <= MAX_RANK:
            region.ends[node] = plan_end(layout, [int(d) for d in tensor_shape(node)])
            continue
        for user in node.users:
            if user.op != "call_function":
                raise _NoMatch(f"the rank-{_rank(node)} value {node.name} is a program output")
            joined, _ = _region_input(user, is_known)
            if joined is not node:
                raise _NoMatch(f"{user.name} ({op_name(user.target)}) reads the rank-{_rank(node)} value {node.name}")
            pending.append((user, layout))


def find_view_regions(graph: Graph, is_known: Callable[[Any], bool]) -> ViewRegions:
    """Every region of ``graph`` (``is_known``: node computed at lowering time).

    Channel shuffles (passes/channel_shuffle.py) are left to their own pass.
    """
    found = ViewRegions()
    shuffles = find_channel_shuffles(graph)
    for node in graph.nodes:
        if (node.op != "call_function" or _rank(node) <= MAX_RANK or node in found.members
                or node in found.refusals or node in shuffles or is_known(node)):
            continue
        source, _ = _region_input(node, is_known)
        if source is None or _rank(source) > MAX_RANK:
            continue  # not a region start (its region, if any, starts earlier)
        region = ViewRegion(source)
        try:
            _grow(node, source, is_known, region)
        except _NoMatch as e:
            reason = f"rank-{_rank(node)} view chain from {source.name} cannot be done at rank <= 4: {e}"
            for member in region.nodes:
                if _rank(member) > MAX_RANK:
                    found.refusals[member] = reason
            continue
        region.nodes.sort(key=_graph_position(graph))
        for member in region.nodes:
            found.members[member] = region
    return found


def _graph_position(graph: Graph) -> Callable[[Node], int]:
    position = {n: i for i, n in enumerate(graph.nodes)}
    return position.__getitem__


# ------------------------------------------------------------------ emission
def _memory_ordered(lc: LoweringContext, base: Node, base_shape: Sequence[int]) -> tuple[int, list[int]]:
    """``base``'s operand with its elements in row-major logical order, and its physical dims."""
    value = lc.graph.value(lc.resolve(base))
    order = value.dim_order
    if len(order) != len(base_shape):
        order = identity(len(base_shape))
    non_unit = [d for d in order if base_shape[d] != 1]
    if non_unit != sorted(non_unit):
        order = identity(len(base_shape))
    operand = lc.graph.operand_of(lc.resolve(base), order)
    return operand, [int(base_shape[d]) for d in order]


def _reshape(lc: LoweringContext, operand: int, dims: list[int], shape: Sequence[int], name: str) -> int:
    if list(dims) == list(shape):
        return operand
    g = lc.graph
    out = g.emit_tensor(list(shape), debug_name=name)
    g.emit_operation(OperationCode.RESHAPE, [operand, g.emit_int32_vector(list(shape))], [out], debug_name=name)
    return out


def emit_end(node: Node, lc: LoweringContext, plan: EndPlan, grids: dict | None = None) -> None:
    """Emits ``node``'s value (an end of a region) from the region's base.

    ``grids`` caches the base reshaped for slicing, shared by the ends of one
    region (e.g. the q, k and v selects of a packed projection).
    """
    g = lc.graph
    name = node.name
    operand, dims = _memory_ordered(lc, plan.layout.base, plan.layout.base_shape)
    if plan.slice_shape is not None:
        key = (plan.layout.base, plan.slice_shape)
        grids = {} if grids is None else grids
        if key not in grids:
            grids[key] = _reshape(lc, operand, dims, plan.slice_shape, f"{name}.grid")
        operand = grids[key]
        sliced = [e - b for b, e in zip(plan.slice_begin, plan.slice_end)]
        out = g.emit_tensor(sliced, debug_name=f"{name}.slice")
        rank = len(sliced)
        g.emit_operation(OperationCode.STRIDED_SLICE,
                         [operand, g.emit_int32_vector(plan.slice_begin), g.emit_int32_vector(plan.slice_end),
                          g.emit_int32_vector([1] * rank), g.emit_int32(0), g.emit_int32(0), g.emit_int32(0)],
                         [out], debug_name=name)
        operand, dims = out, sliced
    out_shape = list(plan.out_shape)
    if plan.relabel is not None:
        if list(dims) == list(plan.free_shape):
            out = operand
        else:
            out = g.emit_tensor(list(plan.free_shape), debug_name=name)
            g.emit_operation(OperationCode.RESHAPE, [operand, g.emit_int32_vector(list(plan.free_shape))], [out],
                             debug_name=name)
        g.set_value(node, out, plan.relabel, out_shape)
        return
    operand = _reshape(lc, operand, dims, plan.free_shape, f"{name}.factors")
    transposed_shape = [plan.free_shape[p] for p in plan.perm]
    transposed = g.emit_tensor(transposed_shape, debug_name=f"{name}.transposed")
    g.emit_operation(OperationCode.TRANSPOSE, [operand, g.emit_int32_vector(list(plan.perm))], [transposed],
                     debug_name=name)
    out = lc.emit_output(node, identity(len(out_shape)), shape=out_shape)
    g.emit_operation(OperationCode.RESHAPE, [transposed, g.emit_int32_vector(out_shape)], [out], debug_name=name)


def emit_elementwise(node: Node, lc: LoweringContext, plan: ElementwisePlan) -> None:
    """Emits an elementwise op of a region on its size-1-dims-dropped value."""
    g = lc.graph
    layout = plan.input_layout
    operand, dims = _memory_ordered(lc, layout.base, layout.base_shape)
    x_op = _reshape(lc, operand, dims, plan.squeezed_shape, f"{node.name}.input")
    if isinstance(plan.other, Node):
        other = lc.graph.constant(lc.resolve(plan.other)).to(torch.float32)
        rank = len(plan.out_shape)
        other = other.reshape([1] * (rank - other.dim()) + list(other.shape))
        keep = [d for d, s in enumerate(plan.out_shape) if s != 1]
        other = other.reshape([other.shape[d] for d in keep]) if keep else other.reshape(1)
    else:
        other = torch.tensor([float(plan.other)], dtype=torch.float32)
    other_op = g.emit_constant_tensor(other)
    inputs = [x_op, other_op] if plan.region_arg == 0 else [other_op, x_op]
    out = g.emit_tensor(list(plan.squeezed_shape) or [1], debug_name=node.name)
    g.emit_operation(plan.code, [*inputs, g.emit_int32(int(FuseCode.NONE))], [out], debug_name=node.name)
    g.set_value(node, out, identity(len(plan.squeezed_shape) or 1), list(plan.squeezed_shape) or [1])


def record_view_regions(lc: LoweringContext, graph: Graph) -> None:
    """Takes over the emission of every region's nodes (``lc.emitters``): ends and
    elementwise ops emit from the base; the other nodes emit nothing."""
    regions = find_view_regions(graph, lambda n: isinstance(n, Node) and lc.graph.is_constant(n))
    grids: dict[int, dict] = {}  # per region: see emit_end
    for node, region in regions.members.items():
        if node in lc.aliases or node in lc.channel_shuffles:
            continue
        if node in region.ends:
            plan = region.ends[node]
            cache = grids.setdefault(id(region), {})
            lc.emitters[node] = lambda n, c, p=plan, k=cache: emit_end(n, c, p, k)
        elif node in region.elementwise:
            plan = region.elementwise[node]
            lc.emitters[node] = lambda n, c, p=plan: emit_elementwise(n, c, p)
        else:
            lc.emitters[node] = lambda n, c: None
