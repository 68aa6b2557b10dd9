"""Indexing by integer tensors rewritten into ``index_select`` along one dim, which NNAPI runs as
one GATHER, and views.

* ``x[..., i, j, ...]`` (``aten.index.Tensor`` with integer index tensors on one or several
  dims): the indexed dims are merged into one (a view; non-adjacent ones are first moved to the
  front, where torch puts the result's index dims), the indices combined into one flat index
  ``sum_k i_k * stride_k`` over their broadcast shape, and ``index_select`` takes that flat index
  along the merged dim; a view gives the result its shape. Falcon's ``fused_qkv[..., [-2], :]``,
  ConvBERT's span unfold ``x[:, :, rows[:, :, None, None], cols]``.
* ``torch.gather(x, dim, index)`` with more than one dim of ``x`` larger than 1: the flat index
  into ``x.view(-1)`` is ``index * stride[dim]`` plus the position of each other coordinate
  (``arange(n) * stride``, broadcast), so one ``index_select`` of the flattened ``x`` does it
  (DeBERTa's relative position gathers of its content-to-position scores).
* ``x.unfold(d, size, step)`` and chains of them on distinct dims (HaloNet's
  ``pad(kv).unfold(2, w, b).unfold(3, w, b)``): ``index_select`` of every window's rows along
  each unfolded dim of ``x`` (a constant index table), one view splitting each into
  ``(windows, size)`` and one permute moving the window dims last.

Indices negative in torch's sense are wrapped (``i + n`` where ``i < 0``) after a clamp to
``[-n, n - 1]``: eager raises outside that range, so no result it gives changes, and the clamp
bounds every index so that NNAPI's int32 holds it (``builders/integer_ranges.py``). Constant
indices (an ``arange`` table, a bucket computation from sizes) are folded with all this at
lowering time; indices computed at run time take a few integer operations inside NNAPI. Only
static sizes are rewritten.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import torch
from torch.export import ExportedProgram
from torch.fx import Graph, Node

from .graph_rewrite import call, fake, rewrite_nodes

aten = torch.ops.aten
MAX_RANK = 4

_INDEX_DTYPES = (torch.int64, torch.int32)


def _static_shape(value: Any) -> list[int] | None:
    """The shape of a tensor value (a node's fake value) when every size is a plain int."""
    value = fake(value)
    if not isinstance(value, torch.Tensor) or not all(isinstance(d, int) for d in value.shape):
        return None
    return list(value.shape)


def _wrapped(graph: Graph, origin: Node, index: Node, size: int) -> Node:
    """``index`` with torch's negative indices wrapped: ``clamp(i, -n, n - 1)``, plus ``n`` where
    negative (a constant index folds it all at lowering time)."""
    clamped = call(graph, origin, aten.clamp.default, (index, -size, size - 1))
    negative = call(graph, origin, aten.lt.Scalar, (clamped, 0))
    shifted = call(graph, origin, aten.add.Tensor, (clamped, size))  # .Tensor: NNAPI's integer ADD
    return call(graph, origin, aten.where.self, (negative, shifted, clamped))


def _scaled(graph: Graph, origin: Node, index: Node, stride: int) -> Node:
    return index if stride == 1 else call(graph, origin, aten.mul.Tensor, (index, stride))


def _view(graph: Graph, origin: Node, x: Node, shape: list[int]) -> Node:
    """``x`` viewed as ``shape`` (a permuted ``x`` made dense first, as torch's reshape would)."""
    if not fake(x).is_contiguous():
        x = call(graph, origin, aten.clone.default, (x,), {"memory_format": torch.contiguous_format})
    return call(graph, origin, aten.view.default, (x, shape))


def _select_flat(graph: Graph, origin: Node, x: Node, dim: int, flat: Node, out_shape: Sequence[int]) -> Node:
    """``x`` indexed along ``dim`` by ``flat`` (any shape), giving ``out_shape``: a one-index
    ``index.Tensor`` (one GATHER with ``flat`` as it is: run-time indices need no reshape) when the
    result has rank <= 4, else ``index_select`` of ``flat`` flattened, viewed as ``out_shape``."""
    if len(_static_shape(flat)) == 1 or len(out_shape) > MAX_RANK:
        if len(_static_shape(flat)) != 1:
            flat = _view(graph, origin, flat, [-1])
        selected = call(graph, origin, aten.index_select.default, (x, dim, flat))
    else:
        selected = call(graph, origin, aten.index.Tensor, (x, [None] * dim + [flat]))
    if _static_shape(selected) == list(out_shape):
        return selected
    return _view(graph, origin, selected, list(out_shape))


# --------------------------------------------------------------------------- x[i, j]
def _index_tensor(graph: Graph, node: Node) -> Node | None:
    """``x[..., i_1, ..., i_k, ...]`` -> one index_select along the indexed dims merged."""
    x, indices = node.args[0], list(node.args[1])
    shape = _static_shape(x)
    if shape is None or _static_shape(node) is None or len(indices) > len(shape):
        return None
    indices += [None] * (len(shape) - len(indices))
    dims = [d for d, i in enumerate(indices) if i is not None]
    if not dims or any(not isinstance(indices[d], Node) or fake(indices[d]).dtype not in _INDEX_DTYPES
                       or _static_shape(indices[d]) is None for d in dims):
        return None  # bool masks (data-dependent sizes), or symbolic index shapes
    index_nodes = [indices[d] for d in dims]
    broadcast = list(torch.broadcast_shapes(*(tuple(_static_shape(i)) for i in index_nodes)))
    # torch puts the index dims first when the indexed dims are apart: x's are moved there.
    adjacent = dims == list(range(dims[0], dims[-1] + 1))
    order = list(range(len(shape))) if adjacent else dims + [d for d in range(len(shape)) if d not in dims]
    moved = [shape[d] for d in order]
    first, count = order.index(dims[0]), len(dims)
    before, after = moved[:first], moved[first + count:]
    out_shape = before + broadcast + after
    if out_shape != _static_shape(node):
        return None  # a form this rewrite does not foresee: leave the node as it is
    if not adjacent:
        x = call(graph, node, aten.permute.default, (x, order))
    if count > 1:
        x = _view(graph, node, x, before + [math.prod(shape[d] for d in dims)] + after)
    flat, stride = None, 1
    for d, index in reversed(list(zip(dims, index_nodes))):
        term = _scaled(graph, node, _wrapped(graph, node, index, shape[d]), stride)
        flat = term if flat is None else call(graph, node, aten.add.Tensor, (term, flat))
        stride *= shape[d]
    if _static_shape(flat) != broadcast:
        flat = call(graph, node, aten.expand.default, (flat, broadcast))
    return _select_flat(graph, node, x, first, flat, out_shape)


# ----------------------------------------------------------------------- gather(x, d, i)
def _size(graph: Graph, origin: Node, x: Node, dim: int) -> Any:
    """``x``'s size along ``dim``: an int, or a ``sym_size`` node when it is symbolic."""
    size = fake(x).shape[dim]
    return size if isinstance(size, int) else call(graph, origin, aten.sym_size.int, (x, dim))


def _same_size(a: Any, b: Any) -> bool:
    """Whether two sizes (ints or SymInts) are provably equal (the same expression)."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, torch.SymInt) and isinstance(b, torch.SymInt):
        return a.node.expr == b.node.expr
    return False


def _unexpanded(index: Node, rank: int, dim: int) -> tuple[Node, list[Any]]:
    """The index before the expands that broadcast it (not along ``dim``), with its shape
    padded to ``rank``."""
    source = index
    while isinstance(source, Node) and source.target is aten.expand.default:
        source = source.args[0]
    shape = [1] * (rank - fake(source).dim()) + list(fake(source).shape)
    if not _same_size(shape[dim], fake(index).shape[dim]):
        return index, list(fake(index).shape)
    return source, shape


def _gather(graph: Graph, node: Node) -> Node | None:
    """``gather(x, dim, index)`` -> one GATHER of ``x`` with its dims from the first one the index
    varies along merged, at the flat positions ``index * stride[dim]`` plus the other merged
    dims' offsets; the leading dims the index is only broadcast along stay GATHER's outer dims
    (DeBERTa's ``gather(scores [heads, L, 2k], -1, buckets [L, L] expanded)``: a flat index of
    [L, L] into ``scores.view(heads, L * 2k)``, also for a dynamic L)."""
    x, dim, index = node.args[:3]
    xv, iv = fake(x), fake(index)
    if (node.kwargs.get("sparse_grad", False) or not isinstance(xv, torch.Tensor) or xv.dim() == 0
            or iv.dtype not in _INDEX_DTYPES or iv.dim() != xv.dim()):
        return None
    shape, index_shape = list(xv.shape), list(iv.shape)
    rank, dim = len(shape), dim % len(shape)
    static = all(isinstance(d, int) for d in shape + index_shape)
    if static and sum(1 for size in shape if size != 1) <= 1:
        return None  # one dim of size > 1: the gather builder's single GATHER already
    source, source_shape = _unexpanded(index, rank, dim)
    outer = 0
    while outer < dim and _same_size(source_shape[outer], 1) and _same_size(index_shape[outer], shape[outer]):
        outer += 1
    if not all(isinstance(shape[d], int) for d in range(outer + 1, rank)) or not isinstance(shape[dim], int):
        return None  # a stride inside the merged dims would be symbolic
    strides = {d: math.prod(shape[d + 1:]) for d in range(outer, rank)}
    extra = fake(source).dim() - (rank - outer)
    if extra > 0:  # the leading size-1 dims of the unexpanded index, dropped
        source = call(graph, node, aten.squeeze.dims, (source, list(range(extra))))
    flat = _scaled(graph, node, _wrapped(graph, node, source, shape[dim]), strides[dim])
    for d in range(outer, rank):
        if d == dim or _same_size(index_shape[d], 1):
            continue
        positions = _scaled(graph, node, call(graph, node, aten.arange.default, (_size(graph, node, index, d),)),
                            strides[d])
        for _ in range(d - outer):
            positions = call(graph, node, aten.unsqueeze.default, (positions, 0))
        for _ in range(rank - 1 - d):
            positions = call(graph, node, aten.unsqueeze.default, (positions, -1))
        flat = call(graph, node, aten.add.Tensor, (flat, positions))
    merged = [_size(graph, node, x, d) for d in range(outer)] + [-1]
    x = _view(graph, node, x, merged)
    if fake(flat).dim() == 1:
        return call(graph, node, aten.index_select.default, (x, outer, flat))
    return call(graph, node, aten.index.Tensor, (x, [None] * outer + [flat]))


# ----------------------------------------------------------------------- x.unfold(d, n, s)
def _unfold_chain(node: Node) -> tuple[Node, list[tuple[int, int, int]]] | None:
    """(x, [(dim, size, step), ...] in order) of ``x.unfold(...).unfold(...)`` ending at
    ``node``, each on a distinct dim of ``x``; None if not such a chain."""
    steps = []
    while isinstance(node, Node) and node.target is aten.unfold.default:
        source = node.args[0]
        steps.append(tuple(node.args[1:4]))
        if not (isinstance(source, Node) and source.target is aten.unfold.default and len(source.users) == 1):
            node = source
            break
        node = source
    shape = _static_shape(node)
    if shape is None:
        return None
    steps.reverse()
    rank = len(shape)
    dims = [d % (rank + i) if rank + i else 0 for i, (d, _, _) in enumerate(steps)]
    if any(d >= rank for d in dims) or len(set(dims)) != len(dims):
        return None  # an unfold of a window dim, or of the same dim twice
    return node, [(d, size, step) for d, (_, size, step) in zip(dims, steps)]


def _unfold(graph: Graph, node: Node) -> Node | None:
    if len(node.users) == 1 and next(iter(node.users)).target is aten.unfold.default:
        return None  # the last unfold of the chain rewrites it whole
    found = _unfold_chain(node)
    if found is None or _static_shape(node) is None:
        return None
    x, steps = found
    shape = _static_shape(x)
    split = [[s] for s in shape]
    for dim, size, step in steps:
        windows = (shape[dim] - size) // step + 1 if size > 0 and step > 0 else 0
        if windows <= 0:
            return None
        split[dim] = [windows, size]
    # The windowed dims keep their place (as the window count); the window sizes go last, in order.
    position, kept, size_dim = 0, [], {}
    for dim, sizes in enumerate(split):
        kept.append(position)
        if len(sizes) == 2:
            size_dim[dim] = position + 1
        position += len(sizes)
    perm = kept + [size_dim[dim] for dim, _, _ in steps]
    grid = [s for sizes in split for s in sizes]
    if [grid[p] for p in perm] != _static_shape(node):
        return None
    selected = x
    for dim, size, step in steps:
        windows = split[dim][0]
        if size == step and windows * size == shape[dim]:
            continue  # the dim cut in pieces: a view alone
        rows = call(graph, node, aten.arange.start_step, (0, size, 1))
        starts = call(graph, node, aten.arange.start_step, (0, windows * step, step))
        table = call(graph, node, aten.add.Tensor, (call(graph, node, aten.view.default, (starts, [windows, 1])), rows))
        flat = call(graph, node, aten.view.default, (table, [windows * size]))
        selected = call(graph, node, aten.index_select.default, (selected, dim, flat))
    viewed = _view(graph, node, selected, grid)
    return call(graph, node, aten.permute.default, (viewed, perm))


def _drop_dead_unfolds(program: ExportedProgram) -> None:
    """The inner unfolds of a rewritten chain, read by nothing any more."""
    graph = program.graph_module.graph
    for node in reversed(list(graph.nodes)):
        if node.target is aten.unfold.default and not node.users:
            graph.erase_node(node)


_REWRITES = {aten.index.Tensor: _index_tensor, aten.gather.default: _gather, aten.unfold.default: _unfold}


def rewrite_computed_gathers(program: ExportedProgram) -> int:
    """Rewrites, in place, integer-tensor indexing, gathers of several dims and unfolds into
    index_select and views; returns how many nodes were rewritten."""
    rewritten = rewrite_nodes(program, lambda node: _REWRITES.get(node.target))
    if rewritten:
        _drop_dead_unfolds(program)
        program.graph_module.recompile()
    return rewritten
