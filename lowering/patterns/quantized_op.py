"""``dequantize inputs -> op [-> getitem(0)] [-> relu family] -> quantize`` as one
QuantizedOpUnit: what convert_pt2e leaves around every op an NNAPI quantizer
annotated. Found from each quantize node backwards; the op's builder later
decides whether NNAPI runs it quantized (this layer only reads the graph).
"""

from __future__ import annotations

import operator

import torch
from torch.fx import Graph, Node

from ..node_units import NodeUnit, QuantizedOpUnit
from ..node_utils import aten_op, clamp_fuse_code, is_dequantize, is_quantize
from .pattern_context import PatternContext


def _only_user(node: Node, user: Node) -> bool:
    return list(node.users) == [user]


def _is_call(node) -> bool:
    return isinstance(node, Node) and node.op == "call_function"


def _is_float_tensor(node: Node) -> bool:
    val = node.meta.get("val")
    return isinstance(val, torch.Tensor) and val.is_floating_point()


def _back_from(q: Node, ctx: PatternContext, claimed: set[Node]) -> QuantizedOpUnit | None:
    """The unit ending at quantize node ``q``, if its input is an op on dequantized values."""
    x = q.args[0]
    if not _is_call(x) or x in claimed or not _only_user(x, q):
        return None
    activation, code = None, None
    producer = x.args[0] if x.args else None
    # A relu-family node fuses into an op with a fused-activation operand (CONV_2D, ADD...).
    if (clamp_fuse_code(x) is not None and _is_call(producer) and not is_dequantize(producer)
            and ctx.fuses_activation(aten_op(producer))):
        activation, code, x = x, clamp_fuse_code(x), producer
        if x in claimed or not _only_user(x, activation):
            return None
    value = x
    if x.target is operator.getitem and x.args[1] == 0 and _is_call(x.args[0]):
        x = x.args[0]
        if x in claimed or not _only_user(x, value):
            return None
    if is_dequantize(x) or is_quantize(x) or not ctx.has_8bit_form(aten_op(x)):
        return None
    tensors = [n for n in x.all_input_nodes if _is_float_tensor(n)]
    # Every float operand must come dequantized, and be read by this op only.
    if not tensors or any(not is_dequantize(n) or not _only_user(n, x) or n in claimed for n in tensors):
        return None
    unit = QuantizedOpUnit(x, tuple(tensors), value, activation, q)
    if code is not None:
        unit.fuse_code = code
    return unit


def find_quantized_ops(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every op of a convert_pt2e program that reads only dequantized values and whose
    (possibly relu-clamped) result is quantized."""
    units: list[NodeUnit] = []
    taken: set[Node] = set(claimed)
    for q in graph.nodes:
        if is_quantize(q) and q not in taken:
            unit = _back_from(q, ctx, taken)
            if unit is not None:
                units.append(unit)
                taken.update(unit.nodes)
    return units
