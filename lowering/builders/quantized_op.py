"""A QuantizedOpUnit (dq -> op [-> relu] -> q) -> the op's NNAPI operation on
8-bit operands: the op's own builder emits it, reading the quantized sources of
its dequantized inputs and producing an operand with the quantize node's
scale and zero point; weights and biases are the convert_pt2e codes
(builders/quantized_weights.py). This builder checks NNAPI's quantization
rules (docs/nnapi_facts.md §8, §9) so that nothing it takes is refused later."""

from __future__ import annotations

from typing import Any

import torch

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_units import QuantizedOpUnit
from ..node_utils import (QuantParams, aten_op, clamp_fuse_code, is_dequantize, is_per_channel, op_name, quant_params,
                          tensor_shape, unwrap_op)
from .node_builder import CheckContext, NodeBuilder, Refused, UnitBuilder
from .quantized_hard_sigmoid import GATE_SCALE, quantized_multiplier_ok
from .quantize import check_8bit
from .registry import get_builder, register_unit_builder

aten = torch.ops.aten

WEIGHTED = (aten.convolution.default, aten.linear.default)
# Ops whose NNAPI output must carry the input's scale and zero point (docs/nnapi_facts.md §8.3).
SAME_Q = (aten.max_pool2d_with_indices.default, aten.avg_pool2d.default, aten._adaptive_avg_pool2d.default,
          aten.mean.dim, aten.view_copy.default, aten.permute_copy.default, aten.relu.default,
          aten.hardtanh.default, aten.cat.default, aten.constant_pad_nd.default, aten.upsample_nearest2d.vec)
# Fixed output (scale, zero point for uint8, for int8) (docs/nnapi_facts.md §8.3).
FIXED = {aten.sigmoid.default: (1 / 256, 0, -128), aten._softmax.default: (1 / 256, 0, -128),
         aten.tanh.default: (1 / 128, 128, 0), aten.hardsigmoid.default: (1 / 256, 0, -128)}
FREE = (aten.add.Tensor, aten.mul.Tensor, aten.hardswish.default)
# Ops whose NNAPI operation requantizes every input to the output's parameters (MAXIMUM, MINIMUM,
# SELECT: AOSP's `requantize`) or rescales it (PRELU): any scales are valid.
REQUANTIZING = (aten.maximum.default, aten.minimum.default, aten.where.self, aten.prelu.default,
                aten.leaky_relu.default)
QUANTIZED_OPS = (*WEIGHTED, *SAME_Q, *FIXED, *FREE, *REQUANTIZING)
# Float-only in 8 bits: why, for the refusal (docs/nnapi_facts.md §9.14, §11). Measured on LiteRT 2.3's
# BUILTIN_REF kernel: uint8 rounds the float sum half up, int8 runs a 10-bit fixed-point interpolation;
# TensorFlow's reference_ops::ResizeBilinear<uint8> of other releases truncates. Which one an Android
# build's CPU path runs depends on the TFLite copy it bundles.
NOT_QUANTIZED = {
    aten.upsample_bilinear2d.vec: "quantized RESIZE_BILINEAR rounds the interpolated codes either by truncation or "
                                  "half up depending on the TFLite copy in the Android build (docs/nnapi_facts.md §11); "
                                  "leave upsample_bilinear2d float",
}


def _activation_params(unit: QuantizedOpUnit) -> list[QuantParams]:
    """The parameters of the op's dequantized activation inputs (not weights or biases)."""
    weights = set(unit.op.args[1:3]) if aten_op(unit.op) in WEIGHTED else set()
    return [quant_params(dq) for dq in unit.dequants if dq not in weights]


def _require_op_level(builder: NodeBuilder, op: Any, ctx: CheckContext) -> None:
    """The op's own feature level (its builder's OpSupport row), which the partitioner checks for
    float nodes only: a quantized unit below it stays on the CPU with the reason."""
    for row in builder.ops:
        if unwrap_op(row.op) == op:
            ctx.require(row.since, f"quantized {op_name(op)} ({row.nnapi})")


def _check_hardsigmoid(unit: QuantizedOpUnit, inp: QuantParams, out: QuantParams, ctx: CheckContext) -> None:
    """Quantized hardsigmoid is a 1x1 DEPTHWISE_CONV_2D (builders/hardsigmoid.py): 4-D, and a valid multiplier."""
    shape = tensor_shape(unit.op.args[0])
    if not 1 <= len(shape) <= 4 or not all(isinstance(d, int) for d in shape):
        raise Refused(f"quantized {op_name(aten_op(unit.op))} of other than a static rank 1-4 tensor (lowered with DEPTHWISE_CONV_2D)")
    if not quantized_multiplier_ok(inp.scale, out.scale, 127 if inp.dtype == torch.int8 else 255,
                                   ctx.feature_level):
        raise Refused(f"quantized hardsigmoid with input scale {inp.scale:g}: x/6 + 1/2 as a convolution "
                      "needs a multiplier below 1 before API 29 and an int32 bias")


@register_unit_builder
class QuantizedOpBuilder(UnitBuilder):
    """dq -> conv / linear / add / mul / pool / mean / cat / reshape / pad / nearest resize / maximum / minimum / where / prelu / leaky_relu / activation [-> relu] -> q, as one quantized operation."""

    unit = QuantizedOpUnit
    since = FeatureLevel.ANDROID_8_1
    what = "quantized operation"

    def check(self, unit: QuantizedOpUnit, ctx: CheckContext) -> None:
        op = aten_op(unit.op)
        if op in NOT_QUANTIZED:
            raise Refused(NOT_QUANTIZED[op])
        if op not in QUANTIZED_OPS:
            raise Refused(f"{op_name(op)} has no quantized NNAPI lowering")
        out = quant_params(unit.output)
        inputs = _activation_params(unit)
        for p in (out, *inputs):
            check_8bit(p.dtype, ctx)
            if p.dtype != out.dtype:
                raise Refused("quantized operands of different 8-bit types (uint8 and int8)")
        builder = get_builder(op)
        builder.check(unit.op, ctx)
        _require_op_level(builder, op, ctx)
        builder.check_quantized(unit.op, out, ctx)
        if op in WEIGHTED:
            self._check_weighted(unit, ctx)
        elif op in SAME_Q:
            if op == aten.hardtanh.default and clamp_fuse_code(unit.op) is None:
                raise Refused("quantized hardtanh with bounds other than (0, 6), (-1, 1) (RELU6 / RELU1)")
            if any((p.scale, p.zero_point) != (out.scale, out.zero_point) for p in inputs):
                raise Refused(f"quantized {op_name(op)} whose output parameters differ from its input's "
                              "(NNAPI keeps the input's scale and zero point)")
        elif op in REQUANTIZING:
            pass  # MAXIMUM / MINIMUM / SELECT / PRELU take any input and output parameters (docs/nnapi_facts.md §9.9)
        elif op in FIXED:
            scale, zp_u8, zp_s8 = FIXED[op]
            if (out.scale, out.zero_point) != (scale, zp_u8 if out.dtype == torch.uint8 else zp_s8):
                raise Refused(f"quantized {op_name(op)} output scale {out.scale}, zero point {out.zero_point} "
                              f"(NNAPI requires {scale}, {zp_u8 if out.dtype == torch.uint8 else zp_s8})")
            if op == aten.hardsigmoid.default:
                _check_hardsigmoid(unit, inputs[0], out, ctx)
        else:
            self._check_free(unit, op, inputs, out, ctx)

    @staticmethod
    def _check_weighted(unit: QuantizedOpUnit, ctx: CheckContext) -> None:
        weight = unit.op.args[1]
        if not is_dequantize(weight) or not ctx.is_constant(weight.args[0]):
            raise Refused("quantized convolution / linear whose weight is not constant 8-bit codes")
        if is_per_channel(weight):
            ctx.require(FeatureLevel.ANDROID_10, "per-channel quantized weights (TENSOR_QUANT8_SYMM_PER_CHANNEL)")

    @staticmethod
    def _check_free(unit: QuantizedOpUnit, op, inputs: list[QuantParams], out: QuantParams,
                    ctx: CheckContext) -> None:
        if op == aten.hardswish.default:
            if ctx.feature_level < FeatureLevel.ANDROID_11:  # x * hardsigmoid(x): DEPTHWISE_CONV_2D + MUL
                _check_hardsigmoid(unit, inputs[0], QuantParams(GATE_SCALE, 0, 0, 255, inputs[0].dtype), ctx)
                if not out.scale > inputs[0].scale * GATE_SCALE:
                    raise Refused("quantized hardswish below API 30 with output scale <= input scale / 256 (MUL)")
            return
        if len(inputs) != 2 or unit.op.kwargs.get("alpha", 1) != 1:
            raise Refused(f"quantized {op_name(op)} of other than two tensors")
        s1, s2 = inputs[0].scale, inputs[1].scale
        if op == aten.add.Tensor and not out.scale > 2 * max(s1, s2) / 2**20:
            raise Refused("quantized add with output scale <= 2 max(input scales) / 2^20 (docs/nnapi_facts.md §8.4)")
        if op == aten.mul.Tensor and not out.scale > s1 * s2:
            raise Refused("quantized mul with output scale <= product of the input scales (docs/nnapi_facts.md §8.4)")

    def define(self, unit: QuantizedOpUnit, lc: LoweringContext) -> None:
        """The op's own builder, on the quantized values the lowering context gives it."""
        get_builder(aten_op(unit.op)).define(unit.op, lc)
