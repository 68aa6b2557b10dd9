"""aten.prelu -> PRELU with the per-channel weight laid out along the channel's physical axis."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .common import check_float_tensors, check_rank, emit_unary, physical_axis
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

# PyTorch's channel dim for prelu (inputs of rank < 2 have a single channel).
_CHANNEL_DIM = 1


def prelu_alpha(weight: torch.Tensor, order: tuple[int, ...]) -> torch.Tensor:
    """PRELU's alpha for an input stored in dim ``order``: [1] for a single weight,
    else rank-r with the C weights on the channel's physical axis and 1 elsewhere."""
    weight = weight.detach().to(torch.float32).reshape(-1)
    if weight.numel() == 1:
        return weight
    shape = [1] * len(order)
    shape[physical_axis(order, _CHANNEL_DIM)] = weight.numel()
    return weight.reshape(shape)


@register_builder
class PreluBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.prelu.default, FeatureLevel.ANDROID_10, "PRELU", "float32, constant weight of 1 or C elements", keep=True),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, weight = node.args[:2]
        check_float_tensors(node, x, weight)
        check_rank(node, max_rank=1 << 30)  # PRELU has no upper rank limit
        if not ctx.is_constant(weight):
            raise Refused("prelu with a non-constant weight")
        shape = tensor_shape(x)
        w_numel = 1
        for d in tensor_shape(weight):
            w_numel *= d
        if w_numel != 1 and (len(shape) < 2 or shape[_CHANNEL_DIM] != w_numel):
            raise Refused(f"prelu weight of {w_numel} elements for input shape {shape}")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, weight = node.args[:2]
        alpha = prelu_alpha(lc.constant(weight), lc.order(x))
        emit_unary(lc, node, OperationCode.PRELU, [lc.graph.emit_constant_tensor(alpha)])
