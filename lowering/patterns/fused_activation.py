"""``producer [-> batch_norm -> getitem(0)] [-> relu / relu6 / clamp(-1, 1)]`` as one
FusedActivationUnit: the batch norm is folded into a convolution's or linear
layer's weights, the clamp into the fused-activation operand of the operation
that produces its input (CONV_2D, FULLY_CONNECTED, ADD, pools...). The
producer's builder emits the unit; the other nodes become aliases of it.
"""

from __future__ import annotations

import torch
from torch.fx import Graph, Node

from ..node_units import FusedActivationUnit, NodeUnit
from ..node_utils import aten_op, batch_norm_output, clamp_fuse_code
from .pattern_context import PatternContext

aten = torch.ops.aten

BATCH_NORM = aten._native_batch_norm_legit_no_training.default
FOLDABLE_PRODUCERS = (aten.convolution.default, aten.linear.default)


def _is_call(node) -> bool:
    return isinstance(node, Node) and node.op == "call_function"


def _foldable_batch_norm(bn: Node, ctx: PatternContext) -> bool:
    """A batch norm with constant parameters whose producer is a convolution (not
    transposed) or linear with constant weights that nothing else reads."""
    producer, weight, bias, mean, var = bn.args[:5]
    if (batch_norm_output(bn) is None or not _is_call(producer) or aten_op(producer) not in FOLDABLE_PRODUCERS
            or len(producer.users) != 1):
        return False
    if not all(ctx.is_known(p) for p in (weight, bias, mean, var) if p is not None):
        return False
    b = producer.args[2] if len(producer.args) > 2 else None
    if not ctx.is_known(producer.args[1]) or (b is not None and not ctx.is_known(b)):
        return False
    # A transposed conv keeps its out-channels on dim 1 of the weight.
    return not (aten_op(producer) == aten.convolution.default and producer.args[6])


def find_fused_activations(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every producer with a foldable batch norm and/or a fusable activation."""
    units: dict[Node, FusedActivationUnit] = {}
    for bn in graph.nodes:
        if _is_call(bn) and aten_op(bn) == BATCH_NORM and bn not in claimed and _foldable_batch_norm(bn, ctx):
            producer = bn.args[0]
            if producer not in claimed:
                units[producer] = FusedActivationUnit(producer, bn, batch_norm_output(bn))
    value_of = {u.batch_norm_output: u for u in units.values()}  # folded output -> its unit
    for act in graph.nodes:
        if not _is_call(act) or act in claimed:
            continue
        code = clamp_fuse_code(act)
        x = act.args[0] if act.args else None
        if code is None or not _is_call(x) or len(x.users) != 1:
            continue  # the unfused value must have no other reader
        unit = value_of.get(x) or units.get(x)
        producer = unit.producer if unit is not None else x
        if unit is None and (producer in claimed or producer in value_of):
            continue
        if (unit is not None and unit.activation is not None) or ctx.is_known(producer):
            continue
        if not ctx.fuses_activation(aten_op(producer)):
            continue
        if unit is None:
            unit = units[producer] = FusedActivationUnit(producer)
        unit.activation, unit.fuse_code = act, code
    return list(units.values())
