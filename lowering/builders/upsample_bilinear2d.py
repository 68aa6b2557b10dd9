"""aten.upsample_bilinear2d.vec -> RESIZE_BILINEAR with half_pixel_centers (align_corners=False)
or align_corners (align_corners=True), both flags of API 30; below API 30, static sizes: two
constant interpolation matrices applied by DEPTHWISE_CONV_2D (bilinear_matrices.py), or, from a
1x1 source (a broadcast, any mapping), RESIZE_BILINEAR without flags.

In 8 bits (API 30) the resize keeps its input's scale and zero point and interpolates the codes;
the result is truncated, not rounded (Android 11's rule, docs/nnapi_facts.md §9.14), so it lies
up to one step below convert_pt2e's rounded result. Below API 30 the quantizer leaves it float."""

from __future__ import annotations

from typing import Optional, Sequence

import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import is_static
from .bilinear_matrices import bilinear_matrix, emit_matrix_resize, is_identity, matrix_resize_refusal
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .pool_utils import check_pool_input
from .registry import register_builder
from .upsample_nearest2d import emit_resize, scale_factor_mismatch

aten = torch.ops.aten


def align_corners(node: Node) -> bool:
    return bool(node.args[2] if len(node.args) > 2 else node.kwargs.get("align_corners", False))


def _scale_factors(node: Node) -> Optional[Sequence[float]]:
    scales = node.args[3] if len(node.args) > 3 else node.kwargs.get("scale_factors")
    return list(scales) if scales else None


def _matrices(node: Node, in_hw: Sequence[int], out_hw: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """(R_h, R_w): PyTorch's interpolation matrices of the node's two axes."""
    aligned = align_corners(node)
    scales = _scale_factors(node)
    return tuple(bilinear_matrix(int(i), int(o), aligned, scales[axis] if scales and not aligned else None)
                 for axis, (i, o) in enumerate(zip(in_hw, out_hw)))


@register_builder
class UpsampleBilinear2dBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.upsample_bilinear2d.vec, FeatureLevel.ANDROID_8_1,
                  "RESIZE_BILINEAR (half_pixel_centers / align_corners, API 30); below: DEPTHWISE_CONV_2D "
                  "interpolation matrices + TRANSPOSE (API 28) or one-hot DEPTHWISE_CONV_2D (API 27)",
                  "float32, 4-D; API 30: scale_factor only where 1/scale equals in/out; below API 30: static "
                  "height, width and channels, each constant at most 2^24 elements",
                  # 8-bit RESIZE_BILINEAR exists from API 29, but both PyTorch mappings need API 30.
                  quantized=same_parameters(aten.upsample_bilinear2d.vec, since=FeatureLevel.ANDROID_11)),
    )
    layout = LayoutClass.NHWC

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_pool_input(node, x, "upsample_bilinear2d")
        in_shape, out_shape = tensor_shape(x), tensor_shape(node)
        if ctx.feature_level < FeatureLevel.ANDROID_11:
            self._check_below_api_30(node, in_shape, out_shape, ctx.feature_level)
            return
        if not align_corners(node):
            reason = scale_factor_mismatch(_scale_factors(node), in_shape[2:], out_shape[2:])
            if reason:
                raise Refused(f"upsample_bilinear2d with {reason}")

    @staticmethod
    def _check_below_api_30(node: Node, in_shape: Sequence, out_shape: Sequence, level: FeatureLevel) -> None:
        """Static sizes (the matrices are constants) and bounded constants (bilinear_matrices.py)."""
        dims = [*in_shape[1:], *out_shape[2:]]
        if not all(is_static(d) for d in dims):
            raise Refused(f"upsample_bilinear2d with a dynamic channel count, height or width ({list(in_shape)} -> "
                          f"{list(out_shape)}) needs API 30 (RESIZE_BILINEAR's half_pixel_centers / align_corners); "
                          f"below, its interpolation weights are constants computed from static sizes")
        channels, in_hw, out_hw = int(in_shape[1]), [int(d) for d in in_shape[2:]], [int(d) for d in out_shape[2:]]
        if in_hw == [1, 1]:
            return
        keep_height = is_identity(_matrices(node, in_hw, out_hw)[0])
        reason = matrix_resize_refusal(in_hw, out_hw, channels, keep_height, level)
        if reason:
            raise Refused(reason)

    def define(self, node: Node, lc: LoweringContext) -> None:
        g = lc.graph
        aligned = align_corners(node)
        if g.feature_level >= FeatureLevel.ANDROID_11:
            g.require_feature_level(FeatureLevel.ANDROID_11)
            emit_resize(lc, node, OperationCode.RESIZE_BILINEAR, (aligned, not aligned))
            return
        x = node.args[0]
        n, channels, h, w = lc.shape(x)
        oh, ow = (int(d) for d in lc.shape(node)[2:])
        inp = lc.operand(x, NHWC)
        out = lc.emit_output(node, NHWC)
        if (int(h), int(w)) == (1, 1):
            # Every mapping reads the one sample: TF1's (API 27) too.
            g.emit_operation(OperationCode.RESIZE_BILINEAR, [inp, g.emit_int32(ow), g.emit_int32(oh)], [out],
                             debug_name=node.name)
            return
        emit_matrix_resize(lc, inp, out, (n, int(h), int(w), int(channels)),
                           _matrices(node, (int(h), int(w)), (oh, ow)), node.name)
