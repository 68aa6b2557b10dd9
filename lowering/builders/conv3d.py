"""aten.convolution of a 5-D input (Conv3d) -> CONV_2D per tap of one spatial axis, summed (API 28).

NNAPI has 2-D convolutions only. A 3-D convolution is a sum of 2-D ones: for a kernel of ``kt``
taps along one spatial axis (the *tap axis*), tap ``i`` is a 2-D convolution over the other two
axes of the input slices ``t * stride + i * dilation`` (one slice per output position ``t``, the
tap axis moved into the batch), with the kernel's slice ``i``. So:

    [N, C, D, H, W] -> TRANSPOSE -> [N, T, A*B, C] -> PAD (the tap axis's padding)
      -> per tap: STRIDED_SLICE of the tap axis -> RESHAPE [N*T', A, B, C] -> CONV_2D
      -> ADD of the taps (the fused activation on the last) -> [N*T', A', B', K]
      -> RESHAPE, TRANSPOSE back -> [N, K, D', H', W'] held as a rank-4 view (TensorValue.merged)

Exact: the same products summed, in another order. The tap axis is W when the kernel, stride and
padding along W are 1, 1, 0 (timm's lambda layers: a (r, r, 1) kernel over [B, 1, H, W, V]), then
one CONV_2D over D, H with nothing to slice or sum; else D (one CONV_2D, no slicing, when its
kernel is 1 and stride 1; ``kd`` convolutions otherwise). Cost: the 3-D convolution's
multiply-adds, plus (kt - 1) ADDs of the output and the slices' copies.

Refused: transposed or grouped 3-D convolutions, dynamic sizes, a padding of H or W not smaller
than the (dilated) kernel (CONV_2D's explicit padding), and dilation of the 2-D axes below API 29.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .common import fuse_operand
from .node_builder import CheckContext, Refused

__all__ = ["check_conv3d", "define_conv3d"]


def _tap_axis(kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int]) -> int:
    """The spatial axis (0: D, 2: W) summed over in taps; the 2-D convolutions run over the others."""
    return 2 if (kernel[2], stride[2], padding[2]) == (1, 1, 0) else 0


def check_conv3d(node: Node, ctx: CheckContext, stride: Sequence[int], padding: Sequence[int],
                 dilation: Sequence[int], transposed: bool, groups: int) -> None:
    """Refuses a 3-D convolution ``define_conv3d`` cannot emit (its weight and bias are constants,
    checked by the caller)."""
    x, weight = node.args[0], node.args[1]
    if transposed:
        raise Refused("transposed 3-D convolution (NNAPI has no 3-D convolutions; the transposed ones have no "
                      "2-D decomposition here)")
    if groups != 1:
        raise Refused(f"3-D convolution with groups={groups} (only groups=1 runs as 2-D convolutions)")
    shapes = (tensor_shape(x), tensor_shape(node), tensor_shape(weight))
    if not all(isinstance(d, int) for shape in shapes for d in shape):
        raise Refused("3-D convolution with a dynamic size")
    ctx.require(FeatureLevel.ANDROID_9, "3-D convolution (as 2-D ones: TRANSPOSE, PAD, STRIDED_SLICE)")
    kernel = tensor_shape(weight)[2:]
    tap = _tap_axis(kernel, stride, padding)
    planes = [a for a in range(3) if a != tap]
    for a in planes:
        if padding[a] >= (kernel[a] - 1) * dilation[a] + 1:
            raise Refused(f"3-D convolution padding {list(padding)} not smaller than the (dilated) kernel "
                          f"{list(kernel)} along a convolved axis")
    if any(dilation[a] != 1 for a in planes):
        ctx.require(FeatureLevel.ANDROID_10, f"dilated 3-D convolution (dilation={list(dilation)})")


def define_conv3d(node: Node, lc: LoweringContext, weight: torch.Tensor, bias: torch.Tensor | None,
                  stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int]) -> None:
    """Emits the 3-D convolution ``node`` as CONV_2D per tap (see the module docstring)."""
    g = lc.graph
    n, c, *size = lc.shape(node.args[0])
    k, _, *kernel = weight.shape
    out_size = lc.shape(node)[2:]
    tap = _tap_axis(kernel, stride, padding)
    a, b = [ax for ax in range(3) if ax != tap]
    # [N, C, T, A*B] (tap D) or [N, C, A*B, T] (tap W): both move the tap axis next to N, channels last.
    spans, perm = ((1, 1, 1, 2), (0, 2, 3, 1)) if tap == 0 else ((1, 1, 2, 1), (0, 3, 2, 1))
    moved = g.emit_tensor([n, size[tap], size[a] * size[b], c], debug_name=f"{node.name}.taps_first")
    g.emit_operation(OperationCode.TRANSPOSE, [lc.merged_operand(node.args[0], spans), g.emit_int32_vector(perm)],
                     [moved], debug_name=node.name)
    length = size[tap]
    if padding[tap]:
        length += 2 * padding[tap]
        padded = g.emit_tensor([n, length, size[a] * size[b], c], debug_name=f"{node.name}.padded")
        paddings = torch.tensor([[0, 0], [padding[tap]] * 2, [0, 0], [0, 0]], dtype=torch.int32)
        g.emit_operation(OperationCode.PAD, [moved, g.emit_constant_tensor(paddings)], [padded], debug_name=node.name)
        moved = padded
    t_out = out_size[tap]
    planes_out = [n * t_out, out_size[a], out_size[b], k]
    total = None
    for i in range(kernel[tap]):
        last = i == kernel[tap] - 1
        taps = _tap_slices(lc, node, moved, i * dilation[tap], stride[tap], t_out, length, [n, size[a], size[b], c])
        w_tap = weight.select(2 + tap, i).permute(0, 2, 3, 1)  # [K, C, A, B] -> OHWI
        b_tap = bias if bias is not None and i == 0 else torch.zeros(k)
        conv = g.emit_tensor(planes_out, debug_name=f"{node.name}.tap{i}")
        fuse = fuse_operand(lc, node) if last and total is None else g.emit_int32(0)
        g.emit_operation(OperationCode.CONV_2D, [
            taps, g.emit_constant_tensor(w_tap.contiguous()), g.emit_constant_tensor(b_tap.to(torch.float32)),
            g.emit_int32(padding[b]), g.emit_int32(padding[b]), g.emit_int32(padding[a]), g.emit_int32(padding[a]),
            g.emit_int32(stride[b]), g.emit_int32(stride[a]), fuse,
            *_dilation_operands(lc, dilation[a], dilation[b])], [conv], debug_name=node.name)
        if total is not None:
            summed = g.emit_tensor(planes_out, debug_name=f"{node.name}.sum{i}")
            g.emit_operation(OperationCode.ADD, [total, conv, fuse_operand(lc, node) if last else g.emit_int32(0)],
                             [summed], debug_name=node.name)
            conv = summed
        total = conv
    _emit_result(lc, node, total, tap, spans)


def _tap_slices(lc: LoweringContext, node: Node, moved: int, start: int, step: int, count: int, length: int,
                plane: list[int]) -> int:
    """The input positions ``start + t * step`` (t < count) of the tap axis of ``moved`` ([N, L, A*B, C]),
    as a batch of 2-D images [N*count, A, B, C]."""
    g = lc.graph
    n, a, b, c = plane
    source = moved
    if not (start == 0 and step == 1 and count == length):
        source = g.emit_tensor([n, count, a * b, c], debug_name=f"{node.name}.slice{start}")
        end = start + (count - 1) * step + 1
        g.emit_operation(OperationCode.STRIDED_SLICE, [
            moved, g.emit_int32_vector([0, start, 0, 0]), g.emit_int32_vector([n, end, a * b, c]),
            g.emit_int32_vector([1, step, 1, 1]), g.emit_int32(0), g.emit_int32(0), g.emit_int32(0)],
            [source], debug_name=node.name)
    images = g.emit_tensor([n * count, a, b, c], debug_name=f"{node.name}.images{start}")
    g.emit_operation(OperationCode.RESHAPE, [source, g.emit_int32_vector([n * count, a, b, c])], [images],
                     debug_name=node.name)
    return images


def _dilation_operands(lc: LoweringContext, dilation_a: int, dilation_b: int) -> list[int]:
    """CONV_2D's optional layout and dilation operands (API 29), when dilated."""
    g = lc.graph
    if (dilation_a, dilation_b) == (1, 1):
        return []
    g.require_feature_level(FeatureLevel.ANDROID_10)
    return [g.emit_bool(False), g.emit_int32(dilation_b), g.emit_int32(dilation_a)]


def _emit_result(lc: LoweringContext, node: Node, total: int, tap: int, spans: tuple[int, ...]) -> None:
    """[N*T', A', B', K] back to PyTorch's [N, K, D', H', W'], held as its view ``spans``."""
    g = lc.graph
    n, k, *out_size = lc.shape(node)
    a, b = [ax for ax in range(3) if ax != tap]
    grouped = [n, out_size[tap], out_size[a] * out_size[b], k]
    regrouped = g.emit_tensor(grouped, debug_name=f"{node.name}.regrouped")
    g.emit_operation(OperationCode.RESHAPE, [total, g.emit_int32_vector(grouped)], [regrouped], debug_name=node.name)
    out = lc.emit_merged_output(node, spans)
    # [N, T', A'B', K] -> [N, K, T', A'B'] (tap D) or [N, K, A'B', T'] (tap W)
    perm = (0, 3, 1, 2) if tap == 0 else (0, 3, 2, 1)
    g.emit_operation(OperationCode.TRANSPOSE, [regrouped, g.emit_int32_vector(perm)], [out], debug_name=node.name)
