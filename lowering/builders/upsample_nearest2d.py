"""aten.upsample_nearest2d.vec -> RESIZE_NEAREST_NEIGHBOR (API 29) by output size, NHWC."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import sympy
import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import Dim, is_static
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .pool_utils import check_pool_input
from .registry import register_builder

aten = torch.ops.aten


def scale_factor_mismatch(scales: Optional[Sequence[float]], in_hw: Sequence[Dim], out_hw: Sequence[Dim]) -> str | None:
    """Why PyTorch's coordinate mapping differs from NNAPI's, if it does.

    With ``scale_factor`` (and no recompute_scale_factor) PyTorch maps output
    coordinates with float32(1 / scale_factor); NNAPI always uses in / out of
    the integer sizes. They agree when those two float32 values are equal —
    for any size when the factor is an integer.
    """
    if not scales:
        return None
    for axis, size, out, scale in zip(("height", "width"), in_hw, out_hw, scales):
        if float(scale) == int(scale) and sympy.simplify(sympy.sympify(out) - sympy.sympify(size) * int(scale)) == 0:
            continue
        if is_static(size) and is_static(out) and np.float32(1.0 / scale) == np.float32(size) / np.float32(out):
            continue
        return (f"scale_factor {scale} on {axis} {size} -> {out} (PyTorch maps coordinates with 1/scale_factor, "
                f"NNAPI with in/out; pass size= or recompute_scale_factor=True)")
    return None


def emit_resize(lc: LoweringContext, node: Node, code: OperationCode, flags: Sequence[bool]) -> None:
    """RESIZE_* by output size (width then height, possibly symbolic) on NHWC, then the BOOL flags
    (layout = NHWC, then align_corners / half_pixel_centers when given)."""
    g = lc.graph
    x = node.args[0]
    oh, ow = lc.shape(node)[2:]
    inp = lc.operand(x, NHWC)
    out = lc.emit_output(node, NHWC)
    g.emit_operation(code, [inp, g.emit_int32(ow), g.emit_int32(oh), g.emit_bool(False), *map(g.emit_bool, flags)],
                     [out], debug_name=node.name)


@register_builder
class UpsampleNearest2dBuilder(NodeBuilder):
    # The layout BOOL (input 3) is required by the reference implementation; it exists from API 29.
    ops = (
        OpSupport(aten.upsample_nearest2d.vec, FeatureLevel.ANDROID_10, "RESIZE_NEAREST_NEIGHBOR",
                  "float32, 4-D; scale_factor only where 1/scale equals in/out",
                  quantized=same_parameters(aten.upsample_nearest2d.vec, aten.upsample_nearest2d.default,
                                            since=FeatureLevel.ANDROID_10)),
    )
    layout = LayoutClass.NHWC

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_pool_input(node, x, "upsample_nearest2d")
        scales = node.args[2] if len(node.args) > 2 else node.kwargs.get("scale_factors")
        reason = scale_factor_mismatch(scales, tensor_shape(x)[2:], tensor_shape(node)[2:])
        if reason:
            raise Refused(f"upsample_nearest2d with {reason}")

    def define(self, node: Node, lc: LoweringContext) -> None:
        # NNAPI's legacy mapping min(floor(dst * in/out), in - 1) is PyTorch's 'nearest'.
        emit_resize(lc, node, OperationCode.RESIZE_NEAREST_NEIGHBOR, ())
