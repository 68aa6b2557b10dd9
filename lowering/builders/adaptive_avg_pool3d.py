"""aten._adaptive_avg_pool3d -> AVERAGE_POOL_2D over H, W then over D with the window
input / output (an output size dividing the static input size, where PyTorch's
windows are uniform). A 1x1x1 output arrives as mean.dim (builders/mean.py)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import is_static
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .pool3d_utils import Pool3d, check_pool3d_input, emit_pool3d
from .registry import register_builder

aten = torch.ops.aten


def adaptive_window(node: Node) -> Pool3d:
    """The uniform window (kernel = stride = in / out per axis) of a dividing adaptive pool."""
    in_dhw, out_dhw = tensor_shape(node.args[0])[2:], tensor_shape(node)[2:]
    kernel = [int(i) // int(o) for i, o in zip(in_dhw, out_dhw)]
    return Pool3d(kernel, kernel, [0, 0, 0], False)


@register_builder
class AdaptiveAvgPool3dBuilder(NodeBuilder):
    ops = (
        OpSupport(aten._adaptive_avg_pool3d.default, FeatureLevel.ANDROID_8_1,
                  "AVERAGE_POOL_2D over H, W then over D, on RESHAPE views",
                  "float32, 5-D, output size dividing the static input size",
                  cpu_kernel=False),
    )
    # The 2-D pools run on one-channel NHWC views of PyTorch's byte order: no layout change.
    layout = LayoutClass.PYTORCH
    reads_merged_views = True  # the 3-D pools read and write merged views

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_pool3d_input(node, x, "adaptive_avg_pool3d")
        in_dhw, out_dhw = tensor_shape(x)[2:], tensor_shape(node)[2:]
        if not all(is_static(d) for d in (*in_dhw, *out_dhw)):
            raise Refused("dynamic dim in adaptive_avg_pool3d (its windows depend on the sizes; a 1x1x1 output "
                          "is a mean and allows dynamic sizes)")
        if any(i % o for i, o in zip(in_dhw, out_dhw)):
            raise Refused(f"adaptive_avg_pool3d from {'x'.join(map(str, in_dhw))} to {'x'.join(map(str, out_dhw))} "
                          "(NNAPI needs an output size dividing the input size, so that all windows are equal)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_pool3d(lc, OperationCode.AVERAGE_POOL_2D, node.args[0], node, lc.shape(node), adaptive_window(node),
                    node.name)
