"""aten.upsample_bicubic2d.vec -> one FULLY_CONNECTED per resized axis, with constant weights.

NNAPI has no bicubic RESIZE. For static sizes bicubic resampling is linear and separable:
out = A_h . X . A_w^T, where A_w is a constant [W_out, W_in] matrix holding PyTorch's four
cubic-convolution weights (A = -0.75) of each output column at its source columns, with the
taps beyond the border clamped to it (their weights summed). FULLY_CONNECTED contracts the
last physical axis, so the value is TRANSPOSEd (RESHAPE where only size-1 dims move) to put
the axis being resized last; an axis whose size does not change is skipped. The result is
produced in PyTorch's order (NCHW).

Kept whole through to_edge (``keep=True``) where this builder takes the node; where it refuses
it (dynamic height or width, not float32, a matrix too large), torch decomposes it into index
gathers that run on the CPU as before, and the partitioner records the refusal.
In 8-bit models it stays float: the dequantized input is resampled in float32 (the weights,
negative at the outer taps, would need a requantizing matrix product per axis).
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import torch
from torch.fx import Node

from ..graph import identity, same_memory_order, transpose_perm
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import Dim, is_static
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .pool_utils import check_pool_input
from .quantization import stays_float
from .registry import register_builder

aten = torch.ops.aten

# PyTorch's cubic convolution coefficient (aten/src/ATen/native/UpSample.h, as in TensorFlow).
CUBIC_A = -0.75
# Largest interpolation matrix (out x in elements, float32) emitted as a constant: 16 Mi
# elements is 64 MiB, beyond which a dense matrix product is no longer a sensible resize.
MAX_MATRIX_ELEMENTS = 2**24
HEIGHT, WIDTH = 2, 3


def _align_corners(node: Node) -> bool:
    return bool(node.args[2] if len(node.args) > 2 else node.kwargs.get("align_corners", False))


def _scale_factors(node: Node) -> Optional[Sequence[float]]:
    scales = node.args[3] if len(node.args) > 3 else node.kwargs.get("scale_factors")
    return list(scales) if scales else None


def _cubic_near(x: torch.Tensor) -> torch.Tensor:
    """The cubic convolution kernel for |x| <= 1."""
    return ((CUBIC_A + 2) * x - (CUBIC_A + 3)) * x * x + 1


def _cubic_far(x: torch.Tensor) -> torch.Tensor:
    """The cubic convolution kernel for 1 < |x| < 2."""
    return ((CUBIC_A * x - 5 * CUBIC_A) * x + 8 * CUBIC_A) * x - 4 * CUBIC_A


def bicubic_matrix(in_size: int, out_size: int, align_corners: bool, scale: Optional[float] = None) -> torch.Tensor:
    """The [out_size, in_size] float32 matrix M with ``out = M @ in`` along one axis, as PyTorch's
    bicubic upsampling computes it (its scale, source index and weights in float32).

    ``scale``: the scale_factor passed to interpolate for this axis (used without align_corners,
    where PyTorch maps output coordinates with 1 / scale_factor rather than in / out).
    """
    f32 = torch.float32
    if align_corners:
        ratio = (torch.tensor(in_size - 1, dtype=f32) / (out_size - 1) if out_size > 1
                 else torch.tensor(0.0, dtype=f32))
        source = ratio * torch.arange(out_size, dtype=f32)
    else:
        ratio = (torch.tensor(1.0 / scale, dtype=f32) if scale is not None and scale > 0
                 else torch.tensor(in_size, dtype=f32) / out_size)
        source = ratio * (torch.arange(out_size, dtype=f32) + 0.5) - 0.5
    # PyTorch's CPU kernel guards the index against float error at the far border (and t to [0, 1]).
    first = torch.clamp(torch.floor(source), max=in_size - 1)
    t = torch.clamp(source - first, 0.0, 1.0)
    weights = torch.stack([_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t)], dim=1)
    taps = first.to(torch.int64).unsqueeze(1) + torch.arange(-1, 3).unsqueeze(0)
    matrix = torch.zeros(out_size, in_size, dtype=f32)
    # A tap outside the input reads the border sample: its weight adds to the border's.
    matrix.scatter_add_(1, taps.clamp(0, in_size - 1), weights)
    return matrix


def _reordered(lc: LoweringContext, operand: int, logical: Sequence[Dim], src: Sequence[int],
               dst: Sequence[int], name: str, out: Optional[int] = None) -> int:
    """``operand`` (logical shape ``logical`` in dim order ``src``) in dim order ``dst`` (into ``out``
    when given): a TRANSPOSE, a RESHAPE where only size-1 dims move, or itself."""
    if tuple(src) == tuple(dst):
        return operand
    g = lc.graph
    shape = [logical[d] for d in dst]
    if out is None:
        out = g.emit_like(operand, shape, debug_name=f"{name} (order {list(dst)})")
    if same_memory_order(logical, src, dst):
        g.emit_operation(OperationCode.RESHAPE, [operand, g.emit_int32_vector(shape)], [out], debug_name=name)
    else:
        g.emit_operation(OperationCode.TRANSPOSE, [operand, g.emit_int32_vector(transpose_perm(src, dst))], [out],
                         debug_name=name)
    return out


def _resize_last_axis(lc: LoweringContext, operand: int, physical: Sequence[Dim], matrix: torch.Tensor,
                      name: str, out: Optional[int] = None) -> int:
    """FULLY_CONNECTED of ``operand``'s last axis with ``matrix`` ([out, in]), RESHAPEd back to
    ``physical`` with that axis resized (into ``out`` when given)."""
    g = lc.graph
    out_size = int(matrix.shape[0])
    rows = math.prod(physical[:-1])
    flat = g.emit_like(operand, [rows, out_size], debug_name=f"{name} (2-D)")
    weights = g.emit_constant_tensor(matrix, debug_name=f"{name} (weights)")
    bias = g.emit_constant_tensor(torch.zeros(out_size), debug_name=f"{name} (zero bias)")
    g.emit_operation(OperationCode.FULLY_CONNECTED, [operand, weights, bias, g.emit_int32(int(FuseCode.NONE))],
                     [flat], debug_name=name)
    shape = [*physical[:-1], out_size]
    if out is None:
        out = g.emit_like(operand, shape, debug_name=f"{name} (resized)")
    g.emit_operation(OperationCode.RESHAPE, [flat, g.emit_int32_vector(shape)], [out], debug_name=name)
    return out


def _plan(order: Sequence[int], axes: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    """(axis, dim order it is resized in) per resized axis, each with the axis last: the axis
    already last in ``order`` first, and with both to do the order (N, C, W, H), so that one
    TRANSPOSE to NCHW brings W last for the second."""
    steps: list[tuple[int, tuple[int, ...]]] = []
    todo = list(axes)
    current = tuple(order)
    while todo:
        axis = current[-1] if current[-1] in todo else todo[0]
        todo.remove(axis)
        if current[-1] != axis:
            current = (0, 1, *todo, axis) if todo else (0, 1, *[d for d in (HEIGHT, WIDTH) if d != axis], axis)
        steps.append((axis, current))
    return steps


@register_builder
class UpsampleBicubic2dBuilder(NodeBuilder):
    # TRANSPOSE needs API 28; FULLY_CONNECTED and RESHAPE are API 27 operations.
    ops = (
        OpSupport(aten.upsample_bicubic2d.vec, FeatureLevel.ANDROID_9,
                  "FULLY_CONNECTED per resized axis (constant cubic weights) + TRANSPOSE / RESHAPE",
                  "float32, 4-D; static height and width (input and output); "
                  "each axis' out x in weight matrix at most 2^24 elements",
                  keep=True,
                  quantized=stays_float("bicubic's weights would need a requantizing matrix product per axis; "
                                        "resampled in float32")),
    )
    layout = LayoutClass.PYTORCH

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_pool_input(node, x, "upsample_bicubic2d")
        in_hw, out_hw = tensor_shape(x)[2:], tensor_shape(node)[2:]
        for axis, size, out in zip(("height", "width"), in_hw, out_hw):
            if not (is_static(size) and is_static(out)):
                raise Refused(f"upsample_bicubic2d with a dynamic {axis} ({size} -> {out}): its interpolation "
                              "weights are constants computed from static sizes")
            resampled = int(size) != int(out) or (_scale_factors(node) and not _align_corners(node))
            if resampled and int(size) * int(out) > MAX_MATRIX_ELEMENTS:
                raise Refused(f"upsample_bicubic2d of {axis} {size} -> {out}: its {out}x{size} weight matrix "
                              "exceeds 2^24 elements (64 MiB of constants)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        logical_in, logical_out = list(lc.shape(node.args[0])), list(lc.shape(node))
        scales = _scale_factors(node)
        aligned = _align_corners(node)
        emit_axis_matrices(lc, node, {axis: bicubic_matrix(int(logical_in[axis]), int(logical_out[axis]), aligned,
                                                           scales[axis - HEIGHT] if scales and not aligned else None)
                                      for axis in (HEIGHT, WIDTH)})


def emit_axis_matrices(lc: LoweringContext, node: Node, matrices: dict[int, torch.Tensor]) -> None:
    """``node``'s 4-D input resized by a constant [out, in] matrix per axis (HEIGHT, WIDTH) into
    ``node``'s output, in PyTorch's order (module docstring's form; API 28). An axis whose matrix
    is the identity is skipped (same size and, with a scale_factor such as 1.1 on 5 pixels, only
    if the mapping is the identity too)."""
    lc.graph.require_feature_level(FeatureLevel.ANDROID_9)
    x = node.args[0]
    logical_in, logical_out = list(lc.shape(x)), list(lc.shape(node))
    axes = [axis for axis, m in matrices.items()
            if m.shape[0] != m.shape[1] or not torch.equal(m, torch.eye(m.shape[0]))]
    nchw = identity(4)
    if not axes:  # resampled at the input's own sample positions: a copy
        out = lc.emit_output(node, nchw)
        src = lc.operand(x, nchw)
        lc.graph.emit_operation(OperationCode.RESHAPE, [src, lc.graph.emit_int32_vector(logical_out)], [out],
                                debug_name=node.name)
        return
    produced = lc.order(x)
    steps = _plan(produced if len(produced) == 4 else nchw, axes)
    first_order = steps[0][1]
    operand, order, logical = lc.operand(x, first_order), first_order, logical_in
    for i, (axis, step_order) in enumerate(steps):
        name = f"{node.name} ({'height' if axis == HEIGHT else 'width'})"
        operand = _reordered(lc, operand, logical, order, step_order, name)
        order = step_order
        logical = [*logical[:axis], logical_out[axis], *logical[axis + 1:]]
        last = i == len(steps) - 1
        out = lc.emit_output(node, order) if last and tuple(order) == nchw else None
        operand = _resize_last_axis(lc, operand, [logical[d] for d in order], matrices[axis], name, out)
    if tuple(order) != nchw:
        _reordered(lc, operand, logical, order, nchw, f"{node.name} (to NCHW)", lc.emit_output(node, nchw))
