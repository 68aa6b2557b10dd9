"""Rewrites of the idioms of a decoder-only language model with a KV cache (ExecuTorch's llama
example and models written like it) into ops NNAPI takes at rank <= 4 and without SCATTER.

Each rewrite gives the same values as the original nodes, element for element:

* **Rotary embedding, interleaved pairs.** ``view(x, [*lead, n, 2]).unbind(-1)`` (the real and
  imaginary parts of each pair) is a rank-5 value; each part is ``x[..., i::2]``, a strided slice
  of the rank-4 ``x``. ``view(stack([a, b], -1), [*lead, 2n])`` (the pairs put back) is
  ``cat([a', b'], -1)`` viewed back, where ``a'`` is ``a`` viewed as ``[-1, h, n, 1]``: the rank-5
  stack becomes a rank-4 concatenation of the two halves with the leading dims merged.
* **KV-cache update at a run-time position.** ``index_copy(cache, d, arange(L) + p, v)`` with
  ``p`` a size read from a tensor (``input_pos[0].item()``) and ``L`` the size of ``v`` along
  ``d`` writes the run ``[p, p + L)``: that is ``slice_scatter(cache, v, d, p, p + L)``, which
  the slice-scatter builder emits without SCATTER (``lowering/builders/slice_scatter.py``).
* **KV-cache update at a position held in a tensor** (Hugging Face's StaticCache:
  ``arange(L) + cumulative_length``, a one-element int64 buffer copied from ``cache_position``).
  The write is ``index_select(cat([cache, v], d), d, idx)`` with ``idx[t] = T + t - p`` inside
  ``[p, p + L)`` and ``t`` outside (T the cache length), int64 arithmetic on p that NNAPI does
  in int32. For that, p is read clamped to ``[0, T - 1]`` everywhere but in the program's outputs:
  where eager succeeds it is there already (``index_copy`` raises IndexError otherwise), and the
  bound lets every value computed from it (the indices, the causal mask, rotary angles, the next
  position) provably fit int32 (``lowering/builders/integer_ranges.py``).
* **A causal mask sliced at a run-time position.** ``sdpa(q, k, v, attn_mask=mask[p:p + L])``
  with a constant bool ``mask`` (every row keeping a position) takes the additive float mask instead,
  ``where(mask, 0, -inf)[p:p + L]``: the ``where`` is folded at lowering time, and what is
  sliced at run time is a float constant (NNAPI's STRIDED_SLICE takes no BOOL8).
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import torch
from torch.export import ExportedProgram
from torch.fx import Graph, Node

from .graph_rewrite import bound_args, call, fake, rewrite_nodes, view_of

aten = torch.ops.aten

_END = 2**63 - 1  # a slice end meaning "to the end", as torch writes it


def _rank4_pairs_view(view: Node) -> Node | None:
    """The rank-4 input of ``view`` when it splits the last dim into (n, 2) pairs, else None."""
    if not (isinstance(view, Node) and view.op == "call_function" and view.target in (aten.view.default,
                                                                                       aten.reshape.default)):
        return None
    x = view.args[0]
    source, target = list(fake(x).shape), list(fake(view).shape)
    if len(source) != 4 or len(target) != 5 or target[-1] != 2 or str(target[:3]) != str(source[:3]):
        return None
    return x


def _pair_part(graph: Graph, node: Node) -> Node | None:
    """``unbind(view(x, [*lead, n, 2]), -1)[i]`` -> ``x[..., i::2]``."""
    unbind, index = node.args
    if not (isinstance(unbind, Node) and unbind.target is aten.unbind.int and isinstance(index, int)):
        return None
    view, dim = unbind.args[0], bound_args(unbind)["dim"]
    x = _rank4_pairs_view(view)
    if x is None or dim % 5 != 4:
        return None
    return call(graph, node, aten.slice.Tensor, (x, 3, index, _END, 2))


def _pairs_joined(graph: Graph, node: Node) -> Node | None:
    """``view(stack([a, b], -1), [*lead, 2n])`` -> ``view(cat([a', b'], -1), [*lead, 2n])``,
    ``a'`` being ``a`` viewed as ``[-1, h, n, 1]`` (rank 4 throughout)."""
    stack = node.args[0]
    if not (isinstance(stack, Node) and stack.target is aten.stack.default):
        return None
    a = bound_args(stack)
    parts, dim = list(a["tensors"]), a["dim"]
    shapes = [list(fake(p).shape) for p in parts]
    if len(parts) != 2 or dim % 5 != 4 or any(len(s) != 4 for s in shapes) or shapes[0] != shapes[1]:
        return None
    heads, n = shapes[0][2], shapes[0][3]
    if not (isinstance(heads, int) and isinstance(n, int)) or len(fake(node).shape) != 4:
        return None
    columns = [view_of(graph, node, p, [-1, heads, n, 1]) for p in parts]
    joined = call(graph, node, aten.cat.default, (columns, 3))
    return call(graph, node, node.target, (joined, node.args[1]))


def _run_start(index: Node) -> tuple[Node, Any] | None:
    """(p, L) when ``index`` is ``arange(L) + p`` with p a SymInt node or a one-element integer
    tensor, else None."""
    if not (isinstance(index, Node) and index.target is aten.add.Tensor and len(index.args) == 2):
        return None
    run, start = index.args
    if not (isinstance(run, Node) and run.target in (aten.arange.default, aten.arange.start)):
        return None
    if run.target is aten.arange.start and run.args[0] != 0:
        return None
    length = run.args[-1]
    if not isinstance(start, Node) or not (isinstance(fake(start), torch.SymInt) or _position_tensor(start)):
        return None
    if run.kwargs.get("dtype", torch.int64) not in (torch.int64, torch.int32, None):
        return None
    return start, length


def _position_tensor(node: Node) -> bool:
    """A one-element integer tensor (a position Hugging Face's StaticCache keeps as a tensor)."""
    value = fake(node)
    return isinstance(value, torch.Tensor) and value.dtype in (torch.int64, torch.int32) and value.numel() == 1


def _cache_write(node: Node) -> tuple[Node, Any, int, Node, int] | None:
    """(p, L, dim, src, size of dim) of ``index_copy(cache, dim, arange(L) + p, src)`` with L the
    size of src on dim and a static size, else None."""
    a = bound_args(node)
    found = _run_start(a["index"])
    if found is None:
        return None
    start, length = found
    values, dim = a["source"], a["dim"] % max(fake(node).dim(), 1)
    if fake(values).dim() != fake(node).dim():
        return None
    if str(fake(values).shape[dim]) != str(fake(length) if isinstance(length, Node) else length):
        return None
    size = fake(node).shape[dim]
    return start, length, dim, values, size if isinstance(size, int) else None


def _cache_update(graph: Graph, node: Node, positions: dict) -> Node | None:
    """``index_copy(cache, d, arange(L) + p, v)`` with L v's size on d -> ``slice_scatter(cache,
    v, d, p, p + L)`` for a SymInt p; for a tensor p, ``index_select(cat([cache, v], d), d, idx)``
    with ``idx`` (``_gathered_positions``, shared through ``positions``) computed from p."""
    found = _cache_write(node)
    if found is None:
        return None
    start, length, dim, values, size = found
    cache = bound_args(node)["input"]
    if isinstance(fake(start), torch.SymInt):
        end = call(graph, node, operator.add, (start, length))
        return call(graph, node, aten.slice_scatter.default, (cache, values, dim, start, end))
    if size is None:
        return None
    key = (start, str(length), size)
    if key not in positions:
        positions[key] = _gathered_positions(graph, node, start, length, size)
    both = call(graph, node, aten.cat.default, ([cache, values], dim))
    return call(graph, node, aten.index_select.default, (both, dim, positions[key]))


def _gathered_positions(graph: Graph, origin: Node, start: Node, length: Any, size: int) -> Node:
    """``idx[t] = size + t - p`` for t in ``[p, p + L)`` and ``t`` elsewhere, t in ``[0, size)``:
    where each position of the written dim is read from in ``cat([cache, v])``."""
    positions = call(graph, origin, aten.arange.default, (size,))
    end = call(graph, origin, aten.add.Tensor, (start, length))
    inside = call(graph, origin, aten.logical_and.default, (call(graph, origin, aten.ge.Tensor, (positions, start)),
                                                             call(graph, origin, aten.lt.Tensor, (positions, end))))
    shifted = call(graph, origin, aten.sub.Tensor, (call(graph, origin, aten.add.Tensor, (positions, size)), start))
    return call(graph, origin, aten.where.self, (inside, shifted, positions))


def _clamp_write_positions(program: ExportedProgram) -> int:
    """Every one-element tensor p starting a cache write (``_cache_write``) is read clamped to
    ``[0, size - 1]`` by all its readers but the program's outputs. Where eager succeeds p already
    lies there (``index_copy`` raises IndexError otherwise), so no value changes; the bound lets
    the int64 arithmetic on positions (the write's indices, a causal mask, rotary angles, the
    next position) be held in NNAPI's int32, and keeps every index in bounds whatever p is (NNAPI
    cannot raise). Returns how many positions were clamped."""
    graph = program.graph_module.graph
    sizes: dict[Node, int] = {}
    for node in graph.nodes:
        found = _cache_write(node) if node.target is aten.index_copy.default else None
        if found is not None and _position_tensor(found[0]) and found[4] is not None:
            sizes[found[0]] = min(sizes.get(found[0], found[4]), found[4])
    for start, size in sizes.items():
        with graph.inserting_after(start):
            clamped = call(graph, start, aten.clamp.default, (start, 0, size - 1))
        start.replace_all_uses_with(clamped, delete_user_cb=lambda user: user is not clamped and user.op != "output")
    return len(sizes)


def _buffer_value(program: ExportedProgram, node: Node) -> torch.Tensor | None:
    """The value of a buffer or lifted constant placeholder of ``program``, else None."""
    signature = program.graph_signature
    name = signature.inputs_to_buffers.get(node.name) or signature.inputs_to_lifted_tensor_constants.get(node.name)
    if name is None:
        return None
    value = program.state_dict.get(name)
    return value if value is not None else program.constants.get(name)


def _float_mask_source(graph: Graph, node: Node, mask: Node, program: ExportedProgram) -> Node | None:
    """``where(mask_const, 0, -inf)[p:q]`` for ``mask = mask_const[p:q]`` bool on dim 0, when every
    row of ``mask_const`` keeps a position (a row of -inf only would give NaN where a bool mask
    gives 0)."""
    if not (isinstance(mask, Node) and mask.target is aten.slice.Tensor and fake(mask).dtype == torch.bool):
        return None
    source = mask.args[0]
    value = _buffer_value(program, source) if isinstance(source, Node) and source.op == "placeholder" else None
    if value is None or value.dim() != 2 or not bool(value.any(dim=-1).all()):
        return None
    kept = call(graph, node, aten.scalar_tensor.default, (0.0,))
    masked = call(graph, node, aten.scalar_tensor.default, (float("-inf"),))
    additive = call(graph, node, aten.where.self, (source, kept, masked))
    return call(graph, node, aten.slice.Tensor, (additive, *mask.args[1:]))


def _attention_float_mask(graph: Graph, node: Node, program: ExportedProgram) -> Node | None:
    """sdpa with a constant bool mask sliced at run time -> the same with its additive float mask."""
    a = bound_args(node)
    mask = a.get("attn_mask")
    float_mask = _float_mask_source(graph, node, mask, program) if mask is not None else None
    if float_mask is None:
        return None
    args = list(node.args)
    if len(args) > 3:
        args[3] = float_mask
        kwargs = dict(node.kwargs)
    else:
        kwargs = {**node.kwargs, "attn_mask": float_mask}
    new = graph.call_function(node.target, tuple(args), kwargs)
    new.meta.update(node.meta)
    return new


_REWRITES: dict[object, Callable[[Graph, Node], Node | None]] = {
    operator.getitem: _pair_part,
    aten.view.default: _pairs_joined,
    aten.reshape.default: _pairs_joined,
}


def rewrite_language_model_idioms(program: ExportedProgram) -> int:
    """Rewrites, in place, the idioms above in an ATen-dialect functional program (nodes left
    unused are removed); returns how many nodes were rewritten."""
    clamped = _clamp_write_positions(program)
    positions: dict = {}  # one index tensor per (position, length, size): a layer's K and V writes share it
    rewrites = {**_REWRITES, aten.scaled_dot_product_attention.default:
                lambda graph, node: _attention_float_mask(graph, node, program),
                aten.index_copy.default: lambda graph, node: _cache_update(graph, node, positions)}
    count = clamped + rewrite_nodes(program, lambda node: rewrites.get(node.target))
    if count:
        program.graph_module.graph.eliminate_dead_code()
        program.graph_module.recompile()
    return count
