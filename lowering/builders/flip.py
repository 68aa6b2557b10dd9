"""aten.flip -> one REVERSE per flipped dim (feature level 7), on the physical axis of the
input's dim order, so a flip after a convolution runs on the NHWC value as it is."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .registry import register_builder

aten = torch.ops.aten


def flipped_dims(node: Node) -> list[int]:
    """The logical dims ``node`` reverses, non-negative, each once (torch rejects repeats)."""
    rank = len(tensor_shape(node))
    return sorted({normalize_dim(d, rank) for d in node.args[1]})


@register_builder
class FlipBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.flip.default, FeatureLevel.FEATURE_LEVEL_7, "REVERSE (one per flipped dim)",
                  "float32, rank 1-4, at least one dim",
                  # REVERSE keeps its input's scale and zero point (8-bit from its own level).
                  quantized=same_parameters(aten.flip.default, since=FeatureLevel.FEATURE_LEVEL_7)),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        if not flipped_dims(node):
            raise Refused("flip of no dims (nothing for REVERSE to do)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        g = lc.graph
        order = lc.order(x)
        value = lc.operand(x, order)
        dims = flipped_dims(node)
        for i, dim in enumerate(dims):
            last = i == len(dims) - 1
            out = lc.emit_output(node, order) if last else g.emit_like(value, g.operands[value].dims,
                                                                       debug_name=f"{node.name}.{dim}")
            axis = g.emit_int32_tensor([physical_axis(order, dim)], [1])
            g.emit_operation(OperationCode.REVERSE, [value, axis], [out], debug_name=node.name)
            value = out
