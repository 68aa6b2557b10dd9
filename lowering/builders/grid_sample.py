"""aten.grid_sampler_2d (``F.grid_sample``, bilinear, zeros or border padding) -> the four
neighbours' GATHERs and weights (API 29).

NNAPI has no grid sampling. For static sizes it is computed indices: each output point's source
coordinate unnormalized from the grid as PyTorch does (``((g + 1) * size - 1) / 2``, or
``(g + 1) / 2 * (size - 1)`` with ``align_corners``; clipped to the image for border padding),
its FLOOR and the next integer in each axis, the bilinear weights ``x1 - x`` and ``x - x0``, and
for zeros padding a 0 / 1 factor per neighbour coordinate (``min(max(x0 + 1, 0), 1) *
min(max(W - x0, 0), 1)``: 1 exactly inside the image) folded into the weights. The neighbours'
flat positions ``(n * H + y) * W + x`` (coordinates clipped into the image, exact in float32 below
2^24) are CAST to int32 and GATHERed from the input held NHWC as [N * H * W, C] rows; the four rows
times their weights are summed in PyTorch's order (north-west, north-east, south-west,
south-east). The result is [N, Ho, Wo, C]: NHWC for the output [N, C, Ho, Wo].

Deformable attention (D-FINE, Deformable DETR and their kin) samples its values this way.
Nearest and bicubic modes and reflection padding stay on the CPU.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_dtype, tensor_shape
from ..shape_program import is_static
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import stays_float
from .registry import register_builder

aten = torch.ops.aten

BILINEAR = 0
ZEROS, BORDER = 0, 1
NHWC = (0, 2, 3, 1)
# Flat positions are computed in float32 before the CAST: exact below 2^24.
MAX_POSITIONS = 1 << 24


class _Emitter:
    """Small float32 operations on [N, Ho, Wo, 1] operands of one node."""

    def __init__(self, lc: LoweringContext, node: Node, shape: list[int]) -> None:
        self.g, self.name, self.shape = lc.graph, node.name, shape

    def scalar(self, value: float) -> int:
        return self.g.emit_constant_tensor(torch.tensor([value], dtype=torch.float32))

    def op(self, code: OperationCode, inputs: list[int], fused: bool = True, shape: list[int] | None = None,
           dtype: torch.dtype = torch.float32) -> int:
        out = self.g.emit_tensor(shape or self.shape, dtype, debug_name=f"{self.name}.{code.name.lower()}")
        self.g.emit_operation(code, inputs + ([self.g.emit_int32(0)] if fused else []), [out], debug_name=self.name)
        return out

    def add(self, a: int, b: int) -> int:
        return self.op(OperationCode.ADD, [a, b])

    def sub(self, a: int, b: int) -> int:
        return self.op(OperationCode.SUB, [a, b])

    def mul(self, a: int, b: int) -> int:
        return self.op(OperationCode.MUL, [a, b])

    def clamp(self, x: int, lo: float, hi: float) -> int:
        low = self.op(OperationCode.MAXIMUM, [x, self.scalar(lo)], fused=False)
        return self.op(OperationCode.MINIMUM, [low, self.scalar(hi)], fused=False)


def _source_coordinate(e: _Emitter, coord: int, size: int, align_corners: bool, padding: int) -> int:
    """PyTorch's grid_sampler_compute_source_index in float32 operations."""
    one = e.scalar(1.0)
    if align_corners:
        x = e.mul(e.mul(e.add(coord, one), e.scalar(0.5)), e.scalar(float(size - 1)))
    else:
        x = e.mul(e.sub(e.mul(e.add(coord, one), e.scalar(float(size))), one), e.scalar(0.5))
    return e.clamp(x, 0.0, float(size - 1)) if padding == BORDER else x


def _axis(e: _Emitter, x: int, size: int, padding: int) -> tuple[list[int], list[int]]:
    """([low, high] neighbour coordinates clipped into the image, [their weights]) along one axis."""
    low = e.op(OperationCode.FLOOR, [x], fused=False)
    high = e.add(low, e.scalar(1.0))
    weights = [e.sub(high, x), e.sub(x, low)]
    if padding == ZEROS:   # a neighbour outside the image weighs 0
        for k, c in enumerate((low, high)):
            inside = e.mul(e.clamp(e.add(c, e.scalar(1.0)), 0.0, 1.0), e.clamp(e.sub(e.scalar(float(size)), c), 0.0, 1.0))
            weights[k] = e.mul(weights[k], inside)
    coords = [e.clamp(c, 0.0, float(size - 1)) for c in (low, high)]
    return coords, weights


@register_builder
class GridSampler2dBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.grid_sampler_2d.default, FeatureLevel.ANDROID_10,
                  "GATHER of the four neighbours (FLOOR, CAST, MAXIMUM / MINIMUM, MUL, ADD, SUB)",
                  "bilinear, zeros or border padding, float32 input [N, C, H, W] and grid [N, Ho, Wo, 2] of "
                  "static sizes, N * H * W < 2^24",
                  quantized=stays_float("the sampled values are weighted sums of float32 weights")),
    )
    layout = LayoutClass.NHWC

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, grid, mode, padding = node.args[:4]
        if mode != BILINEAR:
            raise Refused(f"grid_sample mode {['bilinear', 'nearest', 'bicubic'][mode]} (bilinear only)")
        if padding not in (ZEROS, BORDER):
            raise Refused("grid_sample with reflection padding (zeros and border only)")
        for t in (x, grid, node):
            if tensor_dtype(t) != torch.float32:
                raise Refused(f"grid_sample of {tensor_dtype(t)} (float32 only)")
            shape = tensor_shape(t)
            if len(shape) != 4 or not all(is_static(d) for d in shape):
                raise Refused(f"grid_sample of shape {list(shape)} (rank 4, static sizes)")
        n, _, h, w = (int(d) for d in tensor_shape(x))
        if n * h * w >= MAX_POSITIONS:
            raise Refused(f"grid_sample over {n * h * w} positions (the flat positions are exact below 2^24)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, grid, _, padding, align_corners = node.args[:5]
        n, c, h, w = (int(d) for d in lc.shape(x))
        _, ho, wo, _ = (int(d) for d in lc.shape(grid))
        e = _Emitter(lc, node, [n, ho, wo, 1])
        g = lc.graph
        gx, gy = (g.emit_tensor([n, ho, wo, 1], debug_name=f"{node.name}.grid_{a}") for a in "xy")
        g.emit_operation(OperationCode.SPLIT, [lc.operand(grid, identity(4)), g.emit_int32(3), g.emit_int32(2)],
                         [gx, gy], debug_name=node.name)
        xs, wxs = _axis(e, _source_coordinate(e, gx, w, bool(align_corners), padding), w, padding)
        ys, wys = _axis(e, _source_coordinate(e, gy, h, bool(align_corners), padding), h, padding)
        batch = g.emit_constant_tensor(torch.arange(n, dtype=torch.float32).mul(h * w).view(n, 1, 1, 1))
        rows = g.emit_tensor([n * h * w, c], debug_name=f"{node.name}.rows")
        g.emit_operation(OperationCode.RESHAPE, [lc.operand(x, NHWC), g.emit_int32_vector([n * h * w, c])], [rows],
                         debug_name=node.name)
        total = None
        for yi, wy in zip(ys, wys):            # north row, then south; west, then east in each
            row_start = e.add(e.mul(yi, e.scalar(float(w))), batch)
            for xi, wx in zip(xs, wxs):
                flat = e.op(OperationCode.RESHAPE, [e.add(row_start, xi), g.emit_int32_vector([n, ho, wo])],
                            fused=False, shape=[n, ho, wo])
                index = e.op(OperationCode.CAST, [flat], fused=False, shape=[n, ho, wo], dtype=torch.int32)
                values = e.op(OperationCode.GATHER, [rows, g.emit_int32(0), index], fused=False, shape=[n, ho, wo, c])
                term = e.op(OperationCode.MUL, [values, e.mul(wx, wy)], shape=[n, ho, wo, c])
                if total is None:
                    total = term
                    continue
                last = yi is ys[-1] and xi is xs[-1]
                out = lc.emit_output(node, NHWC) if last else g.emit_tensor([n, ho, wo, c], debug_name=node.name)
                g.emit_operation(OperationCode.ADD, [total, term, g.emit_int32(0)], [out], debug_name=node.name)
                total = out
