"""A channel shuffle (ChannelShuffleUnit) -> one CHANNEL_SHUFFLE (API 29), or
RESHAPE + TRANSPOSE + RESHAPE at API 28.

PyTorch's result is out[k*g + i] = in[i*(C/g) + k] (the [g, C/g] grid read
column by column), which is NNAPI's definition with num_groups = g. The shuffle
runs on the channel axis in the input's physical order (axis 3 for NHWC), so
no TRANSPOSE is needed around it. A quantized shuffle (patterns/channel_shuffle.py) is
the same operation on the input's 8-bit codes.
"""

from __future__ import annotations

import math

from ..lowering_context import QUANTIZED_TYPES, LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_units import ChannelShuffleUnit
from ..node_utils import quant_params
from .common import check_float_tensors, physical_axis
from .node_builder import CheckContext, UnitBuilder
from .quantize import check_8bit
from .registry import register_unit_builder


@register_unit_builder
class ChannelShuffleBuilder(UnitBuilder):
    """view -> permute -> [clone] -> view through rank 5 -> CHANNEL_SHUFFLE (RESHAPE + TRANSPOSE at API 28)."""

    unit = ChannelShuffleUnit
    since = FeatureLevel.ANDROID_9
    what = "channel shuffle"

    def check(self, unit: ChannelShuffleUnit, ctx: CheckContext) -> None:
        if unit.quantize is not None:
            # Data movement: the 8-bit codes are shuffled as they are (the matcher checked that
            # every quantize / dequantize of the chain has the same parameters).
            check_8bit(quant_params(unit.quantize).dtype, ctx)
            return
        for node in unit.nodes:
            check_float_tensors(node, node.args[0])

    def define(self, unit: ChannelShuffleUnit, lc: LoweringContext) -> None:
        """The shuffle of ``unit.input`` in its own physical order, as the value of
        ``unit.merge`` (the only node of the unit read outside it)."""
        x = unit.input
        order = lc.order(x)
        g = lc.graph
        axis = physical_axis(order, unit.axis)
        name = unit.merge.name
        out = lc.emit_output(unit.merge, order)
        if g.feature_level >= FeatureLevel.ANDROID_10:
            g.emit_operation(OperationCode.CHANNEL_SHUFFLE,
                             [lc.operand(x, order), g.emit_int32(unit.groups), g.emit_int32(axis)],
                             [out], debug_name=name)
            return
        physical = [lc.shape(x)[d] for d in order]
        outer, inner = math.prod(physical[:axis]), math.prod(physical[axis + 1:])
        grid = [outer, unit.groups, physical[axis] // unit.groups, inner]
        grouped = self._like_output(unit, lc, grid, f"{name}.groups")
        g.emit_operation(OperationCode.RESHAPE, [lc.operand(x, order), g.emit_int32_vector(grid)], [grouped],
                         debug_name=name)
        swapped = self._like_output(unit, lc, [grid[0], grid[2], grid[1], grid[3]], f"{name}.swapped")
        g.emit_operation(OperationCode.TRANSPOSE, [grouped, g.emit_int32_vector([0, 2, 1, 3])], [swapped],
                         debug_name=name)
        g.emit_operation(OperationCode.RESHAPE, [swapped, g.emit_int32_vector(physical)], [out], debug_name=name)

    @staticmethod
    def _like_output(unit: ChannelShuffleUnit, lc: LoweringContext, shape: list, name: str) -> int:
        """An intermediate of the API 28 form: float, or the 8-bit codes of a quantized shuffle."""
        params = lc.quant_params(unit.merge)
        if params is None:
            return lc.graph.emit_tensor(shape, debug_name=name)
        return lc.graph.emit_operand(QUANTIZED_TYPES[params.dtype], shape, scale=params.scale,
                                     zero_point=params.zero_point, debug_name=name)
