"""aten.prelu -> PRELU with the per-channel weight laid out along the channel's physical axis
(quantized: the weight's 8-bit codes, with its own scale and zero point, as PRELU's alpha)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import QUANTIZED_TYPES, LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import QuantParams, is_dequantize, is_per_channel, tensor_shape
from .common import check_float_tensors, check_rank, emit_unary, physical_axis
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import requantizing
from .quantized_weights import quantized_constant
from .registry import register_builder

aten = torch.ops.aten

# PyTorch's channel dim for prelu (inputs of rank < 2 have a single channel).
_CHANNEL_DIM = 1


def prelu_alpha(weight: torch.Tensor, order: tuple[int, ...]) -> torch.Tensor:
    """PRELU's alpha for an input stored in dim ``order``: [1] for a single weight,
    else rank-r with the C weights on the channel's physical axis and 1 elsewhere
    (float32 values, or the codes of a quantized weight)."""
    weight = weight.detach().reshape(-1)
    if weight.dtype not in (torch.uint8, torch.int8):
        weight = weight.to(torch.float32)
    if weight.numel() == 1:
        return weight
    shape = [1] * len(order)
    shape[physical_axis(order, _CHANNEL_DIM)] = weight.numel()
    return weight.reshape(shape)


@register_builder
class PreluBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.prelu.default, FeatureLevel.ANDROID_10, "PRELU", "float32, constant weight of 1 or C elements", keep=True,
                  quantized=requantizing(aten.prelu.default, since=FeatureLevel.ANDROID_10, alpha=1)),
    )
    layout = LayoutClass.ORDER_PRESERVING
    reads_merged_views = True  # emit_unary computes on a merged view as on any dim order

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, weight = node.args[:2]
        check_float_tensors(node, x, weight)
        check_rank(node, max_rank=1 << 30)  # PRELU has no upper rank limit
        if not ctx.is_constant(weight) and not (is_dequantize(weight) and ctx.is_constant(weight.args[0])):
            raise Refused("prelu with a non-constant weight")
        shape = tensor_shape(x)
        w_numel = 1
        for d in tensor_shape(weight):
            w_numel *= d
        if w_numel != 1 and (len(shape) < 2 or shape[_CHANNEL_DIM] != w_numel):
            raise Refused(f"prelu weight of {w_numel} elements for input shape {shape}")

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        weight = node.args[1]
        if not is_dequantize(weight) or is_per_channel(weight):
            raise Refused("quantized prelu whose weight is not per-tensor 8-bit codes (PRELU's alpha)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, weight = node.args[:2]
        q = quantized_constant(lc, weight)
        if q is None:
            alpha = lc.graph.emit_constant_tensor(prelu_alpha(lc.constant(weight), lc.order(x)))
        else:
            alpha = lc.graph.emit_quantized_constant(prelu_alpha(q.codes, lc.order(x)), QUANTIZED_TYPES[q.codes.dtype],
                                                     scale=float(q.scales[0]), zero_point=q.zero_point)
        emit_unary(lc, node, OperationCode.PRELU, [alpha])
