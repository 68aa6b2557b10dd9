"""aten.upsample_bilinear2d.vec -> RESIZE_BILINEAR with half_pixel_centers
(align_corners=False) or align_corners (align_corners=True); both flags need API 30."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import stays_float
from .pool_utils import check_pool_input
from .registry import register_builder
from .upsample_nearest2d import emit_resize, scale_factor_mismatch

aten = torch.ops.aten


def align_corners(node: Node) -> bool:
    return bool(node.args[2] if len(node.args) > 2 else node.kwargs.get("align_corners", False))


# Float-only in 8 bits (docs/nnapi_facts.md §9.14, §11). Measured on LiteRT 2.3's BUILTIN_REF kernel: uint8
# rounds the float sum half up, int8 runs a 10-bit fixed-point interpolation; TensorFlow's
# reference_ops::ResizeBilinear<uint8> of other releases truncates. Which one an Android build's CPU
# path runs depends on the TFLite copy it bundles.
_FLOAT_IN_8_BITS = ("quantized RESIZE_BILINEAR rounds the interpolated codes either by truncation or half up "
                    "depending on the TFLite copy in the Android build (docs/nnapi_facts.md §11); leave "
                    "upsample_bilinear2d float")


@register_builder
class UpsampleBilinear2dBuilder(NodeBuilder):
    # Before API 30 RESIZE_BILINEAR has only TF1's asymmetric mapping, which matches no PyTorch mode.
    ops = (
        OpSupport(aten.upsample_bilinear2d.vec, FeatureLevel.ANDROID_11, "RESIZE_BILINEAR (half_pixel_centers / align_corners)",
                  "float32, 4-D; scale_factor only where 1/scale equals in/out",
                  quantized=stays_float(_FLOAT_IN_8_BITS)),
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
