"""Hand-written rewrites of the composite ATen ops of a functional program into the core ATen
ops torch's default decomposition would produce (the first pass before partitioning).

``to_edge_transform_and_lower`` runs a second whole-program decomposition pass
(re-tracing every node) only if the functional program still holds an op of
the default decomposition table. In a CNN those are a few composites
(``conv2d``, ``max_pool2d``, ``adaptive_avg_pool2d``, ``silu``); rewriting them
node by node costs milliseconds and lets that pass, about half of ``to_edge``'s
time, be skipped. The result is the same core ATen graph, so a node NNAPI
refuses still has a portable CPU kernel and builders see one form only.

``roll`` by less than its dims' least sizes is rewritten into two slices and a ``cat``
per dim (torch's decomposition gathers with computed indices: ``arange``, int64
``add``/``fmod`` and ``index_select``, none of which NNAPI takes with symbolic sizes).
The composites of transformers that no rewrite here covers are left to
``traced_decomposition.py``, the last pass.

``scaled_dot_product_attention`` on rank > 4 operands (windowed attention: timm's NesT and Hiera
compute ``[B, heads, windows, N, d]``) treats every dim before the last two as a batch dim; with
q, k and v sharing those dims it is the same attention on them merged into two,
``[B, heads * windows, N, d]`` (a reshape of each operand and of the mask, expanded to them, and
of the result back), which decomposes at rank 4 like a transformer's, instead of rank-5 matmuls
and a rank-5 masked softmax that NNAPI's rank-4 operations cannot hold.

``einsum`` is replaced here by torch's own decomposition (permutes, views, ``bmm``) rather than in
the last pass, so that the rank > 4 values it makes are seen by ``high_rank_regions``: MViTv2's
relative positions (``einsum("byhwc,hkc->byhwk", q, rel_h)`` added to the attention viewed at
rank 6) are then rewritten at rank 4 with the rest of their region.

``col2im`` (``F.fold``) whose windows tile the output (stride = kernel, no dilation or padding,
the output a whole number of windows: MobileViTv2's patches folded back) moves each value to one
place: a view, a permute and a view, where torch's decomposition scatters with accumulation
(``index_put``, which NNAPI has no operation for) at computed indices.

An antialiased resize (``_upsample_bilinear2d_aa`` / ``_upsample_bicubic2d_aa``) to the size it
reads, with no scale other than 1, copies its input (each output pixel's filter is centred on its
own input pixel, where the other taps weigh 0); it becomes a ``clone``. torch has no core
decomposition of these ops, so a node NNAPI does not take (timm's ``test_vit`` resamples its
constant position embedding to its own size on every call) stopped ``to_edge`` for every backend.

``scatter`` of a scalar (``mask.scatter_(1, top_k_indices, 1)``: a mixture of experts' grouped
routing marks its chosen groups) with an index as large as its input in every other dim sets the
input where some index names the position: ``where(any(index.unsqueeze(dim + 1) == arange(n),
dim), value, input)``, the same values for any index (repeated ones write the same value), in
ops NNAPI has (EQUAL, REDUCE_ANY, SELECT); ``scatter`` is a core ATen op NNAPI has no operation for.

``max.dim`` / ``min.dim`` whose indices nobody reads (attention with sinks: ``logits -
logits.max(dim=-1, keepdim=True).values``) become ``amax`` / ``amin`` of the one dim: the same
values (REDUCE_MAX / REDUCE_MIN), no index output NNAPI would have to compute.

``scatter`` of a topk's values at its indices along the same dim (a router's
``full_like(logits, -inf).scatter_(1, top_indices, top_values)``, Llama 4's) puts each value where
its index names the position: the indices are distinct within a line, so a position matches one
index at most; it becomes ``where(any(match), gather(values, argmax(match)), input)``, in ops NNAPI
has (EQUAL, REDUCE_ANY, ARGMAX, GATHER, SELECT).

A GELU written out with erf (``x * 0.5 * (1 + erf(x / √2))``) becomes one ``aten.gelu`` here too
(``written_out_gelu.py``): NNAPI has no erf, builders/gelu.py computes the exact GELU.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any, Callable, Sequence

import torch
from torch.export import ExportedProgram
from torch.fx import Graph, Node

from ..size_bounds import least_value
from .graph_rewrite import bound_args, call, fake, rename_outputs, rewrite_nodes
from .traced_decomposition import traced_decomposition
from .written_out_gelu import fold_written_out_gelus

aten = torch.ops.aten


def _conv2d(graph: Graph, node: Node) -> Node:
    a = bound_args(node)
    return call(graph, node, aten.convolution.default,
                 (a["input"], a["weight"], a["bias"], list(a["stride"]), list(a["padding"]), list(a["dilation"]),
                  False, [0, 0], a["groups"]))


def _max_pool2d(graph: Graph, node: Node) -> Node:
    a = bound_args(node)
    pooled = call(graph, node, aten.max_pool2d_with_indices.default,
                   (a["input"], list(a["kernel_size"]), list(a["stride"]), list(a["padding"]),
                    list(a["dilation"]), a["ceil_mode"]))
    return call(graph, node, operator.getitem, (pooled, 0))


def _adaptive_avg_pool2d(graph: Graph, node: Node) -> Node:
    a = bound_args(node)
    return call(graph, node, aten._adaptive_avg_pool2d.default, (a["input"], list(a["output_size"])))


def _silu(graph: Graph, node: Node) -> Node:
    x = node.args[0]
    return call(graph, node, aten.mul.Tensor, (x, call(graph, node, aten.sigmoid.default, (x,))))


def _split(graph: Graph, node: Node) -> Node | None:
    a = bound_args(node)
    length = fake(a["input"]).shape[a["dim"]]
    if not isinstance(length, int):
        return None  # chunk count depends on a dynamic size: leave it to the decomposition
    step = a["split_size"]
    sizes = [min(step, length - start) for start in range(0, length, step)] or [0]
    return call(graph, node, aten.split_with_sizes.default, (a["input"], sizes, a["dim"]))


def _transpose(graph: Graph, node: Node) -> Node:
    a = bound_args(node)
    rank = fake(a["input"]).dim()
    perm = list(range(rank))
    d0, d1 = a["dim0"] % max(rank, 1), a["dim1"] % max(rank, 1)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return call(graph, node, aten.permute.default, (a["input"], perm))


def _squeeze_dim(graph: Graph, node: Node) -> Node:
    a = bound_args(node)
    return call(graph, node, aten.squeeze.dims, (a["input"], [a["dim"]]))


def _layer_norm(graph: Graph, node: Node) -> Node:
    a = bound_args(node)
    normed = call(graph, node, aten.native_layer_norm.default,
                   (a["input"], list(a["normalized_shape"]), a["weight"], a["bias"], a["eps"]))
    return call(graph, node, operator.getitem, (normed, 0))


def _reshaped(graph: Graph, origin: Node, x: Node, shape: list[int]) -> Node:
    """``x`` viewed as ``shape``, made dense first when it is not (as torch's reshape does)."""
    if not fake(x).is_contiguous():
        x = call(graph, origin, aten.clone.default, (x,), {"memory_format": torch.contiguous_format})
    return call(graph, origin, aten.view.default, (x, shape))


def _attention_batch_merged(graph: Graph, node: Node) -> Node | None:
    """scaled_dot_product_attention of rank > 4 as the same attention with its batch dims merged
    into two (module docstring); None (left as is) at rank <= 4, with grouped-query heads, or
    when q, k, v differ in those dims or a size is dynamic."""
    a = bound_args(node)
    q, k, v, mask = a["query"], a["key"], a["value"], a["attn_mask"]
    shapes = [tuple(fake(t).shape) for t in (q, k, v)]
    rank = len(shapes[0])
    if rank <= 4 or a["enable_gqa"] or any(len(s) != rank for s in shapes):
        return None
    batch = shapes[0][:-2]
    if any(s[:-2] != batch for s in shapes) or not all(isinstance(d, int) for s in shapes for d in s):
        return None
    merged = [batch[0], math.prod(batch[1:])]

    def reshaped(value: Any, tail: Sequence[int]) -> Node:
        return _reshaped(graph, node, value, [*merged, *tail])

    if isinstance(mask, Node):
        mask_shape = tuple(fake(mask).shape)
        if not all(isinstance(d, int) for d in mask_shape):
            return None
        full = [*batch, shapes[0][-2], shapes[1][-2]]
        if list(mask_shape) != full:
            mask = call(graph, node, aten.expand.default, (mask, full))
        mask = reshaped(mask, full[-2:])
    attended = call(graph, node, aten.scaled_dot_product_attention.default,
                    (reshaped(q, shapes[0][-2:]), reshaped(k, shapes[1][-2:]), reshaped(v, shapes[2][-2:]), mask,
                     a["dropout_p"], a["is_causal"]), {"scale": a["scale"]})
    return _reshaped(graph, node, attended, [*batch, shapes[0][-2], shapes[2][-1]])


def _col2im_tiled(graph: Graph, node: Node) -> Node | None:
    """col2im of windows tiling the output as a view / permute / view (module docstring); None
    (left to torch's decomposition) for overlapping, gapped, dilated or padded windows."""
    a = bound_args(node)
    x = a["input"]
    shape = tuple(fake(x).shape)
    (kh, kw), (height, width) = list(a["kernel_size"]), list(a["output_size"])
    if (list(a["stride"]) != [kh, kw] or list(a["dilation"]) != [1, 1] or list(a["padding"]) != [0, 0]
            or not all(isinstance(d, int) for d in (*shape, height, width)) or height % kh or width % kw):
        return None
    rows, cols = height // kh, width // kw
    batch = list(shape[:-2])                     # [] for an unbatched [C * kh * kw, L] input
    channels = shape[-2] // (kh * kw)
    lead = len(batch)
    split = _reshaped(graph, node, x, [*batch, channels, kh, kw, rows, cols])
    order = [*range(lead), lead, lead + 3, lead + 1, lead + 4, lead + 2]     # C, rows, kh, cols, kw
    moved = call(graph, node, aten.permute.default, (split, order))
    return _reshaped(graph, node, moved, [*batch, channels, height, width])


@functools.cache
def _einsum_decomposition() -> dict[Any, Callable]:
    """to_edge's default decomposition table (built once; ~0.1 s)."""
    from executorch.exir.tracer import _default_decomposition_table

    return _default_decomposition_table()


def _einsum(graph: Graph, node: Node) -> Node | None:
    """einsum -> its traced decomposition (module docstring); None leaves it to the last pass."""
    return traced_decomposition(graph, node, _einsum_decomposition())


def _least_size(size: Any) -> int | None:
    """A dim's size, or for a symbolic one the least value its exported range allows."""
    if isinstance(size, int):
        return size
    if isinstance(size, torch.SymInt):
        return least_value(size.node.expr, size.node.shape_env)
    return None


def _roll(graph: Graph, node: Node) -> Node | None:
    """roll(x, shifts, dims) -> per dim cat([x[k:], x[:k]]) with k = -shift, a constant
    (negative for a positive shift) that stays valid for every size the dim may take
    when |shift| < its least size; else (or a flattened roll) torch's decomposition."""
    a = bound_args(node)
    shifts, dims = list(a["shifts"]), list(a["dims"])
    if not dims or len(shifts) != len(dims) or not all(isinstance(s, int) for s in shifts):
        return None
    x = a["input"]
    shape = fake(x).shape
    rank = len(shape)
    moves = []
    for shift, dim in zip(shifts, dims):
        size = shape[dim % max(rank, 1)]
        least = _least_size(size)
        if isinstance(size, int) and size > 0:
            shift %= size  # a static size allows any shift
        if least is None or abs(shift) >= least:
            return None
        if shift:
            moves.append((dim % rank, -shift))
    if not moves:
        return None  # no movement at all: leave the identity to the generic path
    out = x
    for dim, k in moves:
        head = call(graph, node, aten.slice.Tensor, (out, dim, k, None))
        tail = call(graph, node, aten.slice.Tensor, (out, dim, 0, k))
        out = call(graph, node, aten.cat.default, ([head, tail], dim))
    return out


def _same_size_antialiased_resize(graph: Graph, node: Node) -> Node | None:
    """An antialiased resize to its own size with no scale but 1: a copy (None for any other)."""
    x = node.args[0]
    sizes, scales = node.args[1], node.args[3] if len(node.args) > 3 else node.kwargs.get("scale_factors")
    in_hw, out_hw = list(fake(x).shape[2:]), list(fake(node).shape[2:])
    if in_hw != out_hw or (sizes is not None and list(sizes) != in_hw):
        return None
    if scales is not None and any(s != 1 for s in scales):
        return None
    return call(graph, node, aten.clone.default, (x,))


def _named_positions(graph: Graph, node: Node, index: Node, dim: int, size: int, rank: int) -> tuple[Node, Node]:
    """(match, hit) for a scatter's ``index`` along ``dim`` of a rank-``rank`` input of ``size``
    positions there: match[..., j, p, ...] = index[..., j, ...] == p (a new dim after ``dim``),
    hit = any(match) over the indices (``dim``)."""
    positions = call(graph, node, aten.arange.start, (0, size), {"dtype": fake(index).dtype})
    positions = call(graph, node, aten.view.default, (positions, [size, *[1] * (rank - 1 - dim)]))
    named = call(graph, node, aten.eq.Tensor, (call(graph, node, aten.unsqueeze.default, (index, dim + 1)), positions))
    return named, call(graph, node, aten.any.dim, (named, dim))


def _scatter_value_as_mask(graph: Graph, node: Node) -> Node | None:
    """scatter(x, dim, index, value) with a number ``value`` as a mask and a where (module
    docstring); None (left as it is) unless the index matches x in every dim but ``dim``, with
    static sizes."""
    a = bound_args(node)
    x, index, value = a["input"], a["index"], a["value"]
    shape, index_shape = list(fake(x).shape), list(fake(index).shape)
    rank = len(shape)
    if (rank == 0 or len(index_shape) != rank or isinstance(value, Node)
            or not all(isinstance(d, int) for d in (*shape, *index_shape))):
        return None
    dim = a["dim"] % rank
    if any(index_shape[d] != shape[d] for d in range(rank) if d != dim):
        return None
    named, hit = _named_positions(graph, node, index, dim, shape[dim], rank)
    filled = call(graph, node, aten.scalar_tensor.default, (value,), {"dtype": fake(x).dtype})
    return call(graph, node, aten.where.self, (hit, filled, x))


def _topk_index(index: Node, dim: int) -> bool:
    """Whether ``index`` is the indices of a topk along ``dim``: distinct within each line."""
    if index.target is not operator.getitem or index.args[1] != 1 or not isinstance(index.args[0], Node):
        return False
    topk = index.args[0]
    if topk.target is not aten.topk.default:
        return False
    a = bound_args(topk)
    return a["dim"] % fake(topk.args[0]).dim() == dim


def _scatter_distinct_as_gather(graph: Graph, node: Node) -> Node | None:
    """scatter(x, dim, index, src) where ``index`` is a topk's indices along ``dim`` (a mixture of
    experts' router: ``full_like(logits, -inf).scatter_(1, top_indices, top_values)``): each
    position named by one index takes that index's ``src`` value, found as the argmax of the
    match over the indices and gathered (exact, signed zeros and NaNs included), the others keep
    x's; None (left as it is) for other indices or shapes (repeated indices: torch leaves the
    winner unspecified)."""
    a = bound_args(node)
    x, index, src = a["input"], a["index"], a["src"]
    shape, index_shape = list(fake(x).shape), list(fake(index).shape)
    rank = len(shape)
    if (rank == 0 or len(index_shape) != rank or list(fake(src).shape) != index_shape
            or not all(isinstance(d, int) for d in (*shape, *index_shape))):
        return None
    dim = a["dim"] % rank
    if any(index_shape[d] != shape[d] for d in range(rank) if d != dim) or not _topk_index(index, dim):
        return None
    named, hit = _named_positions(graph, node, index, dim, shape[dim], rank)
    if index_shape[dim] == 1:   # one index per line: its value broadcasts along dim
        return call(graph, node, aten.where.self, (hit, src, x))
    one, zero = (call(graph, node, aten.scalar_tensor.default, (v,), {"dtype": torch.float32}) for v in (1.0, 0.0))
    which = call(graph, node, aten.argmax.default, (call(graph, node, aten.where.self, (named, one, zero)), dim))
    picked = call(graph, node, aten.gather.default, (src, dim, which))
    return call(graph, node, aten.where.self, (hit, picked, x))


def _max_values_only(graph: Graph, node: Node) -> Node | None:
    """max.dim / min.dim read only through getitem 0 (its values) -> amax / amin over the dim,
    each getitem replaced; None when the indices are read or a getitem is a program output."""
    readers = list(node.users)
    if any(u.target is not operator.getitem or (u.args[1] != 0 and u.users) for u in readers):
        return None  # the indices are read (export keeps an unread getitem 1: it does not count)
    if not readers or any(r.op == "output" for u in readers for r in u.users):
        return None
    a = bound_args(node)
    reduce = aten.amax.default if node.target == aten.max.dim else aten.amin.default
    values = call(graph, node, reduce, (a["input"], [a["dim"]], a["keepdim"]))
    for u in readers:
        u.replace_all_uses_with(values)
        graph.erase_node(u)
    return values


# Composite op -> rewrite into core ATen (the same ops torch's default
# decomposition yields), or None to leave a node to that decomposition.
COMPOSITE_OPS: dict[Any, Callable[[Graph, Node], Node | None]] = {
    aten.conv2d.default: _conv2d,
    aten.max_pool2d.default: _max_pool2d,
    aten.adaptive_avg_pool2d.default: _adaptive_avg_pool2d,
    aten.silu.default: _silu,
    aten.split.Tensor: _split,
    aten.transpose.int: _transpose,
    aten.squeeze.dim: _squeeze_dim,
    aten.layer_norm.default: _layer_norm,
    aten.roll.default: _roll,
    aten.scaled_dot_product_attention.default: _attention_batch_merged,
    aten.einsum.default: _einsum,
    aten.col2im.default: _col2im_tiled,
    aten._upsample_bilinear2d_aa.vec: _same_size_antialiased_resize,
    aten._upsample_bicubic2d_aa.vec: _same_size_antialiased_resize,
    aten.scatter.value: _scatter_value_as_mask,
    aten.scatter.src: _scatter_distinct_as_gather,
    aten.max.dim: _max_values_only,
    aten.min.dim: _max_values_only,
}


def decompose_composites(program: ExportedProgram) -> int:
    """Rewrites, in place, every node of a ``COMPOSITE_OPS`` op in an ATen-dialect
    functional program, and every GELU written out with erf (written_out_gelu.py); returns how
    many were rewritten."""
    rewritten = rewrite_nodes(program, lambda node: COMPOSITE_OPS.get(node.target))
    renamed = fold_written_out_gelus(program.graph_module.graph)
    if renamed:
        rename_outputs(program, renamed)
        program.graph_module.graph.lint()
        program.graph_module.recompile()
    return rewritten + len(renamed)
