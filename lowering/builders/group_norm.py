"""aten.native_group_norm -> RESHAPE to the groups, MEAN, SUB, MUL, MEAN, ADD eps, RSQRT, MUL
(+ MUL weight, ADD bias), RESHAPE back (NNAPI has no group-norm operation).

The value is regrouped in its own physical dim order, so a group norm after a convolution
(an NHWC value, or [N, L, C] after a 1-D convolution) needs no TRANSPOSE:

- channels last ``[N, spatial..., C]`` -> ``[N, S, G, C/G]``, statistics over axes 1 and 3;
- channels first ``[N, C, spatial...]`` -> ``[N, G, C/G, S]``, statistics over axes 2 and 3;

S being the product of the spatial sizes (1 for a rank-2 input; symbolic sizes are computed at
run time by the shape program). Any other order is first transposed to PyTorch's. The per-channel
weight and bias are applied in the grouped shape, as ``[G, C/G]`` constants. Only the normalized
output (getitem 0) is produced; the saved mean and rstd outputs are refused.

INSTANCE_NORMALIZATION (API 29) is not used: it is the G == C case only, at rank 4 only, with
scalar gamma and beta, so it would still need the per-channel MUL / ADD and a second form.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import torch
from torch.fx import Node

from ..graph import identity, permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import Dim
from .common import MAX_RANK, check_float_tensors, check_rank
from .layer_norm import normalized_output
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def grouped_layout(order: Sequence[int], shape: Sequence[Dim], groups: int
                   ) -> tuple[tuple[int, ...], list[Dim], list[int], list[int]]:
    """How a value of logical ``shape`` stored in ``order`` is regrouped: the dim order to read it
    in, the rank-4 grouped shape, the axes the statistics reduce and the shape the per-channel
    weight and bias take in the grouped shape."""
    rank = len(order)
    order = tuple(order)
    if order[0] != 0 or (order[1] != 1 and order[-1] != 1):
        order = identity(rank)  # batch not outermost, or channels between spatial dims
    physical = permute_shape(shape, order)
    batch, channels = physical[0], shape[1]
    per_group = channels // groups
    if rank > 2 and order[-1] == 1:
        spatial = math.prod(physical[1:-1])
        return order, [batch, spatial, groups, per_group], [1, 3], [1, 1, groups, per_group]
    spatial = math.prod(physical[2:]) if rank > 2 else 1
    return order, [batch, groups, per_group, spatial], [2, 3], [1, groups, per_group, 1]


@register_builder
class GroupNormBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.native_group_norm.default, FeatureLevel.ANDROID_10,
                  "RESHAPE, MEAN, SUB, MUL, MEAN, ADD, RSQRT, MUL (+ MUL, ADD affine), RESHAPE",
                  "float32, rank 2-4, static channel count, constant weight/bias, only output 0 used"),
    )
    # Keeps a channels-last input channels-last (and PyTorch's order as it is).
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, weight, bias = node.args[:3]
        groups = node.args[6]
        check_float_tensors(node.args[0], x, weight, bias)
        check_rank(x, MAX_RANK, min_rank=2, what="input")
        channels = tensor_shape(x)[1]
        if not isinstance(channels, int):
            raise Refused("group norm with a dynamic channel count")
        if not isinstance(groups, int) or groups < 1 or channels % groups:
            raise Refused(f"group norm of {channels} channels in {groups} groups (not a divisor)")
        for p in (weight, bias):
            if p is not None and not ctx.is_constant(p):
                raise Refused("group norm with non-constant weight or bias")
        if normalized_output(node) is None:
            raise Refused("group norm whose saved mean/rstd outputs are used (NNAPI computes output 0 only)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, weight, bias = node.args[:3]
        groups, eps = node.args[6], node.args[7]
        out_node = normalized_output(node)
        g = lc.graph
        order, grouped, axes, param_shape = grouped_layout(lc.order(x), lc.shape(x), groups)
        physical = permute_shape(lc.shape(x), order)
        reduced = [1 if i in axes else d for i, d in enumerate(grouped)]
        name = node.name
        steps = iter(range(1, 100))

        def temp(shape: Sequence[Dim]) -> int:
            return g.emit_tensor(shape, debug_name=f"{name}.{next(steps)}")

        def emit(code: OperationCode, inputs: list[int], out: int) -> int:
            if code in (OperationCode.ADD, OperationCode.SUB, OperationCode.MUL):
                inputs = inputs + [g.emit_int32(int(FuseCode.NONE))]
            g.emit_operation(code, inputs, [out], debug_name=name)
            return out

        def parameter(p: Any) -> int:
            return g.emit_constant_tensor(lc.constant(p).to(torch.float32).reshape(param_shape),
                                          debug_name=f"{name}.{p.name}")

        value = emit(OperationCode.RESHAPE, [lc.operand(x, order), g.emit_int32_vector(grouped)], temp(grouped))
        axes_op = g.emit_int32_vector(axes)
        keep = g.emit_int32(1)
        mean = emit(OperationCode.MEAN, [value, axes_op, keep], temp(reduced))
        centered = emit(OperationCode.SUB, [value, mean], temp(grouped))
        squared = emit(OperationCode.MUL, [centered, centered], temp(grouped))
        # Biased variance (divide by the group's size), as PyTorch's group norm.
        var = emit(OperationCode.MEAN, [squared, axes_op, keep], temp(reduced))
        var_eps = emit(OperationCode.ADD, [var, g.emit_constant_tensor(torch.tensor([float(eps)]))], temp(reduced))
        rstd = emit(OperationCode.RSQRT, [var_eps], temp(reduced))
        value = emit(OperationCode.MUL, [centered, rstd], temp(grouped))
        for code, p in ((OperationCode.MUL, weight), (OperationCode.ADD, bias)):
            if p is not None:
                value = emit(code, [value, parameter(p)], temp(grouped))
        emit(OperationCode.RESHAPE, [value, g.emit_int32_vector(physical)], lc.emit_output(out_node, order))
