"""Helpers shared by the 2-D pooling builders (max, average, adaptive average):
argument normalization and the mapping of PyTorch padding / ceil_mode to
NNAPI's explicit head/tail padding."""

from __future__ import annotations

from typing import Any, Sequence

import sympy
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import OperationCode
from ..node_utils import tensor_shape
from ..shape_program import Dim, is_static
from .common import check_float_tensors
from .node_builder import Refused


def arg(node: Node, index: int, name: str, default: Any = None) -> Any:
    """Argument ``index`` (or keyword ``name``) of ``node``, else ``default``."""
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


def pair(value: Any, default: Sequence[int]) -> list[int]:
    """A pooling size argument as [h, w] (PyTorch accepts one int for both, or [] for the default)."""
    if value is None:
        return list(default)
    if isinstance(value, int):
        return [value, value]
    value = [int(v) for v in value]
    if not value:
        return list(default)
    return value * 2 if len(value) == 1 else value


def check_pool_input(node: Node, x: Node, what: str) -> None:
    """Refuses non-float32 tensors and anything but a batched 4-D input (pools, resize)."""
    check_float_tensors(node, x)
    rank = len(tensor_shape(x))
    if rank != 4:
        raise Refused(f"{what} on a rank-{rank} input (NNAPI spatial ops take a batched 4-D [N, C, H, W] input)")


def tail_padding(size: Dim, out: Dim, kernel: int, stride: int, head: int, tail: int, ceil_mode: bool) -> Dim:
    """NNAPI bottom/right padding giving PyTorch's output size ``out``.

    NNAPI's output size is floor((in + head + tail - k) / s) + 1, PyTorch's with
    ceil_mode rounds up (unless the last window would start in the tail
    padding); the difference is covered by extra tail padding, which never
    enters a max or an NNAPI average (padding is excluded from the divisor).
    """
    if not ceil_mode:
        return tail
    extra = (out - 1) * stride + kernel - (size + head + tail)
    if is_static(extra):
        return tail + max(0, int(extra))
    return tail + sympy.Max(0, extra)


def check_tail(size: Dim, out: Dim, kernel: int, stride: int, head: int, tail: int, ceil_mode: bool,
               what: str, axis: str) -> None:
    """Refuses when NNAPI's rule "padding < filter" would fail for the tail padding.

    PyTorch drops a last window that would start in the tail padding, so
    (out - 1) * s < in + head and the tail is at most kernel - 1: this never
    fires for sizes PyTorch computed, which is also why a dynamic size needs no check.
    """
    if not (ceil_mode and is_static(size) and is_static(out)):
        return
    total = tail_padding(size, out, kernel, stride, head, tail, True)
    if total >= kernel:
        raise Refused(f"{what} with ceil_mode=True needs {axis} tail padding {total} >= kernel {kernel} "
                      "(NNAPI requires padding < filter)")


def emit_pool(lc: LoweringContext, code: OperationCode, x_operand: int, out_operand: int, kernel: Sequence[int],
              stride: Sequence[int], head: Sequence[Dim], tail: Sequence[Dim], fuse_operand: int,
              debug_name: str) -> None:
    """Emits AVERAGE_POOL_2D / MAX_POOL_2D in the explicit-padding form on NHWC operands.

    ``kernel``, ``stride``, ``head``, ``tail`` are [h, w]; NNAPI lists width first.
    """
    g = lc.graph
    inputs = [x_operand, g.emit_int32(head[1]), g.emit_int32(tail[1]), g.emit_int32(head[0]), g.emit_int32(tail[0]),
              g.emit_int32(stride[1]), g.emit_int32(stride[0]), g.emit_int32(kernel[1]), g.emit_int32(kernel[0]),
              fuse_operand]
    g.emit_operation(code, inputs, [out_operand], debug_name=debug_name)


def nhwc_input(lc: LoweringContext, x: Node) -> int:
    """The pool input as an NHWC operand (TRANSPOSE only if not already NHWC)."""
    return lc.operand(x, NHWC)


__all__ = ["arg", "check_pool_input", "check_tail", "emit_pool", "nhwc_input", "pair", "tail_padding"]
