"""Inference batch norm -> folded into the convolution or linear layer feeding it
(a FusedActivationUnit), else MUL + ADD with per-channel constants."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_units import FusedActivationUnit
from ..node_utils import batch_norm_output
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class BatchNormBuilder(NodeBuilder):
    ops = (
        OpSupport(aten._native_batch_norm_legit_no_training.default, FeatureLevel.ANDROID_8_1, "folded into conv/linear, else MUL + ADD",
                  "float32, constant statistics, only the normalized output used"),
    )
    layout = LayoutClass.ORDER_PRESERVING

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
        x = node.args[0]
        out_node = batch_norm_output(node)
        channels = lc.shape(x)[1]
        scale, mean, beta = _statistics(lc, node, channels)
        shift = beta - mean * scale
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


def _statistics(lc: LoweringContext, bn: Node, channels: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-channel (scale, mean, beta) in float64: ``bn(x) = (x - mean) * scale + beta``."""
    weight, bias, mean, var = bn.args[1:5]
    eps = bn.args[6]
    gamma = lc.constant(weight).double() if weight is not None else torch.ones(channels, dtype=torch.float64)
    beta = lc.constant(bias).double() if bias is not None else torch.zeros(channels, dtype=torch.float64)
    return gamma / torch.sqrt(lc.constant(var).double() + eps), lc.constant(mean).double(), beta


def folded_parameters(lc: LoweringContext, producer: Node) -> tuple[torch.Tensor, torch.Tensor] | None:
    """The float32 (weight, bias) of a convolution or linear ``producer`` (weight and
    bias in args 1 and 2, out-channels on dim 0) with the batch norm of its
    FusedActivationUnit folded in; None if its unit has no batch norm."""
    unit = lc.unit_of(producer)
    if not isinstance(unit, FusedActivationUnit) or unit.batch_norm is None:
        return None
    w = lc.constant(producer.args[1]).to(torch.float64)
    b_arg = producer.args[2] if len(producer.args) > 2 else None
    b = lc.constant(b_arg).to(torch.float64) if b_arg is not None else torch.zeros(w.shape[0], dtype=torch.float64)
    scale, mean, beta = _statistics(lc, unit.batch_norm, w.shape[0])
    folded_w = w * scale.reshape([-1] + [1] * (w.dim() - 1))
    return folded_w.to(torch.float32), ((b - mean) * scale + beta).to(torch.float32)
