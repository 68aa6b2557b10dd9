"""aten.add / sub / mul / div (tensor or scalar operand, broadcasting) -> ADD / SUB / MUL / DIV."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import QuantParams, aten_op, is_tensor_node, op_name, tensor_dtype
from .bool_values import HELD_IN_INT32
from .common import MAX_RANK, check_float_tensors, check_rank, elementwise_operands, fuse_operand, is_scalar
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import alpha_one, dequantized_params, requantizing
from .registry import register_builder

aten = torch.ops.aten

_CODES = {
    aten.add.Tensor: OperationCode.ADD,
    aten.sub.Tensor: OperationCode.SUB,
    aten.mul.Tensor: OperationCode.MUL,
    aten.div.Tensor: OperationCode.DIV,
}


# ADD / SUB / MUL take TENSOR_INT32 from API 30 (a loop counter; DIV's int32 form floors).
_INT32_SINCE = FeatureLevel.ANDROID_11


def _int32_arithmetic(node: Node, ctx: CheckContext) -> bool:
    """An integer add / sub / mul (alpha 1, tensors int32 or int64, scalars integers) that NNAPI
    takes at the target level as TENSOR_INT32 arithmetic: int64 values are held in int32, and an
    int64 result must provably fit it (``check_int64_result``, checked by the caller)."""
    if aten_op(node) not in (aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor) or node.kwargs.get("alpha", 1) != 1:
        return False
    tensors = [x for x in (node, *node.args[:2]) if is_tensor_node(x)]
    scalars = [x for x in node.args[:2] if not isinstance(x, Node)]
    return (all(tensor_dtype(x) in HELD_IN_INT32 for x in tensors)
            and all(isinstance(x, int) and not isinstance(x, bool) for x in scalars)
            and ctx.feature_level >= _INT32_SINCE)


@register_builder
class BinaryElementwiseBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.add.Tensor, FeatureLevel.ANDROID_8_1, "ADD", "float32 (int32, and int64 provably within "
                  "int32, from API 30), rank <= 4, broadcasting, scalar operand, alpha",
                  quantized=requantizing(aten.add.Tensor, aten.add_.Tensor, inputs=(0, 1), check=alpha_one,
                                         fuses_activation=True)),
        OpSupport(aten.sub.Tensor, FeatureLevel.ANDROID_9, "SUB", "float32 (int32 / int64 from API 30), rank <= 4, "
                  "broadcasting, scalar operand, alpha"),
        OpSupport(aten.mul.Tensor, FeatureLevel.ANDROID_8_1, "MUL", "float32 (int32 / int64 from API 30), rank <= 4, "
                  "broadcasting, scalar operand",
                  quantized=requantizing(aten.mul.Tensor, inputs=(0, 1), check=alpha_one)),
        OpSupport(aten.div.Tensor, FeatureLevel.ANDROID_9, "DIV", "float32, rank <= 4, broadcasting, scalar operand"),
    )
    layout = LayoutClass.ORDER_PRESERVING
    fuses_activation = True

    def check(self, node: Node, ctx: CheckContext) -> None:
        a, b = node.args[:2]
        integer = _int32_arithmetic(node, ctx)
        if integer:
            check_int64_result(node, ctx)
        else:
            check_float_tensors(node, a, b)
        # A 0-d integer (a loop counter, torch.tensor(0)) is held as [1].
        check_rank(node, MAX_RANK, min_rank=0 if integer else 1, what="output")
        if not isinstance(a, Node) and not isinstance(b, Node):
            raise Refused("elementwise op on two scalars")

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        """Two 8-bit tensors, and an output scale within ADD's / MUL's multiplier range (docs/nnapi_facts.md §8.4)."""
        op = aten_op(node)
        inputs = dequantized_params(node)
        if len(inputs) != 2 or node.kwargs.get("alpha", 1) != 1:
            raise Refused(f"quantized {op_name(op)} of other than two tensors")
        s1, s2 = inputs[0].scale, inputs[1].scale
        if op == aten.add.Tensor and not output.scale > 2 * max(s1, s2) / 2**20:
            raise Refused("quantized add with output scale <= 2 max(input scales) / 2^20 (docs/nnapi_facts.md §8.4)")
        if op == aten.mul.Tensor and not output.scale > s1 * s2:
            raise Refused("quantized mul with output scale <= product of the input scales (docs/nnapi_facts.md §8.4)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        op = aten_op(node)
        code = _CODES[op]
        a, b = node.args[:2]
        alpha = node.kwargs.get("alpha", 1)
        g = lc.graph
        if alpha != 1 and is_scalar(b):
            b = b * alpha
        elif alpha != 1 and lc.is_constant(b):
            b = lc.constant(b) * alpha  # folded at lowering time
        (a_op, b_op), order = elementwise_operands(lc, node, [a, b])
        if alpha != 1 and isinstance(b, Node):
            scaled = g.emit_tensor(g.operands[b_op].dims, debug_name=f"{node.name}.alpha")
            g.emit_operation(OperationCode.MUL, [b_op, g.emit_constant_tensor(torch.tensor([float(alpha)])),
                                                 g.emit_int32(0)], [scaled], debug_name=node.name)
            b_op = scaled
        out = lc.emit_output(node, order)
        g.emit_operation(code, [a_op, b_op, fuse_operand(lc, node)], [out], debug_name=node.name)

