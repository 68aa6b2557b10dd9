"""aten.where.self -> SELECT (API 29), float32, int32 or int64 (held in int32) values.

SELECT does not broadcast: its condition and both values must have the output's shape. A value
of another shape is brought to it with EXPAND_DIMS (missing leading dims) and TILE; a condition
with LOGICAL_OR against ``t < t`` of a full-shape value ``t``, which is false everywhere (NaN
included) and broadcasts the condition. Everything is in PyTorch's dim order (see bool_values.py).

Quantized (x and y dequantized 8-bit values, a constant one as its codes): SELECT requantizes
both to the output's scale and zero point; the condition must then have the output's shape (LESS
takes no 8-bit operands here).

The where of attention's masked softmax is emitted by builders/masked_softmax.py instead.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import QuantParams, tensor_dtype, tensor_shape
from ..shape_program import Dim, is_static
from .bool_values import HELD_IN_INT32, check_inputs, emit_result, operand, shape_of
from .expand import multiples
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .quantization import requantizing
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class WhereBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.where.self, FeatureLevel.ANDROID_10, "SELECT (+ EXPAND_DIMS / TILE / LOGICAL_OR to broadcast); in a masked "
                  "softmax: REDUCE_MAX, MAXIMUM, SUB, EXP, REDUCE_SUM, MAXIMUM, DIV",
                  "bool condition; float32, int32 or int64 (held in int32) values (constants converted); broadcasting",
                  quantized=requantizing(aten.where.self, since=FeatureLevel.ANDROID_10, inputs=(1, 2))),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        cond, x, y = node.args[:3]
        check_inputs(ctx, [cond], torch.bool, (torch.bool,))
        check_inputs(ctx, [x, y], tensor_dtype(node), (torch.float32, *HELD_IN_INT32))
        check_int64_result(node, ctx)

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        cond, x, y = node.args[:3]
        if shape_of(cond) != tensor_shape(node):
            raise Refused("quantized where whose condition is not of the output's shape (SELECT does not broadcast)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        cond, x, y = node.args[:3]
        g = lc.graph
        dtype = lc.dtype(node)
        out_shape = lc.shape(node)
        x_op = broadcast_value(lc, node, x, dtype, out_shape)
        y_op = broadcast_value(lc, node, y, dtype, out_shape)
        c_op = operand(lc, cond, torch.bool)
        if shape_of(cond) != out_shape:
            never = g.emit_tensor(out_shape, torch.bool, debug_name=f"{node.name}.false")
            g.emit_operation(OperationCode.LESS, [x_op, x_op], [never], debug_name=node.name)
            full = g.emit_tensor(out_shape, torch.bool, debug_name=f"{node.name}.condition")
            g.emit_operation(OperationCode.LOGICAL_OR, [c_op, never], [full], debug_name=node.name)
            c_op = full
        g.emit_operation(OperationCode.SELECT, [c_op, x_op, y_op], [emit_result(lc, node)],
                         debug_name=node.name)


def broadcast_value(lc: LoweringContext, node: Node, x: Any, dtype: torch.dtype, out_shape: list[Dim]) -> int:
    """``x`` as an operand of the output's shape (PyTorch's broadcasting done explicitly)."""
    g = lc.graph
    shape = shape_of(x)
    if shape == out_shape:
        return operand(lc, x, dtype)
    aligned = [1] * (len(out_shape) - len(shape)) + list(shape)
    if isinstance(x, Node) and lc.is_constant(x):
        codes = g.constant_codes(lc.resolve(x))  # an 8-bit constant of a quantized where
        tensor = codes.codes if codes is not None else lc.constant(x).to(dtype)
        source = g.emit_constant_of(lc.resolve(x), tensor.reshape([int(d) for d in aligned]))
    else:
        source = operand(lc, x, dtype)
        rank = max(len(shape), 1)  # a 0-d value is stored as [1]
        while rank < len(out_shape):
            # EXPAND_DIMS rather than RESHAPE, which takes no TENSOR_INT32.
            rank += 1
            # emit_like: a quantized value keeps its type, scale and zero point.
            lifted = g.emit_like(source, aligned[-rank:], debug_name=f"{node.name}.rank{rank}")
            g.emit_operation(OperationCode.EXPAND_DIMS, [source, g.emit_int32(0)], [lifted], debug_name=node.name)
            source = lifted
    reps = multiples(aligned, out_shape)
    if all(is_static(m) and m == 1 for m in reps):
        return source
    tiled = g.emit_like(source, out_shape, debug_name=f"{node.name}.tiled")
    g.emit_operation(OperationCode.TILE, [source, g.emit_int32_vector(reps)], [tiled], debug_name=node.name)
    return tiled
