"""A QuantizedOpUnit (dq -> op [-> relu] -> q) -> the op's NNAPI operation on
8-bit operands: the op's own builder emits it, reading the quantized sources of
its dequantized inputs and producing an operand with the quantize node's
scale and zero point; weights and biases are the convert_pt2e codes
(builders/quantized_weights.py). This builder checks NNAPI's quantization
rules (docs/nnapi_facts.md §8, §9) so that nothing it takes is refused later: what each
op's declaration (builders/quantization.py, on its OpSupport row) says of its kind,
level and output parameters, then the op builder's own ``check_quantized``."""

from __future__ import annotations

from typing import Any

import torch

from ..lowering_context import LoweringContext
from ..nnapi_codes import PER_CHANNEL_SINCE, FeatureLevel
from ..node_units import QuantizedOpUnit
from ..node_utils import QuantParams, aten_op, is_dequantize, is_per_channel, op_name, quant_params, unwrap_op
from .node_builder import CheckContext, NodeBuilder, Refused, UnitBuilder
from .quantization import QuantKind, Quantization
from .quantize import check_8bit
from .registry import get_builder, register_unit_builder


def quantization_of(op: Any) -> Quantization | None:
    """How ``op`` (an edge / ATen op) runs in 8 bits: its builder's declaration, if any."""
    builder = get_builder(op)
    for row in builder.ops if builder is not None else ():
        if unwrap_op(row.op) == unwrap_op(op):
            # A rewrite acts on the exported program before annotation: no 8-bit form of the op itself.
            own = [declared for declared in row.quantized if declared.kind is not QuantKind.REWRITTEN]
            if own:
                return own[0]
    return None


def _activation_params(unit: QuantizedOpUnit, kind: QuantKind) -> list[QuantParams]:
    """The parameters of the op's dequantized activation inputs (not weights or biases)."""
    weights = set(unit.op.args[1:3]) if kind is QuantKind.WEIGHTED else set()
    return [quant_params(dq) for dq in unit.dequants if dq not in weights]


def _require_op_level(builder: NodeBuilder, op: Any, ctx: CheckContext) -> None:
    """The op's own feature level (its builder's OpSupport row), which the partitioner checks for
    float nodes only: a quantized unit below it stays on the CPU with the reason."""
    for row in builder.ops:
        if unwrap_op(row.op) == op:
            ctx.require(row.since, f"quantized {op_name(op)} ({row.nnapi})")


@register_unit_builder
class QuantizedOpBuilder(UnitBuilder):
    """dq -> conv / linear / add / mul / pool / mean / cat / reshape / pad / nearest resize / maximum / minimum / where / prelu / leaky_relu / activation [-> relu] -> q, as one quantized operation."""

    unit = QuantizedOpUnit
    since = FeatureLevel.ANDROID_8_1
    what = "quantized operation"

    def check(self, unit: QuantizedOpUnit, ctx: CheckContext) -> None:
        op = aten_op(unit.op)
        declared = quantization_of(op)
        if declared is None:
            raise Refused(f"{op_name(op)} has no quantized NNAPI lowering")
        if declared.kind is QuantKind.FLOAT:
            raise Refused(declared.why)
        out = quant_params(unit.output)
        inputs = _activation_params(unit, declared.kind)
        for p in (out, *inputs):
            check_8bit(p.dtype, ctx)
            if p.dtype != out.dtype:
                raise Refused("quantized operands of different 8-bit types (uint8 and int8)")
        builder = get_builder(op)
        builder.check(unit.op, ctx)
        _require_op_level(builder, op, ctx)
        ctx.require(declared.since, declared.what or f"quantized {op_name(op)}")
        builder.check_quantized(unit.op, out, ctx)
        if declared.kind is QuantKind.WEIGHTED:
            self._check_weighted(unit, ctx)
        elif declared.kind is QuantKind.SAME_PARAMETERS:
            if any((p.scale, p.zero_point) != (out.scale, out.zero_point) for p in inputs):
                raise Refused(f"quantized {op_name(op)} whose output parameters differ from its input's "
                              "(NNAPI keeps the input's scale and zero point)")
        elif declared.kind is QuantKind.FIXED_OUTPUT:
            scale, zp_u8, zp_s8 = declared.fixed
            if (out.scale, out.zero_point) != (scale, zp_u8 if out.dtype == torch.uint8 else zp_s8):
                raise Refused(f"quantized {op_name(op)} output scale {out.scale}, zero point {out.zero_point} "
                              f"(NNAPI requires {scale}, {zp_u8 if out.dtype == torch.uint8 else zp_s8})")
        # REQUANTIZING: any input and output parameters (docs/nnapi_facts.md §9.9); the builder's check_quantized has the rest.

    @staticmethod
    def _check_weighted(unit: QuantizedOpUnit, ctx: CheckContext) -> None:
        weight = unit.op.args[1]
        if not is_dequantize(weight) or not ctx.is_constant(weight.args[0]):
            raise Refused("quantized convolution / linear whose weight is not constant 8-bit codes")
        if is_per_channel(weight):
            ctx.require(PER_CHANNEL_SINCE, "per-channel quantized weights (TENSOR_QUANT8_SYMM_PER_CHANNEL)")

    def define(self, unit: QuantizedOpUnit, lc: LoweringContext) -> None:
        """The op's own builder, on the quantized values the lowering context gives it."""
        get_builder(aten_op(unit.op)).define(unit.op, lc)
