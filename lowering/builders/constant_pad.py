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
from ..shape_program import as_dim, describe_unsupported, is_static
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import QuantKind, Quantization
from .registry import register_builder

aten = torch.ops.aten


def pad_args(node: Node) -> tuple[Node, list, float]:
    """(x, pad list in PyTorch's last-dim-first order, value); a pad the CPU computes from
    the input's sizes (swin's pad to a multiple of the window) is a sympy expression."""
    pad = [as_dim(p.meta["val"]) if isinstance(p, Node) else p for p in node.args[1]]
    value = node.args[2] if len(node.args) > 2 else node.kwargs.get("value", 0)
    return node.args[0], pad, value


def _symbolic_pad_refusal(node: Node) -> str | None:
    """Why a symbolic pad cannot be computed by the shape program or may be negative."""
    for p in node.args[1]:
        if not isinstance(p, Node):
            continue
        val = p.meta.get("val")
        if not isinstance(val, torch.SymInt):
            return f"pad amount {p.name} is not a size"
        expr = val.node.expr
        reason = describe_unsupported([as_dim(val)])
        if reason:
            return reason
        if not val.node.shape_env.bound_sympy(expr).lower >= 0:
            return f"pad amount {expr} may be negative (cropping)"
    return None


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


def _quantized_pad_mode(node: Node, feature_level: int) -> bool:
    """aten.pad in mode "constant", or "reflect" from feature level 7 (where it becomes
    reflection_pad*, MIRROR_PAD: builders/reflection_pad.py); constant_pad_nd always.
    Replicate has no NNAPI operation."""
    if node.target != aten.pad.default:
        return True
    mode = node.args[2] if len(node.args) > 2 else node.kwargs.get("mode", "constant")
    return mode == "constant" or (mode == "reflect" and feature_level >= FeatureLevel.FEATURE_LEVEL_7)


@register_builder
class ConstantPadBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.constant_pad_nd.default, FeatureLevel.ANDROID_9, "PAD (value 0) / PAD_V2 (other values, API 29)",
                  "float32, rank <= 4, non-negative pads (constant, or sizes the shape program computes)",
                  quantized=Quantization(QuantKind.SAME_PARAMETERS, (aten.pad.default, aten.constant_pad_nd.default),
                                         FeatureLevel.ANDROID_10, check=_quantized_pad_mode,
                                         what="quantized constant pad (PAD pads with the zero point from API 29)")),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, pad, value = pad_args(node)
        check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        reason = _symbolic_pad_refusal(node)
        if reason:
            raise Refused(reason)
        if len(pad) % 2 or len(pad) > 2 * len(tensor_shape(x)):
            raise Refused(f"pad list {pad} of odd length or longer than twice the rank")
        if any(is_static(p) and p < 0 for p in pad):
            raise Refused(f"negative padding {pad} (cropping)")
        if float(value) == 0.0:
            ctx.require(FeatureLevel.ANDROID_9, "constant pad (PAD)")
        else:
            ctx.require(FeatureLevel.ANDROID_10, f"constant pad with value {value} (PAD_V2)")

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        _, _, value = pad_args(node)
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
        physical = [rows[d] for d in order] or [[0, 0]]
        paddings = g.emit_int32_tensor([p for row in physical for p in row], [len(physical), 2])
        inputs = [lc.operand(x, order), paddings]
        if float(value) == 0.0:
            code = OperationCode.PAD
        else:
            code = OperationCode.PAD_V2
            inputs.append(g.emit_int32(pad_code(value, params)) if params is not None else g.emit_float32(float(value)))
        out = lc.emit_output(node, order)
        g.emit_operation(code, inputs, [out], debug_name=node.name)
