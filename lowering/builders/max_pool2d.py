"""aten.max_pool2d_with_indices (output 0 only) -> MAX_POOL_2D, explicit padding, NHWC."""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from ..graph import NHWC, LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import as_dim
from .common import fuse_operand
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .pool_utils import arg, check_pool_input, check_tail, emit_pool, nhwc_input, pair, tail_padding
from .registry import register_builder

aten = torch.ops.aten


def max_pool_args(node: Node) -> tuple[Node, list[int], list[int], list[int], list[int], bool]:
    """(x, kernel, stride, padding, dilation, ceil_mode) of a max_pool2d_with_indices node, as [h, w] pairs."""
    kernel = pair(arg(node, 1, "kernel_size"), [1, 1])
    return (node.args[0], kernel, pair(arg(node, 2, "stride"), kernel), pair(arg(node, 3, "padding"), [0, 0]),
            pair(arg(node, 4, "dilation"), [1, 1]), bool(arg(node, 5, "ceil_mode", False)))


def _value_users(node: Node) -> list[Node]:
    """The getitem(…, 0) users that read the pooled values."""
    return [u for u in node.users if u.target is operator.getitem and u.args[1] == 0]


@register_builder
class MaxPool2dBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.max_pool2d_with_indices.default, FeatureLevel.ANDROID_8_1, "MAX_POOL_2D",
                  "float32, 4-D, indices unused, no dilation; ceil_mode as extra tail padding < kernel",
                  quantized=same_parameters(aten.max_pool2d.default)),
    )
    layout = LayoutClass.NHWC

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, kernel, stride, padding, dilation, ceil_mode = max_pool_args(node)
        check_pool_input(node, x, "max_pool2d")
        for user in node.users:
            if user.target is not operator.getitem or user.args[1] != 0:
                raise Refused("max_pool2d_with_indices whose indices output is used (NNAPI has no pooling indices)")
        if dilation != [1, 1]:
            raise Refused(f"dilated pooling (dilation={dilation}; NNAPI pools have no dilation)")
        if any(p >= k for p, k in zip(padding, kernel)):
            raise Refused(f"max_pool2d padding {padding} not smaller than the kernel {kernel}")
        in_shape = tensor_shape(x)
        out_shape = [as_dim(d) for d in node.meta["val"][0].shape]
        for axis, i in (("height", 0), ("width", 1)):
            check_tail(in_shape[2 + i], out_shape[2 + i], kernel[i], stride[i], padding[i], padding[i],
                       ceil_mode, "max_pool2d", axis)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, kernel, stride, padding, _, ceil_mode = max_pool_args(node)
        users = _value_users(node)
        if not users:
            raise LoweringError(f"{node.name}: max_pool2d_with_indices without a getitem(0) user")
        in_shape, out_shape = lc.shape(x), lc.shape(users[0])
        tails = [tail_padding(in_shape[2 + i], out_shape[2 + i], kernel[i], stride[i], padding[i], padding[i],
                              ceil_mode) for i in range(2)]
        inp = nhwc_input(lc, x)
        out = lc.emit_output(users[0], NHWC)
        emit_pool(lc, OperationCode.MAX_POOL_2D, inp, out, kernel, stride, padding, tails,
                  fuse_operand(lc, users[0]), node.name)
        for extra in users[1:]:
            lc.graph.set_value(extra, out, NHWC, out_shape)
