"""aten.constant_pad_nd -> PAD (value 0, API 28) or PAD_V2 (other values, API 29),
paddings mapped to the physical dims of the input's dim order. Quantized (input and
output sharing one scale and zero point): PAD pads with the zero point (defined from
API 29), PAD_V2 with the value's code, which must lie in the code range."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import QuantParams, tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def pad_args(node: Node) -> tuple[Node, list, float]:
    """(x, pad list in PyTorch's last-dim-first order, value)."""
    pad = node.args[1]
    value = node.args[2] if len(node.args) > 2 else node.kwargs.get("value", 0)
    return node.args[0], list(pad), value


def logical_paddings(pad: list[int], rank: int) -> list[list[int]]:
    """[before, after] per logical dim: PyTorch lists (left, right) pairs from the last dim backwards."""
    rows = [[0, 0] for _ in range(rank)]
    for i in range(len(pad) // 2):
        rows[rank - 1 - i] = [pad[2 * i], pad[2 * i + 1]]
    return rows


_CODE_RANGE = {torch.uint8: (0, 255), torch.int8: (-128, 127)}


def pad_code(value: float, params: QuantParams) -> int:
    """The 8-bit code of the pad value, as convert_pt2e's quantize_per_tensor forms it
    (float32 value x 1/scale, rounded half to even, + zero point), unclamped."""
    inv_scale = 1.0 / params.scale
    return int(torch.round(torch.tensor(float(value), dtype=torch.float32) * inv_scale)) + params.zero_point


@register_builder
class ConstantPadBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.constant_pad_nd.default, FeatureLevel.ANDROID_9, "PAD (value 0) / PAD_V2 (other values, API 29)",
                  "float32, rank <= 4, constant non-negative pads"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, pad, value = pad_args(node)
        check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        if not all(isinstance(p, int) for p in pad):
            raise Refused("dynamic dim in pad (padding amounts must be constants)")
        if len(pad) % 2 or len(pad) > 2 * len(tensor_shape(x)):
            raise Refused(f"pad list {pad} of odd length or longer than twice the rank")
        if any(p < 0 for p in pad):
            raise Refused(f"negative padding {pad} (cropping)")
        if float(value) == 0.0:
            ctx.require(FeatureLevel.ANDROID_9, "constant pad (PAD)")
        else:
            ctx.require(FeatureLevel.ANDROID_10, f"constant pad with value {value} (PAD_V2)")

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        _, _, value = pad_args(node)
        ctx.require(FeatureLevel.ANDROID_10, "quantized constant pad (PAD pads with the zero point from API 29)")
        code = pad_code(value, output)
        lo, hi = _CODE_RANGE[output.dtype]
        if not lo <= code <= hi:
            raise Refused(f"quantized pad value {value} is code {code}, outside [{lo}, {hi}] for scale "
                          f"{output.scale:g} and zero point {output.zero_point} (PAD_V2 takes a code)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, pad, value = pad_args(node)
        g = lc.graph
        params = lc.quant_params(node)
        order = lc.order(x)
        rows = logical_paddings(pad, len(lc.shape(x)))
        paddings = torch.tensor([rows[d] for d in order] or [[0, 0]], dtype=torch.int32)
        inputs = [lc.operand(x, order), g.emit_constant_tensor(paddings)]
        if float(value) == 0.0:
            code = OperationCode.PAD
        else:
            code = OperationCode.PAD_V2
            inputs.append(g.emit_int32(pad_code(value, params)) if params is not None else g.emit_float32(float(value)))
        out = lc.emit_output(node, order)
        g.emit_operation(code, inputs, [out], debug_name=node.name)
