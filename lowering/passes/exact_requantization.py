"""Quantize -> dequantize pairs that change no value, removed.

convert_pt2e puts a quantize and a dequantize after every op NnapiQuantizer annotated with its
input's parameters, the data-movement ops included (view, permute, clone, select, slice, cat,
a zero pad). Such an op only moves values that are already on the grid of the dequantize it
reads, so ``dequantize(quantize(v))`` with those same parameters returns ``v`` exactly
(``(c - zp) * s`` divided by ``s`` rounds back to ``c - zp``). Left in place, the pairs cut
Swin's rank-5 / rank-6 window partitions and qkv splits into single ops, and a rank > 4 op
alone cannot run in NNAPI; without them the ops form one view chain (patterns/view_chain.py)
between the first dequantize and the next real quantize (a float op inside, such as the mask add
the quantizer leaves float at rank 5, reads the exact value too). Only pairs on a value of rank > 4 are
removed: those on a rank <= 4 value (a cat's result, a class token) keep the ops around them 8-bit.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram
from torch.fx import Node

from ..node_utils import is_dequantize, is_per_channel, is_quantize

aten = torch.ops.aten

# Ops whose result is made of their tensor inputs' elements only (moved, repeated or selected).
_DATA_MOVEMENT = frozenset({
    aten.view.default, aten.reshape.default, aten._unsafe_view.default, aten.permute.default,
    aten.clone.default, aten.contiguous.default, aten.unsqueeze.default, aten.squeeze.dim,
    aten.squeeze.dims, aten.select.int, aten.slice.Tensor, aten.expand.default, aten.transpose.int,
    aten.flatten.using_ints, aten.cat.default, aten.alias.default,
})


def _zero_pad(node: Node) -> bool:
    """A constant pad with 0, which is on every 8-bit grid (the zero point)."""
    if node.target is aten.constant_pad_nd.default:
        return (node.args[2] if len(node.args) > 2 else node.kwargs.get("value", 0)) == 0
    if node.target is aten.pad.default:
        mode = node.args[2] if len(node.args) > 2 else node.kwargs.get("mode", "constant")
        value = node.args[3] if len(node.args) > 3 else node.kwargs.get("value", None)
        return mode == "constant" and value in (None, 0, 0.0)
    return False


def moves_data(node: Node) -> bool:
    """Whether ``node``'s result is made of its tensor inputs' elements only (moved, repeated or selected)."""
    return node.op == "call_function" and (node.target in _DATA_MOVEMENT or _zero_pad(node))


def _computes_in_float(node: Node) -> bool:
    """An op the quantizer left float (no quantize reads its result), such as Swin's rank-5 mask add."""
    return node.op == "call_function" and bool(node.users) and not any(is_quantize(u) for u in node.users)


def _rank(node: Node) -> int:
    val = node.meta.get("val")
    return val.dim() if isinstance(val, torch.Tensor) else 0


def _tensor_inputs(node: Node) -> list[Node]:
    return [n for n in node.all_input_nodes if isinstance(n.meta.get("val"), torch.Tensor)]


def _on_grid(node: Node, params: tuple, seen: dict[Node, bool]) -> bool:
    """Whether every element of ``node`` is a dequantized code of ``params`` (moved only)."""
    if node in seen:
        return seen[node]
    seen[node] = False  # no cycles in a graph; this only guards the recursion
    if is_dequantize(node):
        result = not is_per_channel(node) and tuple(node.args[1:]) == params
    elif moves_data(node):
        inputs = _tensor_inputs(node)
        result = bool(inputs) and all(_on_grid(i, params, seen) for i in inputs)
    else:
        result = False
    seen[node] = result
    return result


def drop_exact_requantizations(program: ExportedProgram) -> int:
    """Makes, in place, each data-movement op that reads a dequantize of a quantize of a value already
    on the quantize's grid (same parameters) read that value; returns how many dequantize nodes this
    left unread and removed."""
    graph = program.graph
    removed = 0
    for q in list(graph.nodes):
        if not is_quantize(q) or not isinstance(q.args[0], Node):
            continue
        params = tuple(q.args[1:])
        # Only pairs on a value of rank > 4, which NNAPI cannot hold outside a view chain: a pair on
        # a rank <= 4 value (a cat's result, a class token) keeps the ops around it 8-bit.
        if _rank(q.args[0]) <= 4 or not _on_grid(q.args[0], params, {}):
            continue
        for dq in [u for u in q.users if is_dequantize(u) and not is_per_channel(u) and tuple(u.args[1:]) == params]:
            # Data-movement readers and float ops skip the pair: an op NNAPI runs in 8 bits (one
            # whose result is quantized) must still read a dequantize (its quantized unit,
            # patterns/quantized_op.py).
            for user in [u for u in dq.users if moves_data(u) or _computes_in_float(u)]:
                user.replace_input_with(dq, q.args[0])
            if not dq.users:
                graph.erase_node(dq)
                removed += 1
        if not q.users:
            graph.erase_node(q)
    if removed:
        graph.lint()
        program.graph_module.recompile()
    return removed
