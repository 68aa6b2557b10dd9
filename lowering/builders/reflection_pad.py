"""aten.reflection_pad1d / 2d / 3d -> MIRROR_PAD in REFLECT mode (feature level 7), the
paddings mapped to the physical dims of the input's dim order."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank
from .constant_pad import logical_paddings
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .registry import register_builder

aten = torch.ops.aten

MIRROR_PAD_REFLECT = 0  # MIRROR_PAD's mode operand: 0 REFLECT (border not repeated), 1 SYMMETRIC

_REFLECTION_PADS = (aten.reflection_pad1d.default, aten.reflection_pad2d.default, aten.reflection_pad3d.default)


def _row(op) -> OpSupport:
    return OpSupport(op, FeatureLevel.FEATURE_LEVEL_7, "MIRROR_PAD (REFLECT)",
                     "float32, rank <= 4, static pads, each smaller than its dim", keep=True,
                     # MIRROR_PAD keeps its input's scale and zero point (8-bit from its own level).
                     quantized=same_parameters(op, since=FeatureLevel.FEATURE_LEVEL_7))


@register_builder
class ReflectionPadBuilder(NodeBuilder):
    ops = tuple(_row(op) for op in _REFLECTION_PADS)
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, pad = node.args[:2]
        check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        shape = tensor_shape(x)
        if not all(isinstance(p, int) for p in pad):
            raise Refused(f"pad amounts {list(pad)} computed at run time")
        for i, dim in enumerate(reversed(range(len(shape)))):
            if i >= len(pad) // 2:
                break
            size = shape[dim]
            # MIRROR_PAD's REFLECT mode, like PyTorch, needs each pad below the dim's size.
            if is_static(size) and max(pad[2 * i], pad[2 * i + 1]) >= int(size):
                raise Refused(f"reflection pad {pad[2 * i]}, {pad[2 * i + 1]} of dim {dim} of size {size} "
                              f"(each must be smaller than the dim)")
            if min(pad[2 * i], pad[2 * i + 1]) < 0:
                raise Refused(f"negative reflection pad {list(pad)} (cropping)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, pad = node.args[:2]
        g = lc.graph
        order = lc.order(x)
        rows = logical_paddings(list(pad), len(lc.shape(x)))
        physical = [rows[d] for d in order]
        paddings = g.emit_int32_tensor([p for row in physical for p in row], [len(physical), 2])
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.MIRROR_PAD, [lc.operand(x, order), paddings, g.emit_int32(MIRROR_PAD_REFLECT)],
                         [out], debug_name=node.name)
