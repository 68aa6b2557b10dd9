"""aten._adaptive_avg_pool2d -> MEAN over H, W (1x1 output) or AVERAGE_POOL_2D
(output size dividing the input size, where PyTorch's windows are uniform)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import is_static
from .common import physical_axis
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .pool_utils import check_pool_input, emit_pool, nhwc_input
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class AdaptiveAvgPool2dBuilder(NodeBuilder):
    ops = (
        OpSupport(aten._adaptive_avg_pool2d.default, FeatureLevel.ANDROID_8_1, "MEAN (1x1, API 28) / AVERAGE_POOL_2D",
                  "float32, 4-D, output 1x1 or dividing the static input size",
                  quantized=same_parameters(aten.adaptive_avg_pool2d.default)),
    )
    layout = LayoutClass.NHWC

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_pool_input(node, x, "adaptive_avg_pool2d")
        _, _, h, w = tensor_shape(x)
        oh, ow = tensor_shape(node)[2:]
        static = is_static(h) and is_static(w)
        if (oh, ow) == (1, 1):
            if not static:
                ctx.require(FeatureLevel.ANDROID_9, "adaptive_avg_pool2d to 1x1 on a dynamic input size (MEAN)")
            return
        if not static:
            raise Refused("dynamic dim in adaptive_avg_pool2d input (only a 1x1 output allows dynamic sizes)")
        if h % oh or w % ow:
            raise Refused(f"adaptive_avg_pool2d from {h}x{w} to {oh}x{ow} (NNAPI needs an output size "
                          "dividing the input size, so that all windows are equal)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        g = lc.graph
        _, _, h, w = lc.shape(x)
        oh, ow = lc.shape(node)[2:]
        # Quantized, MEAN truncates the sum of codes (docs/nnapi_facts.md §9.10) where AVERAGE_POOL_2D rounds it
        # (docs/nnapi_facts.md §9.8) as convert_pt2e's float mean does: pool when the window is static.
        pooled = lc.quant_params(node) is not None and is_static(h) and is_static(w)
        if (oh, ow) == (1, 1) and g.feature_level >= FeatureLevel.ANDROID_9 and not pooled:
            # MEAN works in any layout: reduce H and W where they sit, keep the input's order.
            order = lc.order(x)
            axes = [physical_axis(order, 2), physical_axis(order, 3)]
            out = lc.emit_output(node, order)
            g.emit_operation(OperationCode.MEAN, [lc.operand(x, order), g.emit_int32_vector(axes), g.emit_int32(1)],
                             [out], debug_name=node.name)
            return
        kernel = [h // oh, w // ow]
        out = lc.emit_output(node, NHWC)
        emit_pool(lc, OperationCode.AVERAGE_POOL_2D, nhwc_input(lc, x), out, kernel, kernel, [0, 0], [0, 0],
                  g.emit_int32(int(FuseCode.NONE)), node.name)
