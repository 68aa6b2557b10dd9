"""A weight-only int8 linear (WeightOnlyLinearUnit, torchao's ``Int8WeightOnlyConfig``) ->
its int8 weight as a constant TENSOR_QUANT8_SYMM_PER_CHANNEL (one scale per output feature;
TENSOR_QUANT8_SYMM for one scale), DEQUANTIZE to float32, FULLY_CONNECTED.

NNAPI takes a per-channel or symmetric int8 tensor only from API 29, and FULLY_CONNECTED
only float or uint8 / int8 activations with a per-tensor filter (docs/nnapi_facts.md §3,
§8), so the weight is dequantized inside the NNAPI model: the .pte holds one byte per weight
and the matrix product runs in float, as the eager model's does. torchao computes
``(x @ float(q)) * scale``, this ``x @ (scale * float(q))``: the same up to float32 rounding.
"""

from __future__ import annotations

import torch

from ..graph import LoweringError, identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import PER_CHANNEL_SINCE, FuseCode, OperandCode, OperationCode
from ..node_units import WeightOnlyLinearUnit
from ..node_utils import tensor_shape
from .common import check_float_tensors, check_rank
from .node_builder import CheckContext, Refused, UnitBuilder
from .registry import register_unit_builder


def _scale_refusal(scales: torch.Tensor) -> str | None:
    """Why NNAPI cannot take these weight scales (each must be a finite number > 0)."""
    bad = ~(torch.isfinite(scales) & (scales > 0))
    if bool(bad.any()):
        first = int(bad.nonzero()[0, 0])
        return (f"weight scale {float(scales[first])!r} of output feature {first} (NNAPI's int8 weight "
                f"scales must be finite and > 0)")
    return None


@register_unit_builder
class WeightOnlyLinearBuilder(UnitBuilder):
    """mm(x, float(int8 W)) * scale -> DEQUANTIZE of the int8 weight + FULLY_CONNECTED (weight-only int8)."""

    unit = WeightOnlyLinearUnit
    since = PER_CHANNEL_SINCE
    what = "a weight-only int8 linear (int8 weight constants dequantized inside NNAPI)"

    def check(self, unit: WeightOnlyLinearUnit, ctx: CheckContext) -> None:
        x = unit.mm.args[0]
        check_float_tensors(unit.output, x)
        check_rank(x, 2, min_rank=2, what="input")
        if not isinstance(tensor_shape(x)[-1], int):
            raise Refused("dynamic dim in the reduced (input-features) dim")
        scales = ctx.folded_value(unit.scale)
        if scales is not None:
            reason = _scale_refusal(scales.to(torch.float32).reshape(-1))
            if reason:
                raise Refused(reason)

    def define(self, unit: WeightOnlyLinearUnit, lc: LoweringContext) -> None:
        """FULLY_CONNECTED of ``mm``'s input with the dequantized weight, as ``unit.output``'s value."""
        g = lc.graph
        codes = lc.constant(unit.codes)
        # FULLY_CONNECTED's filter is [out, in]; mm reads [in, out]: the codes themselves if transposed.
        codes = (codes if unit.transposed else codes.t()).contiguous()
        out_features, in_features = codes.shape
        scales = lc.constant(unit.scale).to(torch.float32).reshape(-1)
        reason = _scale_refusal(scales)
        if reason:
            raise LoweringError(f"{unit.output.name}: {reason}")
        name = unit.output.name
        if scales.numel() == 1:
            w_q = g.emit_quantized_constant(codes, OperandCode.TENSOR_QUANT8_SYMM, scale=float(scales[0]),
                                            debug_name=f"{name}.weight")
        else:
            w_q = g.emit_quantized_constant(codes, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL, channel_dim=0,
                                            channel_scales=scales.tolist(), debug_name=f"{name}.weight")
        g.require_feature_level(PER_CHANNEL_SINCE)
        w_f = g.emit_tensor([out_features, in_features], debug_name=f"{name}.weight_f32")
        g.emit_operation(OperationCode.DEQUANTIZE, [w_q], [w_f], debug_name=name)
        bias = g.emit_constant_tensor(torch.zeros(out_features, dtype=torch.float32), debug_name=f"{name}.bias")
        x = unit.mm.args[0]
        out = lc.emit_output(unit.output)
        g.emit_operation(OperationCode.FULLY_CONNECTED,
                         [lc.operand(x, identity(2)), w_f, bias, g.emit_int32(int(FuseCode.NONE))], [out],
                         debug_name=name)
