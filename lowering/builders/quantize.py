"""convert_pt2e's quantize / dequantize where a partition meets float tensors:
QUANTIZE (API 29) of a float value, DEQUANTIZE of a quantized one. Inside a
QuantizedOpUnit they are not emitted (the unit's values stay 8-bit)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import SIGNED_SINCE, FeatureLevel, OperationCode
from ..node_utils import is_quantize, quant_params, tensor_dtype
from .common import check_rank
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

quantized_decomposed = torch.ops.quantized_decomposed


def check_8bit(params_dtype: torch.dtype, ctx: CheckContext) -> None:
    """Refuses other than uint8, and int8 below API 30 (TENSOR_QUANT8_ASYMM_SIGNED)."""
    if params_dtype == torch.int8:
        ctx.require(SIGNED_SINCE, "signed 8-bit tensors (TENSOR_QUANT8_ASYMM_SIGNED)")
    elif params_dtype != torch.uint8:
        raise Refused(f"quantized dtype {params_dtype} (NNAPI activations are uint8 or int8)")


@register_builder
class QuantizeBuilder(NodeBuilder):
    """quantize_per_tensor of a float value -> QUANTIZE."""

    ops = (
        OpSupport(quantized_decomposed.quantize_per_tensor.default, FeatureLevel.ANDROID_10, "QUANTIZE",
                  "float32 input, rank 1-4, uint8 (int8: API 30) with the type's full range"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        if tensor_dtype(node.args[0]) != torch.float32:
            raise Refused("quantize of a non-float32 value")
        check_rank(node, 4)
        params = quant_params(node)
        check_8bit(params.dtype, ctx)
        full = (0, 255) if params.dtype == torch.uint8 else (-128, 127)
        if (params.quant_min, params.quant_max) != full:
            raise Refused(f"quantize to [{params.quant_min}, {params.quant_max}] (NNAPI uses the type's full range)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        order = lc.order(x)
        out = lc.emit_output(node, order)
        lc.graph.emit_operation(OperationCode.QUANTIZE, [lc.operand(x, order)], [out], debug_name=node.name)


@register_builder
class DequantizeBuilder(NodeBuilder):
    """dequantize_per_tensor of a quantized value -> DEQUANTIZE (its float value leaves the quantized ops)."""

    ops = (
        OpSupport(quantized_decomposed.dequantize_per_tensor.default, FeatureLevel.ANDROID_8_1, "DEQUANTIZE",
                  "of a quantize in the same program (uint8; int8: API 30), rank 1-4"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        if not is_quantize(node.args[0]):
            raise Refused("dequantize of a value no quantize node produced")
        check_rank(node, 4)
        check_8bit(quant_params(node).dtype, ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        order = lc.order(x)
        out = lc.emit_output(node, order)
        lc.graph.emit_operation(OperationCode.DEQUANTIZE, [lc.operand(x, order)], [out], debug_name=node.name)
