"""Inference batch norm that could not be folded -> MUL + ADD with per-channel constants."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import OperationCode
from ..passes.batch_norm_folding import batch_norm_output
from . import register_builder
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, NodeBuilder, Refused

aten = torch.ops.aten


@register_builder
class BatchNormBuilder(NodeBuilder):
    targets = (aten._native_batch_norm_legit_no_training.default,)

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, weight, bias, mean, var = node.args[:5]
        check_float_tensors(node.args[0], x, weight, bias, mean, var)
        check_rank(x, MAX_RANK, min_rank=2, what="input")
        for p in (weight, bias, mean, var):
            if p is not None and not ctx.is_constant(p):
                raise Refused("batch norm with non-constant statistics or affine parameters")
        if batch_norm_output(node) is None:
            raise Refused("batch norm whose saved mean/invstd outputs are used")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, weight, bias, mean, var = node.args[:5]
        eps = node.args[6]
        out_node = batch_norm_output(node)
        channels = lc.shape(x)[1]
        mean_t = lc.constant(mean).double()
        var_t = lc.constant(var).double()
        gamma = lc.constant(weight).double() if weight is not None else torch.ones(channels, dtype=torch.float64)
        beta = lc.constant(bias).double() if bias is not None else torch.zeros(channels, dtype=torch.float64)
        scale = gamma / torch.sqrt(var_t + eps)
        shift = beta - mean_t * scale
        order = lc.order(x)
        rank = len(order)
        shape = [1] * rank
        shape[physical_axis(order, 1)] = channels
        g = lc.graph
        scale_op = g.emit_constant_tensor(scale.float().reshape(shape))
        shift_op = g.emit_constant_tensor(shift.float().reshape(shape))
        scaled = g.emit_tensor(g.operands[lc.operand(x, order)].dims, debug_name=f"{node.name}.scaled")
        g.emit_operation(OperationCode.MUL, [lc.operand(x, order), scale_op, g.emit_int32(0)], [scaled],
                         debug_name=node.name)
        out = lc.emit_output(out_node, order)
        g.emit_operation(OperationCode.ADD, [scaled, shift_op, g.emit_int32(0)], [out], debug_name=node.name)
