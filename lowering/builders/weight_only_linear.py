"""A weight-only int8 linear (WeightOnlyLinearUnit, torchao's ``Int8WeightOnlyConfig``) ->
its int8 weight as a constant TENSOR_QUANT8_SYMM_PER_CHANNEL (one scale per output feature;
TENSOR_QUANT8_SYMM for one scale), DEQUANTIZE to float32, FULLY_CONNECTED.

NNAPI takes a per-channel or symmetric int8 tensor only from API 29, and FULLY_CONNECTED
only float or uint8 / int8 activations with a per-tensor filter (docs/nnapi_facts.md §3,
§8), so the weight is dequantized inside the NNAPI model: the .pte holds one byte per weight
and the matrix product runs in float, as the eager model's does. torchao computes
``(x @ float(q)) * scale``, this ``x @ (scale * float(q))``: the same up to float32 rounding.
A scale NNAPI cannot hold (negative, not finite) keeps that weight's values in float32.
"""

from __future__ import annotations

import logging

import torch

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import PER_CHANNEL_SINCE, FuseCode, OperandCode, OperationCode
from ..node_units import WeightOnlyLinearUnit
from ..node_utils import tensor_shape
from .common import check_float_tensors, check_rank
from .node_builder import CheckContext, Refused, UnitBuilder
from .registry import register_unit_builder

logger = logging.getLogger(__name__)


def _expressible(codes: torch.Tensor, scales: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(codes, scales) NNAPI can hold for the same real values, or None. Its int8 weight scales
    must be > 0: a row scaled by 0 is all zeros, so its codes become 0 and its scale 1; a
    negative or non-finite scale has no 8-bit form."""
    if not bool((torch.isfinite(scales) & (scales >= 0)).all()):
        return None
    zero = scales == 0
    if bool(zero.any()):
        codes = torch.where(zero.reshape(-1, 1), torch.zeros_like(codes), codes)
        scales = torch.where(zero, torch.ones_like(scales), scales)
    return codes, scales


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
        # The scales' values are not checked here: at partitioning time torchao's unwrapped
        # parameters may be fake tensors. ``define`` handles every value (``_expressible``).

    def define(self, unit: WeightOnlyLinearUnit, lc: LoweringContext) -> None:
        """FULLY_CONNECTED of ``mm``'s input with the dequantized weight, as ``unit.output``'s value."""
        g = lc.graph
        codes = lc.constant(unit.codes)
        # FULLY_CONNECTED's filter is [out, in]; mm reads [in, out]: the codes themselves if transposed.
        codes = (codes if unit.transposed else codes.t()).contiguous()
        out_features = codes.shape[0]
        scales = lc.constant(unit.scale).to(torch.float32).reshape(-1)
        name = unit.output.name
        x = unit.mm.args[0]
        out = lc.emit_output(unit.output)
        bias = g.emit_constant_tensor(torch.zeros(out_features, dtype=torch.float32), debug_name=f"{name}.bias")
        weight = self._weight(lc, codes, scales, name)
        g.emit_operation(OperationCode.FULLY_CONNECTED,
                         [lc.operand(x, identity(2)), weight, bias, g.emit_int32(int(FuseCode.NONE))], [out],
                         debug_name=name)

    @staticmethod
    def _weight(lc: LoweringContext, codes: torch.Tensor, scales: torch.Tensor, name: str) -> int:
        """The float32 [out, in] filter: the 8-bit codes DEQUANTIZEd, or (for scales with no
        8-bit form) the dequantized values as a float constant."""
        g = lc.graph
        expressible = _expressible(codes, scales)
        if expressible is None:
            logger.warning("%s: weight scales not all finite and >= 0; the weight is stored in float32", name)
            return g.emit_constant_tensor(codes.to(torch.float32) * scales.reshape(-1, 1), debug_name=f"{name}.weight")
        codes, scales = expressible
        if scales.numel() == 1:
            w_q = g.emit_quantized_constant(codes, OperandCode.TENSOR_QUANT8_SYMM, scale=float(scales[0]),
                                            debug_name=f"{name}.weight")
        else:
            w_q = g.emit_quantized_constant(codes, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL, channel_dim=0,
                                            channel_scales=scales.tolist(), debug_name=f"{name}.weight")
        g.require_feature_level(PER_CHANNEL_SINCE)
        w_f = g.emit_tensor(list(codes.shape), debug_name=f"{name}.weight_f32")
        g.emit_operation(OperationCode.DEQUANTIZE, [w_q], [w_f], debug_name=name)
        return w_f
