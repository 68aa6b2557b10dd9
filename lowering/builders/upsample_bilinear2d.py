"""aten.upsample_bilinear2d.vec -> RESIZE_BILINEAR with half_pixel_centers
(align_corners=False) or align_corners (align_corners=True); both flags need API 30.

In 8 bits the resize keeps its input's scale and zero point and interpolates the codes; the
result is truncated, not rounded (Android 11's rule, docs/nnapi_facts.md §9.14), so it lies up to
one step below convert_pt2e's rounded result."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .pool_utils import check_pool_input
from .registry import register_builder
from .upsample_nearest2d import emit_resize, scale_factor_mismatch

aten = torch.ops.aten


def align_corners(node: Node) -> bool:
    return bool(node.args[2] if len(node.args) > 2 else node.kwargs.get("align_corners", False))


@register_builder
class UpsampleBilinear2dBuilder(NodeBuilder):
    # Before API 30 RESIZE_BILINEAR has only TF1's asymmetric mapping, which matches no PyTorch mode.
    ops = (
        OpSupport(aten.upsample_bilinear2d.vec, FeatureLevel.ANDROID_11, "RESIZE_BILINEAR (half_pixel_centers / align_corners)",
                  "float32, 4-D; scale_factor only where 1/scale equals in/out",
                  # 8-bit RESIZE_BILINEAR exists from API 29, but both PyTorch mappings need API 30.
                  quantized=same_parameters(aten.upsample_bilinear2d.vec, since=FeatureLevel.ANDROID_11)),
    )
    layout = LayoutClass.NHWC

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_pool_input(node, x, "upsample_bilinear2d")
        if not align_corners(node):
            scales = node.args[3] if len(node.args) > 3 else node.kwargs.get("scale_factors")
            reason = scale_factor_mismatch(scales, tensor_shape(x)[2:], tensor_shape(node)[2:])
            if reason:
                raise Refused(f"upsample_bilinear2d with {reason}")

    def define(self, node: Node, lc: LoweringContext) -> None:
        lc.graph.require_feature_level(FeatureLevel.ANDROID_11)
        aligned = align_corners(node)
        emit_resize(lc, node, OperationCode.RESIZE_BILINEAR, (aligned, not aligned))
