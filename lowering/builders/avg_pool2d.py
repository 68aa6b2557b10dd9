"""aten.avg_pool2d -> AVERAGE_POOL_2D (explicit padding, NHWC), preceded by PAD
when PyTorch counts the padding in the divisor."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .common import fuse_operand
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .pool_utils import arg, check_pool_input, check_tail, emit_pool, nhwc_input, pair, tail_padding
from .registry import register_builder

aten = torch.ops.aten


def avg_pool_args(node: Node) -> tuple[Node, list[int], list[int], list[int], bool, bool, int | None]:
    """(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override); sizes as [h, w]."""
    kernel = pair(arg(node, 1, "kernel_size"), [1, 1])
    return (node.args[0], kernel, pair(arg(node, 2, "stride"), kernel), pair(arg(node, 3, "padding"), [0, 0]),
            bool(arg(node, 4, "ceil_mode", False)), bool(arg(node, 5, "count_include_pad", True)),
            arg(node, 6, "divisor_override"))


def needs_explicit_pad(padding: list[int], count_include_pad: bool) -> bool:
    """NNAPI excludes padding from the divisor (PyTorch's count_include_pad=False);
    to count it, the zeros must be real elements: PAD first, then pool unpadded."""
    return count_include_pad and any(p > 0 for p in padding)


@register_builder
class AvgPool2dBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.avg_pool2d.default, FeatureLevel.ANDROID_8_1, "AVERAGE_POOL_2D; PAD first for count_include_pad (API 28)",
                  "float32, 4-D, no divisor_override; ceil_mode as extra tail padding < kernel",
                  quantized=same_parameters(aten.avg_pool2d.default)),
    )
    layout = LayoutClass.NHWC
    fuses_activation = True

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override = avg_pool_args(node)
        check_pool_input(node, x, "avg_pool2d")
        if divisor_override is not None:
            raise Refused(f"avg_pool2d with divisor_override={divisor_override} "
                          "(NNAPI always divides by the in-bounds window size)")
        if any(p >= k for p, k in zip(padding, kernel)):
            raise Refused(f"avg_pool2d padding {padding} not smaller than the kernel {kernel}")
        explicit = needs_explicit_pad(padding, count_include_pad)
        if explicit:
            ctx.require(FeatureLevel.ANDROID_9, "avg_pool2d with count_include_pad=True and padding > 0 (explicit PAD)")
        in_shape, out_shape = tensor_shape(x), tensor_shape(node)
        for axis, i in (("height", 0), ("width", 1)):
            size, pad = in_shape[2 + i], padding[i]
            if explicit:
                size, pad = size + 2 * pad, 0
            check_tail(size, out_shape[2 + i], kernel[i], stride[i], pad, pad, ceil_mode, "avg_pool2d", axis)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, kernel, stride, padding, ceil_mode, count_include_pad, _ = avg_pool_args(node)
        g = lc.graph
        in_shape, out_shape = list(lc.shape(x)), lc.shape(node)
        inp = nhwc_input(lc, x)
        head = list(padding)
        if needs_explicit_pad(padding, count_include_pad):
            n, c, h, w = in_shape
            in_shape = [n, c, h + 2 * padding[0], w + 2 * padding[1]]
            # Quantized, PAD fills with the zero point: a real 0, as count_include_pad counts it.
            padded = g.emit_like(inp, [in_shape[d] for d in NHWC], debug_name=f"{node.name}.padded")
            paddings = torch.tensor([[0, 0], [padding[0]] * 2, [padding[1]] * 2, [0, 0]], dtype=torch.int32)
            g.emit_operation(OperationCode.PAD, [inp, g.emit_constant_tensor(paddings)], [padded],
                             debug_name=f"{node.name} (count_include_pad)")
            inp, head = padded, [0, 0]
        tails = [tail_padding(in_shape[2 + i], out_shape[2 + i], kernel[i], stride[i], head[i], head[i], ceil_mode)
                 for i in range(2)]
        out = lc.emit_output(node, NHWC)
        emit_pool(lc, OperationCode.AVERAGE_POOL_2D, inp, out, kernel, stride, head, tails, fuse_operand(lc, node),
                  node.name)
