"""aten.maximum / minimum -> MAXIMUM / MINIMUM (API 29, broadcasting like the binary ops); aten.clamp.Tensor
(bounds that are tensors, e.g. Gemma 4's clipping buffers) -> MAXIMUM then MINIMUM."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op
from .common import check_float_tensors, check_rank, elementwise_operands
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .quantization import requantizing
from .registry import register_builder

aten = torch.ops.aten

_CODES = {aten.maximum.default: OperationCode.MAXIMUM, aten.minimum.default: OperationCode.MINIMUM}


@register_builder
class MaximumMinimumBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.maximum.default, FeatureLevel.ANDROID_10, "MAXIMUM", "float32, broadcasting",
                  quantized=requantizing(aten.maximum.default, since=FeatureLevel.ANDROID_10, inputs=(0, 1))),
        OpSupport(aten.minimum.default, FeatureLevel.ANDROID_10, "MINIMUM", "float32, broadcasting",
                  quantized=requantizing(aten.minimum.default, since=FeatureLevel.ANDROID_10, inputs=(0, 1))),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        a, b = node.args[:2]
        check_float_tensors(node, a, b)
        check_rank(node, max_rank=1 << 30, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        operands, order = elementwise_operands(lc, node, node.args[:2])
        out = lc.emit_output(node, order)
        lc.graph.emit_operation(_CODES[aten_op(node)], operands, [out], debug_name=node.name)


@register_builder
class ClampTensorBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.clamp.Tensor, FeatureLevel.ANDROID_10, "MAXIMUM, then MINIMUM",
                  "float32 input and tensor bounds (either may be absent), broadcasting"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        bounds = [b for b in _bounds(node) if b is not None]
        check_float_tensors(node, node.args[0], *[b for b in bounds if isinstance(b, Node)])
        check_rank(node, max_rank=1 << 30, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        low, high = _bounds(node)
        inputs = [node.args[0]] + [b for b in (low, high) if b is not None]
        operands, order = elementwise_operands(lc, node, inputs)
        out = lc.emit_output(node, order)
        g = lc.graph
        if low is None or high is None:   # one bound: one operation
            code = OperationCode.MAXIMUM if high is None else OperationCode.MINIMUM
            g.emit_operation(code, operands, [out], debug_name=node.name)
            return
        raised = g.emit_tensor(g.operands[out].dims, torch.float32, debug_name=f"{node.name}.raised")
        g.emit_operation(OperationCode.MAXIMUM, operands[:2], [raised], debug_name=node.name)
        g.emit_operation(OperationCode.MINIMUM, [raised, operands[2]], [out], debug_name=node.name)


def _bounds(node: Node) -> tuple:
    """(min, max) of a clamp.Tensor node, None where absent."""
    low = node.args[1] if len(node.args) > 1 else node.kwargs.get("min")
    high = node.args[2] if len(node.args) > 2 else node.kwargs.get("max")
    return low, high
