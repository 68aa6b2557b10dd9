"""aten.max_pool3d_with_indices (output 0 only) -> MAX_POOL_2D over H, W, then over D
(pool3d_utils.py: the separable form on 4-D views of the 5-D tensor)."""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from ..graph import LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import as_dim
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .pool3d_utils import Pool3d, check_pool3d, check_pool3d_input, emit_pool3d, triple
from .pool_utils import arg
from .registry import register_builder

aten = torch.ops.aten


def max_pool3d_args(node: Node) -> tuple[Node, Pool3d, list[int]]:
    """(x, window, dilation) of a max_pool3d_with_indices node; sizes as [d, h, w]."""
    kernel = triple(arg(node, 1, "kernel_size"), [1, 1, 1])
    pool = Pool3d(kernel, triple(arg(node, 2, "stride"), kernel), triple(arg(node, 3, "padding"), [0, 0, 0]),
                  bool(arg(node, 5, "ceil_mode", False)))
    return node.args[0], pool, triple(arg(node, 4, "dilation"), [1, 1, 1])


@register_builder
class MaxPool3dBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.max_pool3d_with_indices.default, FeatureLevel.ANDROID_8_1,
                  "MAX_POOL_2D over H, W then over D, on RESHAPE views (a max is separable)",
                  "float32, 5-D, indices unused, no dilation; ceil_mode as extra tail padding < kernel",
                  cpu_kernel=False),
    )
    # The 2-D pools run on one-channel NHWC views of PyTorch's byte order: no layout change.
    layout = LayoutClass.PYTORCH
    reads_merged_views = True  # the 3-D pools read and write merged views

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, pool, dilation = max_pool3d_args(node)
        check_pool3d_input(node, x, "max_pool3d")
        for user in node.users:
            if user.target is not operator.getitem or user.args[1] != 0:
                raise Refused("max_pool3d_with_indices whose indices output is used (NNAPI has no pooling indices)")
        if dilation != [1, 1, 1]:
            raise Refused(f"dilated pooling (dilation={dilation}; NNAPI pools have no dilation)")
        out_shape = [as_dim(d) for d in node.meta["val"][0].shape]
        check_pool3d(pool, tensor_shape(x), out_shape, "max_pool3d", ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, pool, _ = max_pool3d_args(node)
        users = [u for u in node.users if u.target is operator.getitem and u.args[1] == 0]
        if not users:
            raise LoweringError(f"{node.name}: max_pool3d_with_indices without a getitem(0) user")
        emit_pool3d(lc, OperationCode.MAX_POOL_2D, x, users[0], lc.shape(users[0]), pool, node.name)
        value = lc.graph.value(users[0])
        for extra in users[1:]:
            lc.graph.set_merged_value(extra, value.operand, value.merged, lc.shape(users[0]))
