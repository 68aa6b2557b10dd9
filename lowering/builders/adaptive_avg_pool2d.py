"""aten._adaptive_avg_pool2d -> MEAN over H, W (1x1 output), AVERAGE_POOL_2D (windows of one size
at one stride on each axis), else constant pooling matrices applied by DEPTHWISE_CONV_2D.

PyTorch's output index i on an axis of size n pooled to o averages rows [floor(i n / o),
ceil((i + 1) n / o)). Those windows are one AVERAGE_POOL_2D when they all have one size k and
start every s rows (s, k constant): always when o divides n (k = s = n / o), and in many other
cases (8 -> 7: k 2, s 1; 64 -> 7: k 10, s 9). Otherwise (16 -> 7: sizes 3, 3, 3, 4, 3, 3, 3)
no single window shape fits, and the axis is a constant [o, n] matrix P (row i: 1 / size over its
window): out = P_h . X . P_w^T per channel, applied as bilinear_matrices.py applies resize
matrices (one DEPTHWISE_CONV_2D over the whole axis per product, the channels moved back by
TRANSPOSE from API 28, a one-hot DEPTHWISE_CONV_2D at API 27). An axis that is uniform while
the other is not is pooled first (AVERAGE_POOL_2D with a 1-wide window on the other axis), so
only the uneven axis takes a matrix product.

Why this form: n x o multiply-adds per output row of the matrix axis, against k x (n - k + 1)
for one stride-1 AVERAGE_POOL_2D per window size then a GATHER of the rows (API 29, and an op per
size), or one AVERAGE_POOL_2D per output index + CONCATENATION (o operations per axis). With
CSATv2's 16 -> 7 and 32 -> 7 the matrices are 112 and 224 floats per channel.

Exactness: PyTorch divides each window's sum by its size; the matrix form adds x / size_h, then
those / size_w (the separable product of the same rectangle): equal within float32 rounding (a
few 1e-7 relative). 8 bits: AVERAGE_POOL_2D rounds each window's mean once as convert_pt2e's
float mean does (docs/nnapi_facts.md §9.8), but a matrix product would requantize per axis with
1 / size rounded to 8 bits, so uneven windows are left float by the quantizer (the float form
runs in NNAPI between DEQUANTIZE and QUANTIZE).
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import QuantParams, tensor_shape
from ..shape_program import is_static
from .bilinear_matrices import emit_matrix_resize, matrix_resize_refusal
from .common import physical_axis
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .pool_utils import check_pool_input, emit_pool, nhwc_input
from .registry import register_builder

aten = torch.ops.aten


def adaptive_windows(size: int, out: int) -> list[tuple[int, int]]:
    """PyTorch's [start, end) window of each output index along an axis of ``size`` pooled to ``out``."""
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def uniform_window(size: int, out: int) -> tuple[int, int] | None:
    """(kernel, stride) when the axis's windows all have one size and start at a constant step
    (one AVERAGE_POOL_2D takes them: (out - 1) * stride + kernel = size), else None."""
    windows = adaptive_windows(size, out)
    kernel = windows[0][1] - windows[0][0]
    stride = windows[1][0] - windows[0][0] if out > 1 else 1
    if stride < 1 or any((start, end) != (i * stride, i * stride + kernel) for i, (start, end) in enumerate(windows)):
        return None
    return kernel, stride


def pooling_matrix(size: int, out: int) -> torch.Tensor:
    """The [out, size] float32 matrix P with ``pooled = P @ x`` along one axis (row i: 1 / window
    size over PyTorch's window i)."""
    matrix = torch.zeros(out, size, dtype=torch.float32)
    for i, (start, end) in enumerate(adaptive_windows(size, out)):
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


def _uneven_refusal(in_hw: Sequence[int], out_hw: Sequence[int]) -> str | None:
    """Why the windows are not one AVERAGE_POOL_2D (for the 8-bit form), or None."""
    if all(uniform_window(n, o) for n, o in zip(in_hw, out_hw)):
        return None
    return (f"quantized adaptive_avg_pool2d from {in_hw[0]}x{in_hw[1]} to {out_hw[0]}x{out_hw[1]}: its windows differ "
            "in size or step, and their matrix product would requantize per axis (it runs in float)")


def _static_sizes(x: Node, node: Node) -> tuple[list[int], list[int]] | None:
    """The input's and output's static [H, W], or None when a size is dynamic."""
    in_hw, out_hw = tensor_shape(x)[2:], tensor_shape(node)[2:]
    if not all(is_static(d) for d in (*in_hw, *out_hw)):
        return None
    return [int(d) for d in in_hw], [int(d) for d in out_hw]


def _quantizer_pools_evenly(node: Node, feature_level: int) -> bool:
    """NnapiQuantizer annotates adaptive_avg_pool2d (args as torch.export gives them) when its
    windows are one AVERAGE_POOL_2D, or the output is 1x1 (MEAN / one window)."""
    val = node.args[0].meta.get("val") if isinstance(node.args[0], Node) else None
    if not isinstance(val, torch.Tensor) or val.dim() != 4:
        return True
    size = node.args[1] if len(node.args) > 1 else node.kwargs.get("output_size")
    out = [size, size] if isinstance(size, int) else list(size)
    in_hw = list(val.shape[2:])
    out = [d if d is not None else n for d, n in zip(out, in_hw)]
    if out == [1, 1] or not all(isinstance(d, int) for d in (*in_hw, *out)):
        return True
    return _uneven_refusal(in_hw, out) is None


@register_builder
class AdaptiveAvgPool2dBuilder(NodeBuilder):
    ops = (
        OpSupport(aten._adaptive_avg_pool2d.default, FeatureLevel.ANDROID_8_1,
                  "MEAN (1x1, API 28) / AVERAGE_POOL_2D (even windows) / DEPTHWISE_CONV_2D pooling matrices + "
                  "TRANSPOSE (API 28) or one-hot DEPTHWISE_CONV_2D (uneven windows)",
                  "float32, 4-D; output 1x1 or static sizes; 8 bits: windows of one size and step",
                  quantized=same_parameters(aten.adaptive_avg_pool2d.default, check=_quantizer_pools_evenly)),
    )
    layout = LayoutClass.NHWC

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_pool_input(node, x, "adaptive_avg_pool2d")
        _, channels, h, w = tensor_shape(x)
        if tuple(tensor_shape(node)[2:]) == (1, 1):
            if not (is_static(h) and is_static(w)):
                ctx.require(FeatureLevel.ANDROID_9, "adaptive_avg_pool2d to 1x1 on a dynamic input size (MEAN)")
            return
        sizes = _static_sizes(x, node)
        if sizes is None:
            raise Refused("dynamic dim in adaptive_avg_pool2d input (only a 1x1 output allows dynamic sizes: "
                          "the windows depend on the sizes)")
        in_hw, out_hw = sizes
        if all(uniform_window(n, o) for n, o in zip(in_hw, out_hw)):
            return
        if not is_static(channels):
            raise Refused(f"adaptive_avg_pool2d from {in_hw[0]}x{in_hw[1]} to {out_hw[0]}x{out_hw[1]} with a dynamic "
                          "channel count (uneven windows are constant pooling matrices per channel)")
        pooled_hw = [o if uniform_window(n, o) else n for n, o in zip(in_hw, out_hw)]
        reason = matrix_resize_refusal(pooled_hw, out_hw, int(channels), pooled_hw[0] == out_hw[0], ctx.feature_level)
        if reason:
            raise Refused(reason.replace("bilinear resize", "adaptive_avg_pool2d (uneven windows)")
                          .replace(" below API 30", ""))

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        sizes = _static_sizes(node.args[0], node)
        if sizes is not None and sizes[1] != [1, 1]:
            reason = _uneven_refusal(*sizes)
            if reason:
                raise Refused(reason)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        g = lc.graph
        _, _, h, w = lc.shape(x)
        oh, ow = lc.shape(node)[2:]
        # Quantized, MEAN truncates the sum of codes (docs/nnapi_facts.md §9.10) where AVERAGE_POOL_2D rounds it
        # (docs/nnapi_facts.md §9.8) as convert_pt2e's float mean does: pool when the window is static.
        pooled = lc.quant_params(node) is not None and is_static(h) and is_static(w)
        if (oh, ow) == (1, 1) and g.feature_level >= FeatureLevel.ANDROID_9 and not pooled:
            # MEAN works in any layout: reduce H and W where they sit, keep the input's order.
            order = lc.order(x)
            axes = [physical_axis(order, 2), physical_axis(order, 3)]
            out = lc.emit_output(node, order)
            g.emit_operation(OperationCode.MEAN, [lc.operand(x, order), g.emit_int32_vector(axes), g.emit_int32(1)],
                             [out], debug_name=node.name)
            return
        if (oh, ow) == (1, 1):
            windows = [(h, 1), (w, 1)]       # one window: its stride never applies
        else:
            windows = [uniform_window(int(n), int(o)) for n, o in ((h, oh), (w, ow))]
        out = lc.emit_output(node, NHWC)
        if all(windows):
            self._pool(lc, nhwc_input(lc, x), out, windows, node.name)
            return
        self._uneven(lc, node, out, windows)

    @staticmethod
    def _pool(lc: LoweringContext, source: int, out: int, windows: Sequence[tuple[int, int]], name: str) -> None:
        """AVERAGE_POOL_2D of NHWC ``source`` into ``out`` with (kernel, stride) per axis, no padding."""
        kernel, stride = [k for k, _ in windows], [s for _, s in windows]
        emit_pool(lc, OperationCode.AVERAGE_POOL_2D, source, out, kernel, stride, [0, 0], [0, 0],
                  lc.graph.emit_int32(int(FuseCode.NONE)), name)

    def _uneven(self, lc: LoweringContext, node: Node, out: int,
                windows: Sequence[tuple[int, int] | None]) -> None:
        """Static float32 sizes, an axis with uneven windows: the even axis (if any, and if its size
        changes) pooled first, then the pooling matrices (module docstring)."""
        g = lc.graph
        x = node.args[0]
        n, channels, h, w = lc.shape(x)
        in_hw, out_hw = [int(h), int(w)], [int(d) for d in lc.shape(node)[2:]]
        source = nhwc_input(lc, x)
        pooled_hw = list(in_hw)
        for axis, window in enumerate(windows):
            if window is not None and in_hw[axis] != out_hw[axis]:
                pooled_hw[axis] = out_hw[axis]
                one_wide = [window if a == axis else (1, 1) for a in range(2)]
                pooled = g.emit_like(source, [n, *pooled_hw, channels], debug_name=f"{node.name} (even axis)")
                self._pool(lc, source, pooled, one_wide, f"{node.name} (even axis)")
                source = pooled
        matrices = tuple(pooling_matrix(p, o) for p, o in zip(pooled_hw, out_hw))
        emit_matrix_resize(lc, source, out, (n, *pooled_hw, int(channels)), matrices, node.name)


__all__ = ["adaptive_windows", "pooling_matrix", "uniform_window"]
