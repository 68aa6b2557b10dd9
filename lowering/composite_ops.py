"""Rewrites the composite ATen ops of a functional program into the core ATen
ops torch's default decomposition would produce.

``to_edge_transform_and_lower`` runs a second whole-program decomposition pass
(re-tracing every node) only if the functional program still holds an op of
the default decomposition table. In a CNN those are a few composites
(``conv2d``, ``max_pool2d``, ``adaptive_avg_pool2d``, ``silu``); rewriting them
node by node costs milliseconds and lets that pass, about half of ``to_edge``'s
time, be skipped. The result is the same core ATen graph, so a node NNAPI
refuses still has a portable CPU kernel and builders see one form only.

Transformers hold more composites (``scaled_dot_product_attention``,
``matmul``, ``roll``, ``pad``, ``softmax.int``, ``masked_fill``, ...). ``roll`` by
less than its dims' least sizes is rewritten by hand into two slices and a ``cat``
per dim (torch's decomposition gathers with computed indices: ``arange``, int64
``add``/``fmod`` and ``index_select``, none of which NNAPI takes with symbolic sizes).
``decompose_remaining`` rewrites every other node of the default table by
tracing that op's own decomposition on the node's fake values and splicing the
traced nodes in: the very graph the whole-program pass would produce, at the
cost of a few milliseconds per composite node instead of re-tracing the program.
"""

from __future__ import annotations

import dataclasses
import logging
import operator
from typing import Any, Callable, Collection

import torch
import torch.utils._pytree as pytree
from torch._guards import detect_fake_mode
from torch.export import ExportedProgram
from torch.export.graph_signature import TensorArgument
from torch.fx import Graph, Node
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import free_symbols
from torch.fx.node import map_arg
from torch.fx.operator_schemas import normalize_function

from .size_bounds import least_value

aten = torch.ops.aten
logger = logging.getLogger(__name__)


def _bound_args(node: Node) -> dict[str, Any]:
    """The node's arguments by name (torch's names: ``self`` is ``input``), defaults filled in."""
    return normalize_function(node.target, node.args, node.kwargs, normalize_to_only_use_kwargs=True).kwargs


def _fake(value: Any) -> Any:
    return value.meta["val"] if isinstance(value, Node) else value


def _call(graph: Graph, origin: Node, target: Any, args: tuple) -> Node:
    """A new node computing ``target(*args)`` with ``origin``'s metadata and a fake value."""
    new = graph.call_function(target, args)
    new.meta.update({k: v for k, v in origin.meta.items() if k != "val"})
    if target is operator.getitem:
        new.meta["val"] = _fake(args[0])[args[1]]
    else:
        with detect_fake_mode(pytree.tree_leaves(origin.meta["val"])):
            new.meta["val"] = target(*map_arg(args, _fake))
    return new


def _conv2d(graph: Graph, node: Node) -> Node:
    a = _bound_args(node)
    return _call(graph, node, aten.convolution.default,
                 (a["input"], a["weight"], a["bias"], list(a["stride"]), list(a["padding"]), list(a["dilation"]),
                  False, [0, 0], a["groups"]))


def _max_pool2d(graph: Graph, node: Node) -> Node:
    a = _bound_args(node)
    pooled = _call(graph, node, aten.max_pool2d_with_indices.default,
                   (a["input"], list(a["kernel_size"]), list(a["stride"]), list(a["padding"]),
                    list(a["dilation"]), a["ceil_mode"]))
    return _call(graph, node, operator.getitem, (pooled, 0))


def _adaptive_avg_pool2d(graph: Graph, node: Node) -> Node:
    a = _bound_args(node)
    return _call(graph, node, aten._adaptive_avg_pool2d.default, (a["input"], list(a["output_size"])))


def _silu(graph: Graph, node: Node) -> Node:
    x = node.args[0]
    return _call(graph, node, aten.mul.Tensor, (x, _call(graph, node, aten.sigmoid.default, (x,))))


def _split(graph: Graph, node: Node) -> Node | None:
    a = _bound_args(node)
    length = _fake(a["input"]).shape[a["dim"]]
    if not isinstance(length, int):
        return None  # chunk count depends on a dynamic size: leave it to the decomposition
    step = a["split_size"]
    sizes = [min(step, length - start) for start in range(0, length, step)] or [0]
    return _call(graph, node, aten.split_with_sizes.default, (a["input"], sizes, a["dim"]))


def _transpose(graph: Graph, node: Node) -> Node:
    a = _bound_args(node)
    rank = _fake(a["input"]).dim()
    perm = list(range(rank))
    d0, d1 = a["dim0"] % max(rank, 1), a["dim1"] % max(rank, 1)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return _call(graph, node, aten.permute.default, (a["input"], perm))


def _squeeze_dim(graph: Graph, node: Node) -> Node:
    a = _bound_args(node)
    return _call(graph, node, aten.squeeze.dims, (a["input"], [a["dim"]]))


def _layer_norm(graph: Graph, node: Node) -> Node:
    a = _bound_args(node)
    normed = _call(graph, node, aten.native_layer_norm.default,
                   (a["input"], list(a["normalized_shape"]), a["weight"], a["bias"], a["eps"]))
    return _call(graph, node, operator.getitem, (normed, 0))


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
    a = _bound_args(node)
    shifts, dims = list(a["shifts"]), list(a["dims"])
    if not dims or len(shifts) != len(dims) or not all(isinstance(s, int) for s in shifts):
        return None
    x = a["input"]
    shape = _fake(x).shape
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
        head = _call(graph, node, aten.slice.Tensor, (out, dim, k, None))
        tail = _call(graph, node, aten.slice.Tensor, (out, dim, 0, k))
        out = _call(graph, node, aten.cat.default, ([head, tail], dim))
    return out


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
}


def decompose_composites(program: ExportedProgram) -> int:
    """Rewrites, in place, every node of a ``COMPOSITE_OPS`` op in an ATen-dialect
    functional program; returns how many were rewritten."""
    return _rewrite_nodes(program, lambda node: COMPOSITE_OPS.get(node.target))


def decompose_remaining(program: ExportedProgram, table: dict[Any, Callable], keep: Collection[Any] = ()) -> int:
    """Rewrites, in place, every node of an op in the decomposition ``table`` (but
    not in ``keep``) by its traced decomposition; returns how many were rewritten.

    A node with a symbolic size or a non-tensor result is left to to_edge's own pass
    (tracing one node alone cannot carry the program's size symbols).
    """
    def rewrite_for(node: Node) -> Callable[[Graph, Node], Node | None] | None:
        if node.target in keep or node.target not in table:
            return None
        return lambda graph, n: _traced_decomposition(graph, n, table)

    return _rewrite_nodes(program, rewrite_for)


def _is_static_tensor(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and not free_symbols(value)


def _traced_decomposition(graph: Graph, node: Node, table: dict[Any, Callable]) -> Node | None:
    """Traces ``table[node.target]`` on the node's fake inputs and splices the result before ``node``."""
    flat, spec = pytree.tree_flatten((node.args, node.kwargs))
    positions = [i for i, a in enumerate(flat) if isinstance(a, Node)]
    fakes = [flat[i].meta.get("val") for i in positions]
    if not all(_is_static_tensor(v) for v in (*fakes, node.meta.get("val"))):
        return None
    decomposition = table[node.target]

    def run(*tensors: torch.Tensor) -> Any:
        leaves = list(flat)
        for i, tensor in zip(positions, tensors):
            leaves[i] = tensor
        args, kwargs = pytree.tree_unflatten(leaves, spec)
        return decomposition(*args, **kwargs)

    try:
        with detect_fake_mode(fakes):
            traced = make_fx(run, decomposition_table=table)(*fakes)
    except Exception as error:  # noqa: BLE001 - any failure leaves the node to to_edge's pass
        logger.debug("decomposition of %s not traced (%s); to_edge decomposes it", node.name, error)
        return None
    result = traced.graph.output_node().args[0]
    if not isinstance(result, Node):
        return None  # several results: left to to_edge's pass
    placeholders = [n for n in traced.graph.nodes if n.op == "placeholder"]
    env: dict[Node, Any] = {ph: flat[i] for ph, i in zip(placeholders, positions)}
    for inner in traced.graph.nodes:
        if inner.op == "call_function":
            copy = graph.node_copy(inner, lambda a: env[a])
            copy.meta.update({k: v for k, v in node.meta.items() if k != "val"})
            copy.meta["val"] = inner.meta["val"]
            env[inner] = copy
    return env[result]


def _rewrite_nodes(program: ExportedProgram, rewrite_for: Callable[[Node], Callable | None]) -> int:
    """Replaces each call node for which ``rewrite_for`` gives a rewrite that returns a node."""
    graph_module = program.graph_module
    graph = graph_module.graph
    renamed: dict[str, str] = {}
    for node in list(graph.nodes):
        rewrite = rewrite_for(node) if node.op == "call_function" else None
        if rewrite is None:
            continue
        with graph.inserting_before(node):
            replacement = rewrite(graph, node)
        if replacement is None:
            continue
        node.replace_all_uses_with(replacement)
        renamed[node.name] = replacement.name
        graph.erase_node(node)
    if not renamed:
        return 0
    # A rewritten node may be a program output, which the signature names.
    specs = program.graph_signature.output_specs
    for i, spec in enumerate(specs):
        if isinstance(spec.arg, TensorArgument) and spec.arg.name in renamed:
            specs[i] = dataclasses.replace(spec, arg=TensorArgument(name=renamed[spec.arg.name]))
    graph.lint()
    graph_module.recompile()
    return len(renamed)
