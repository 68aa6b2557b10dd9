"""Folds relu / relu6 / hardtanh(-1, 1) into the fused-activation operand of the
operation that produces their input (CONV_2D, FULLY_CONNECTED, ADD, pools...)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..builders import get_builder
from ..lowering_context import LoweringContext
from ..nnapi_codes import FuseCode
from ..node_utils import aten_op

aten = torch.ops.aten


def activation_fuse_code(node: Node) -> FuseCode | None:
    """The FuseCode equivalent of ``node`` if it is a clamp NNAPI can fuse."""
    op = aten_op(node)
    if op == aten.relu.default:
        return FuseCode.RELU
    bounds = None
    if op == aten.hardtanh.default:
        bounds = (node.args[1] if len(node.args) > 1 else -1.0, node.args[2] if len(node.args) > 2 else 1.0)
    elif op == aten.clamp.default:
        bounds = (node.args[1] if len(node.args) > 1 else None, node.args[2] if len(node.args) > 2 else None)
    if bounds is None:
        return None
    lo, hi = bounds
    if lo == 0 and hi == 6:
        return FuseCode.RELU6
    if lo == -1 and hi == 1:
        return FuseCode.RELU1
    if lo == 0 and hi is None:
        return FuseCode.RELU
    return None


def fuse_activations(lc: LoweringContext, nodes: list[Node]) -> None:
    """Marks each fusable activation as an alias of its producer."""
    for node in nodes:
        if node.op != "call_function":
            continue
        code = activation_fuse_code(node)
        if code is None:
            continue
        producer = node.args[0]
        if not isinstance(producer, Node) or producer.op != "call_function":
            continue
        # The producer must feed only this activation: its unfused value is never read.
        if len(producer.users) != 1 or producer in lc.fused_activation:
            continue
        source = lc.resolve(producer)
        if source is not producer and len(source.users) != 1:
            continue
        builder = get_builder(aten_op(source))
        if builder is None or not builder.fuses_activation or source in lc.fused_activation:
            continue
        if lc.is_constant(source):
            continue
        lc.fused_activation[source] = code
        lc.aliases[node] = producer
