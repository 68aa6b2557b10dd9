"""A channel shuffle (ChannelShuffleUnit) -> one CHANNEL_SHUFFLE (API 29), or
RESHAPE + TRANSPOSE + RESHAPE at API 28.

PyTorch's result is out[k*g + i] = in[i*(C/g) + k] (the [g, C/g] grid read
column by column), which is NNAPI's definition with num_groups = g. The shuffle
runs on the channel axis in the input's physical order (axis 3 for NHWC), so
no TRANSPOSE is needed around it.
"""

from __future__ import annotations

import math

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_units import ChannelShuffleUnit
from .common import check_float_tensors, physical_axis
from .node_builder import CheckContext, UnitBuilder
from .registry import register_unit_builder


@register_unit_builder
class ChannelShuffleBuilder(UnitBuilder):
    """view -> permute -> [clone] -> view through rank 5 -> CHANNEL_SHUFFLE (RESHAPE + TRANSPOSE at API 28)."""

    unit = ChannelShuffleUnit
    since = FeatureLevel.ANDROID_9
    what = "channel shuffle"

    def check(self, unit: ChannelShuffleUnit, ctx: CheckContext) -> None:
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
        grouped = g.emit_tensor(grid, debug_name=f"{name}.groups")
        g.emit_operation(OperationCode.RESHAPE, [lc.operand(x, order), g.emit_int32_vector(grid)], [grouped],
                         debug_name=name)
        swapped = g.emit_tensor([grid[0], grid[2], grid[1], grid[3]], debug_name=f"{name}.swapped")
        g.emit_operation(OperationCode.TRANSPOSE, [grouped, g.emit_int32_vector([0, 2, 1, 3])], [swapped],
                         debug_name=name)
        g.emit_operation(OperationCode.RESHAPE, [swapped, g.emit_int32_vector(physical)], [out], debug_name=name)
