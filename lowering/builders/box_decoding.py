"""nnapi::decode_boxes (lowering/custom_ops.py) -> AXIS_ALIGNED_BBOX_TRANSFORM (API 29):
the regions split into boxes and batch indices as for roi_align (roi_ops.py)."""

from __future__ import annotations

import torch
from torch.fx import Node

from .. import custom_ops  # noqa: F401  (registers the op)
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .common import check_float_tensors
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .roi_ops import check_rois, split_rois


@register_builder
class DecodeBoxesBuilder(NodeBuilder):
    """decode_boxes -> AXIS_ALIGNED_BBOX_TRANSFORM (per-class deltas, clipped to each image)."""

    ops = (
        OpSupport(torch.ops.nnapi.decode_boxes.default, FeatureLevel.ANDROID_10,
                  "AXIS_ALIGNED_BBOX_TRANSFORM (SLICE, SQUEEZE, CAST split the [K, 5] regions)",
                  "float32, regions [K, 5], deltas [K, 4 x classes], image sizes [B, 2]", cpu_kernel=False),
    )
    layout = LayoutClass.PYTORCH

    def check(self, node: Node, ctx: CheckContext) -> None:
        rois, deltas, sizes = node.args
        check_float_tensors(node, rois, deltas, sizes)
        check_rois(node, rois)
        shape = tensor_shape(deltas)
        if len(shape) != 2:
            raise Refused(f"decode_boxes with deltas of shape {list(shape)} (NNAPI takes [K, 4 x classes])")
        sizes_shape = tensor_shape(sizes)
        if len(sizes_shape) != 2 or sizes_shape[1] != 2:
            raise Refused(f"decode_boxes with image sizes of shape {list(sizes_shape)} (NNAPI takes [B, 2] "
                          "rows of (height, width))")

    def define(self, node: Node, lc: LoweringContext) -> None:
        rois, deltas, sizes = node.args
        boxes, batch = split_rois(lc, rois, node.name)
        g = lc.graph
        if lc.is_constant(sizes):
            sizes_operand = g.emit_constant_tensor(lc.constant(sizes).float(), f"{node.name}.image_sizes")
        else:
            sizes_operand = lc.operand(sizes)
        g.emit_operation(OperationCode.AXIS_ALIGNED_BBOX_TRANSFORM, [boxes, lc.operand(deltas), batch, sizes_operand],
                         [lc.emit_output(node)], debug_name=node.name)
