"""3-D pooling as two 2-D pools (shared by max_pool3d, avg_pool3d, adaptive_avg_pool3d).

NNAPI has only 2-D pools and rank <= 4 operands. A 3-D max, or a 3-D average
whose divisor is the product of per-axis window sizes (every form PyTorch
computes without divisor_override: the in-bounds part of a box window is a
box), is separable: pool H, W with (kh, kw) on the [N*C*D, H, W, 1] view of the
input (one-channel NHWC images), then D with (kd, 1) on the [N*C, D, H'*W', 1]
view of that result. Both views keep PyTorch's byte order, so no TRANSPOSE is
needed at any feature level; the partition's 5-D inputs and outputs are bound
as such views by the runtime (blob Argument.merged_dims).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import Dim
from .common import check_float_tensors
from .node_builder import CheckContext, Refused
from .pool_utils import check_tail, emit_pool, tail_padding

# The views of a rank-5 [N, C, D, H, W] value the two steps read and write.
IMAGES_VIEW = (3, 1, 1, 0)  # [N*C*D, H, W, 1]: pool H, W
DEPTH_VIEW = (2, 1, 2, 0)  # [N*C, D, H*W, 1]: pool D
AXES = ("depth", "height", "width")


def triple(value: Any, default: Sequence[int]) -> list[int]:
    """A 3-D pooling size argument as [d, h, w] (one int for all three, or [] for the default)."""
    if value is None:
        return list(default)
    if isinstance(value, int):
        return [value] * 3
    value = [int(v) for v in value]
    if not value:
        return list(default)
    return value * 3 if len(value) == 1 else value


@dataclass(frozen=True)
class Pool3d:
    """A 3-D pooling window, per axis [d, h, w]; ``counted_padding``: the average counts
    the zero padding in its divisor (PyTorch's count_include_pad=True), so it is a PAD."""

    kernel: list[int]
    stride: list[int]
    padding: list[int]
    ceil_mode: bool
    counted_padding: bool = False


def check_pool3d_input(node: Node, x: Node, what: str) -> None:
    """Refuses non-float32 tensors and anything but a batched 5-D input."""
    check_float_tensors(node, x)
    rank = len(tensor_shape(x))
    if rank != 5:
        raise Refused(f"{what} on a rank-{rank} input (lowered for a batched 5-D [N, C, D, H, W] input)")


def check_pool3d(pool: Pool3d, in_shape: Sequence[Dim], out_shape: Sequence[Dim], what: str,
                 ctx: CheckContext) -> None:
    """The checks both 2-D steps need: padding < kernel (NNAPI's rule, also for the
    ceil_mode tail) and PAD (API 28) for counted padding."""
    if any(p >= k for p, k in zip(pool.padding, pool.kernel)):
        raise Refused(f"{what} padding {pool.padding} not smaller than the kernel {pool.kernel}")
    if pool.counted_padding:
        ctx.require(FeatureLevel.ANDROID_9, f"{what} with count_include_pad=True and padding > 0 (explicit PAD)")
    for i, axis in enumerate(AXES):
        size, pad = in_shape[2 + i], pool.padding[i]
        if pool.counted_padding:
            size, pad = size + 2 * pad, 0
        check_tail(size, out_shape[2 + i], pool.kernel[i], pool.stride[i], pad, pad, pool.ceil_mode, what, axis)


def _is_identity(pool: Pool3d, axes: Sequence[int]) -> bool:
    return all(pool.kernel[i] == 1 and pool.stride[i] == 1 and pool.padding[i] == 0 for i in axes)


def _pad(lc: LoweringContext, operand: int, shape: list[Dim], pads: Sequence[int], name: str) -> tuple[int, list[Dim]]:
    """PAD with zeros the H and W of the NHWC operand ``operand`` of ``shape`` by ``pads`` on both sides."""
    g = lc.graph
    padded_shape = [shape[0], shape[1] + 2 * pads[0], shape[2] + 2 * pads[1], shape[3]]
    padded = g.emit_like(operand, padded_shape, debug_name=f"{name}.padded")
    paddings = torch.tensor([[0, 0], [pads[0]] * 2, [pads[1]] * 2, [0, 0]], dtype=torch.int32)
    g.emit_operation(OperationCode.PAD, [operand, g.emit_constant_tensor(paddings)], [padded],
                     debug_name=f"{name} (count_include_pad)")
    return padded, padded_shape


def _pool_step(lc: LoweringContext, code: OperationCode, operand: int, shape: list[Dim], out: int,
               out_hw: Sequence[Dim], pool: Pool3d, axes: Sequence[int], name: str) -> None:
    """One 2-D pool of the NHWC view ``operand`` (``shape``) over the pool axes ``axes``
    (two of [d, h, w], or one and a unit window), writing ``out``."""
    kernel = [pool.kernel[i] if i is not None else 1 for i in axes]
    stride = [pool.stride[i] if i is not None else 1 for i in axes]
    head = [pool.padding[i] if i is not None else 0 for i in axes]
    if pool.counted_padding and any(head):
        operand, shape = _pad(lc, operand, shape, head, name)
        head = [0, 0]
    tails = [tail_padding(shape[1 + j], out_hw[j], kernel[j], stride[j], head[j], head[j], pool.ceil_mode)
             for j in range(2)]
    emit_pool(lc, code, operand, out, kernel, stride, head, tails, lc.graph.emit_int32(int(FuseCode.NONE)), name)


def emit_pool3d(lc: LoweringContext, code: OperationCode, x: Node, out_node: Node, out_shape: Sequence[Dim],
                pool: Pool3d, name: str) -> None:
    """Emits the 3-D pool of ``x`` into ``out_node`` as a pool over H, W then one over D
    (either skipped when its window is one element)."""
    n, c, d, h, w = lc.shape(x)
    od, oh, ow = out_shape[2:]
    g = lc.graph
    pool_hw, pool_d = not _is_identity(pool, (1, 2)), not _is_identity(pool, (0,))
    if not pool_d:
        out = lc.emit_merged_output(out_node, IMAGES_VIEW)
        _pool_step(lc, code, lc.merged_operand(x, IMAGES_VIEW), [n * c * d, h, w, 1], out, [oh, ow], pool, (1, 2),
                   name)
        return
    if pool_hw:
        images = g.emit_tensor([n * c * d, oh, ow, 1], debug_name=f"{name}.hw")
        _pool_step(lc, code, lc.merged_operand(x, IMAGES_VIEW), [n * c * d, h, w, 1], images, [oh, ow], pool,
                   (1, 2), f"{name} (H, W)")
        depth_shape = [n * c, d, oh * ow, 1]
        depth = g.emit_like(images, depth_shape, debug_name=f"{name}.hw_by_depth")
        g.emit_operation(OperationCode.RESHAPE, [images, g.emit_int32_vector(depth_shape)], [depth],
                         debug_name=f"{name} (view [N*C, D, H*W, 1])")
    else:
        depth, depth_shape = lc.merged_operand(x, DEPTH_VIEW), [n * c, d, h * w, 1]
    out = lc.emit_merged_output(out_node, DEPTH_VIEW)
    _pool_step(lc, code, depth, depth_shape, out, [od, oh * ow], pool, (0, None), f"{name} (D)")


__all__ = ["AXES", "DEPTH_VIEW", "IMAGES_VIEW", "Pool3d", "check_pool3d", "check_pool3d_input", "emit_pool3d",
           "triple"]
