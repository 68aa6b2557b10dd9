"""aten.leaky_relu -> PRELU with a constant [1] alpha (NNAPI has no LEAKY_RELU); quantized, the
alpha is one 8-bit code of the input's type whose parameters make it the slope."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import QUANTIZED_TYPES, LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import check_float_tensors, check_rank, emit_unary
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .quantization import requantizing
from .registry import register_builder

aten = torch.ops.aten


def _negative_slope(node: Node) -> float:
    return float(node.args[1] if len(node.args) > 1 else node.kwargs.get("negative_slope", 0.01))


@register_builder
class LeakyReluBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.leaky_relu.default, FeatureLevel.ANDROID_10, "PRELU", "float32, constant [1] alpha",
                  quantized=requantizing(aten.leaky_relu.default, since=FeatureLevel.ANDROID_10)),
    )
    layout = LayoutClass.ORDER_PRESERVING
    reads_merged_views = True  # emit_unary computes on a merged view as on any dim order

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, max_rank=1 << 30)  # PRELU has no upper rank limit

    def define(self, node: Node, lc: LoweringContext) -> None:
        slope = _negative_slope(node)
        params = lc.quant_params(node)
        if params is None:
            alpha = lc.graph.emit_constant_tensor(torch.tensor([slope], dtype=torch.float32))
        else:
            code, scale, zero_point = slope_code(slope, params.dtype)
            alpha = lc.graph.emit_quantized_constant(torch.tensor([code], dtype=params.dtype),
                                                     QUANTIZED_TYPES[params.dtype], scale=scale, zero_point=zero_point)
        emit_unary(lc, node, OperationCode.PRELU, [alpha])


def slope_code(slope: float, dtype: torch.dtype) -> tuple[int, float, int]:
    """(code, scale, zero point) with (code - zero point) x scale = slope: the code at the end of
    the range farthest from the zero point, so that the scale keeps the slope's precision."""
    if slope == 0:
        return 0, 1.0, 0
    if dtype == torch.int8:  # zero point 0, codes +-127
        return (127 if slope > 0 else -127), abs(slope) / 127, 0
    return (255, slope / 255, 0) if slope > 0 else (0, -slope / 255, 255)
