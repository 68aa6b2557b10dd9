"""torch's local response norm (LocalResponseNormUnit, patterns/local_response_norm.py) ->
LOCAL_RESPONSE_NORMALIZATION on the channel axis (API 27).

torch computes, for channel c of ``LocalResponseNorm(size, alpha, beta, k)``,

    out_c = x_c / (k + alpha / size * sum_{j = c - size//2}^{c + (size - 1)//2} x_j^2)^beta

(the pool averages the zero-padded window: its divisor is ``size`` also at the edges), and NNAPI

    out_c = x_c / (bias + alpha' * sum_{j = c - radius}^{c + radius} x_j^2)^beta'

over the channels that exist. So radius = size // 2, bias = k, alpha' = alpha / size and
beta' = beta, where the windows agree: for odd ``size``. An even ``size`` reaches one channel
further before c than after it, which NNAPI's symmetric window cannot say: the pattern is not
matched, and its nodes are left to their own builders (the square and the pool delegated, the
rank-5 view and pad on the CPU). NNAPI wants a non-zero bias: k = 0 is given as the smallest
normal float32.

The operation runs on the channel axis where the input is: last in NHWC (its only axis before
API 29), through the axis operand from API 29 in another order, after a TRANSPOSE to NHWC at
API 28; at API 27 (no TRANSPOSE) an input held in PyTorch's order is refused.

8 bits: NNAPI's operation is float only. In a convert_pt2e program the unit reads the input's
DEQUANTIZE and its result is float; NNAPI squares the dequantized input in float32, where
convert_pt2e rounds the squares to the 8-bit codes NnapiQuantizer gave them, so the two differ
by that rounding (bounded in tests/lowering/test_dilated_conv_and_lrn.py).
"""

from __future__ import annotations

import numbers
from typing import Any

import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_units import LocalResponseNormUnit
from ..node_utils import is_dequantize, quant_params, tensor_shape
from .common import check_float_tensors, physical_axis
from .node_builder import CheckContext, Refused, UnitBuilder
from .quantize import check_8bit
from .registry import register_unit_builder


# NNAPI wants a non-zero bias; for torch's k = 0 the smallest normal float32 changes only the
# windows whose alpha' * sum of squares is below ~1e-31, where torch divides by (almost) zero.
_SMALLEST_BIAS = float(torch.finfo(torch.float32).tiny)


def _scalar(value: Any, known) -> float | None:
    """A number, or the one element of a node's value known at lowering time (``known``)."""
    if isinstance(value, numbers.Number):
        return float(value)
    tensor = known(value)
    return None if tensor is None or tensor.numel() != 1 else float(tensor.reshape(-1)[0])


@register_unit_builder
class LocalResponseNormBuilder(UnitBuilder):
    """x / (k + alpha * avg over size channels of x^2)^beta -> LOCAL_RESPONSE_NORMALIZATION (odd size)."""

    unit = LocalResponseNormUnit
    since = FeatureLevel.ANDROID_8_1
    what = "local response norm (LOCAL_RESPONSE_NORMALIZATION)"

    def check(self, unit: LocalResponseNormUnit, ctx: CheckContext) -> None:
        x = unit.input
        if is_dequantize(x):
            check_8bit(quant_params(x).dtype, ctx)  # the DEQUANTIZE it reads
        check_float_tensors(unit.output, x)
        if unit.before != unit.after:  # not matched (patterns/local_response_norm.py); kept as a guard
            raise Refused(f"local response norm of even size {unit.size}: torch's window is channels c - "
                          f"{unit.before} .. c + {unit.after}, LOCAL_RESPONSE_NORMALIZATION's one radius "
                          "on both sides of c")
        # Only the structure is checked: at partitioning time the lifted constants are fake tensors.
        for value in (unit.alpha, unit.bias):
            if isinstance(value, Node) and not ctx.is_foldable(value):
                raise Refused("local response norm whose alpha or k is not known at lowering time")

    def api27_layout_refusal(self, unit: LocalResponseNormUnit, nhwc: set) -> str | None:
        """At API 27 the operation's axis is the last one: the input must be held in NHWC (the
        partitioner's prediction ``nhwc``), or be [N, C, 1, 1] (the same bytes in both orders)."""
        x = unit.input
        if x in nhwc or all(d == 1 for d in tensor_shape(x)[2:]):
            return None
        return ("local response norm of a value in PyTorch's order: LOCAL_RESPONSE_NORMALIZATION's axis is the "
                "last (NHWC's channels) before API 29, and a TRANSPOSE needs API 28; the target is API 27")

    def define(self, unit: LocalResponseNormUnit, lc: LoweringContext) -> None:
        """The normalization of ``unit.input`` over its channels, as the value of ``unit.output``."""
        g = lc.graph
        x = unit.input
        order = lc.order(x)
        if physical_axis(order, 1) != 3 and g.feature_level < FeatureLevel.ANDROID_10:
            order = NHWC   # no axis operand before API 29
        axis = physical_axis(order, 1)
        alpha, bias = (_scalar(v, lc.constant) for v in (unit.alpha, unit.bias))
        if bias == 0:
            bias = _SMALLEST_BIAS
        inputs = [lc.operand(x, order), g.emit_int32(unit.before), g.emit_float32(bias),
                  g.emit_float32(alpha / unit.size), g.emit_float32(unit.beta)]
        if axis != 3:
            inputs.append(g.emit_int32(axis))
        out = lc.emit_output(unit.output, order)
        g.emit_operation(OperationCode.LOCAL_RESPONSE_NORMALIZATION, inputs, [out], debug_name=unit.output.name)
