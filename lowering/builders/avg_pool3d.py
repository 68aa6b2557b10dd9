"""aten.avg_pool3d -> AVERAGE_POOL_2D over H, W, then over D (pool3d_utils.py), each
preceded by PAD when PyTorch counts the padding in the divisor."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .pool3d_utils import Pool3d, check_pool3d, check_pool3d_input, emit_pool3d, triple
from .pool_utils import arg
from .registry import register_builder

aten = torch.ops.aten


def avg_pool3d_args(node: Node) -> tuple[Node, Pool3d, int | None]:
    """(x, window, divisor_override) of an avg_pool3d node; sizes as [d, h, w]."""
    kernel = triple(arg(node, 1, "kernel_size"), [1, 1, 1])
    padding = triple(arg(node, 3, "padding"), [0, 0, 0])
    count_include_pad = bool(arg(node, 5, "count_include_pad", True))
    pool = Pool3d(kernel, triple(arg(node, 2, "stride"), kernel), padding, bool(arg(node, 4, "ceil_mode", False)),
                  counted_padding=count_include_pad and any(p > 0 for p in padding))
    return node.args[0], pool, arg(node, 6, "divisor_override")


@register_builder
class AvgPool3dBuilder(NodeBuilder):
    """aten.avg_pool3d -> AVERAGE_POOL_2D over H, W then over D (an average whose divisor is
    the window's in-bounds size, or its padded size via PAD, is separable)."""

    ops = (
        OpSupport(aten.avg_pool3d.default, FeatureLevel.ANDROID_8_1,
                  "AVERAGE_POOL_2D over H, W then over D, on RESHAPE views; PAD first for count_include_pad (API 28)",
                  "float32, 5-D, no divisor_override; ceil_mode as extra tail padding < kernel",
                  cpu_kernel=False),
    )
    # The 2-D pools run on one-channel NHWC views of PyTorch's byte order: no layout change.
    layout = LayoutClass.PYTORCH
    reads_merged_views = True  # the 3-D pools read and write merged views

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, pool, divisor_override = avg_pool3d_args(node)
        check_pool3d_input(node, x, "avg_pool3d")
        if divisor_override is not None:
            raise Refused(f"avg_pool3d with divisor_override={divisor_override} (NNAPI always divides by the "
                          "window's size, and a fixed divisor of a 3-D window does not split into two 2-D pools)")
        check_pool3d(pool, tensor_shape(x), tensor_shape(node), "avg_pool3d", ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, pool, _ = avg_pool3d_args(node)
        emit_pool3d(lc, OperationCode.AVERAGE_POOL_2D, x, node, lc.shape(node), pool, node.name)
