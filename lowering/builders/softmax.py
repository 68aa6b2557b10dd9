"""aten._softmax -> SOFTMAX, aten._log_softmax -> LOG_SOFTMAX (β = 1, axis on the physical layout)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, normalize_dim, tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .quantization import UNIT_INTERVAL, fixed_output
from .registry import register_builder

aten = torch.ops.aten

# Before API 29 SOFTMAX has no axis input (it works on the last dim) and takes rank 2 or 4 only.
_LEGACY_RANKS = (2, 4)


def _dim(node: Node) -> int:
    return normalize_dim(int(node.args[1]), len(tensor_shape(node.args[0])))


def _legacy_order(order: tuple[int, ...], dim: int) -> tuple[int, ...]:
    """A dim order with ``dim`` physically last, for SOFTMAX without an axis input.

    The logical last dim is served by the identity order (partition inputs
    have it, no TRANSPOSE); any other dim is moved to the end of ``order``.
    """
    if order[-1] == dim:
        return order
    if dim == len(order) - 1:
        return tuple(range(len(order)))
    return tuple(d for d in order if d != dim) + (dim,)


@register_builder
class SoftmaxBuilder(NodeBuilder):
    ops = (
        OpSupport(aten._softmax.default, FeatureLevel.ANDROID_8_1, "SOFTMAX",
                  "float32, rank 1-4, half_to_float=False; rank 1/3 need API 29; at API 27 the last dim only",
                  quantized=fixed_output(UNIT_INTERVAL, aten.softmax.int, aten._softmax.default)),
        OpSupport(aten._log_softmax.default, FeatureLevel.ANDROID_10, "LOG_SOFTMAX", "float32, half_to_float=False"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_float_tensors(node, x)
        if len(node.args) > 2 and node.args[2]:
            raise Refused("softmax with half_to_float=True (NNAPI has no float16-to-float32 softmax)")
        log = aten_op(node) == aten._log_softmax.default
        rank = len(tensor_shape(x))
        if log:
            check_rank(x, max_rank=1 << 30, what="input")
            return
        check_rank(x, MAX_RANK, what="input")
        if rank not in _LEGACY_RANKS:
            ctx.require(FeatureLevel.ANDROID_10, f"softmax of a rank-{rank} tensor")
        if ctx.feature_level == FeatureLevel.ANDROID_8_1 and _dim(node) != rank - 1:
            # Without TRANSPOSE (API 28) or the axis input (API 29) only the last dim works.
            ctx.require(FeatureLevel.ANDROID_9, f"softmax over dim {_dim(node)} (not the last) of a rank-{rank} tensor")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        g = lc.graph
        dim = _dim(node)
        order = lc.order(x)
        rank = len(order)
        code = OperationCode.LOG_SOFTMAX if aten_op(node) == aten._log_softmax.default else OperationCode.SOFTMAX
        axis = physical_axis(order, dim)
        if code == OperationCode.SOFTMAX and rank in _LEGACY_RANKS and axis != rank - 1 \
                and g.feature_level < FeatureLevel.ANDROID_10:
            # No axis input before API 29: bring the softmax dim to the end
            # (a TRANSPOSE, API 28, unless the value already exists in that order).
            order = _legacy_order(order, dim)
            axis = rank - 1
        inputs = [lc.operand(x, order), g.emit_float32(1.0)]
        if code == OperationCode.LOG_SOFTMAX or rank not in _LEGACY_RANKS or axis != rank - 1:
            inputs.append(g.emit_int32(axis))
            g.require_feature_level(FeatureLevel.ANDROID_10)  # the axis operand
        out = lc.emit_output(node, order)
        g.emit_operation(code, inputs, [out], debug_name=node.name)

