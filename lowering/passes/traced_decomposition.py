"""The last pass before partitioning: every node of an op in torch's default decomposition table
that NNAPI does not keep whole is replaced by that op's own decomposition, traced on the node's
fake values and spliced in. It is the very graph to_edge's whole-program pass would produce, at
a few milliseconds per composite node instead of re-tracing the program (transformers'
``scaled_dot_product_attention``, ``matmul``, ``pad``, ``softmax.int``, ``masked_fill``, ...).
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Collection

import torch
import torch.utils._pytree as pytree
from torch._guards import detect_fake_mode
from torch.export import ExportedProgram
from torch.fx import Graph, Node
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import free_symbols

from .graph_rewrite import rewrite_nodes

logger = logging.getLogger(__name__)


def decompose_remaining(program: ExportedProgram, table: dict[Any, Callable], keep: Collection[Any] = ()) -> int:
    """Rewrites, in place, every node of an op in the decomposition ``table`` (but
    not in ``keep``) by its traced decomposition; returns how many were rewritten.

    A node with a symbolic size or a non-tensor result is left to to_edge's own pass
    (tracing one node alone cannot carry the program's size symbols).
    """
    # A composite whose decomposition produces a kept core ATen op (aten.pad -> reflection_pad2d)
    # stops there. Only core ops: such a node was not among those the partitioner checked before
    # keeping the op, and if NNAPI then refuses it, a core op still has a portable CPU kernel.
    inner = {op: fn for op, fn in table.items() if op not in keep or torch.Tag.core not in getattr(op, "tags", ())}

    def rewrite_for(node: Node) -> Callable[[Graph, Node], Node | None] | None:
        if node.target in keep or node.target not in table:
            return None
        return lambda graph, n: traced_decomposition(graph, n, inner)

    return rewrite_nodes(program, rewrite_for)


def _is_static_tensor(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and not free_symbols(value)


def traced_decomposition(graph: Graph, node: Node, table: dict[Any, Callable]) -> Node | None:
    """Traces ``table[node.target]`` on the node's fake inputs and splices the result before ``node``
    (None: not traced, the node is left as it is)."""
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
