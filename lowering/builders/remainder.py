"""aten.remainder.Scalar (``x % m``) of an int32 / int64 tensor by a positive integer -> DIV on
TENSOR_INT32 (API 30: it floors, as Python's ``//``), MUL, SUB: r = x - m * floor(x / m), in
[0, m) as PyTorch's remainder (the sign of the divisor).

Overflow-free for every int32 x: m * floor(x / m) lies below INT32_MIN only for x within m of
INT32_MIN. Where the held range of x does not exclude such values, the quotient is first raised
to q0 = -floor(2^31 / m) (MAXIMUM), whose product with m fits; then x - q0 * m is r - m for
those x (q = q0 - 1), in [-m, -1], and m is added back where the difference is negative (LESS,
ADD, SELECT): seven operations instead of three, every intermediate within int32.

Refused: float remainder (NNAPI has no fmod: x - floor(x / m) * m rounds where PyTorch's does
not), a divisor that is a tensor, zero or negative.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_dtype
from .common import MAX_RANK, check_rank
from .integer_ranges import INT32_RANGE, check_int64_result, held_range
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def _overflow_free(x: Node, m: int, ctx: CheckContext) -> bool:
    """Whether m * floor(x / m) fits int32 for every value x may hold (bounds as the check sees them
    inside the partition: a partition input is unbounded)."""
    r = held_range(x, ctx)
    return r is not None and r[0] >= INT32_RANGE[0] + m - 1


@register_builder
class RemainderBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.remainder.Scalar, FeatureLevel.ANDROID_11, "DIV (TENSOR_INT32, floors), MUL, SUB; "
                  "where x may lie within m of INT32_MIN also MAXIMUM, LESS, ADD, SELECT",
                  "int32 / int64 by a positive integer, rank <= 4; float remainder refused (no fmod in NNAPI)"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, m = node.args[:2]
        dtype = tensor_dtype(node)
        if dtype not in (torch.int32, torch.int64) or tensor_dtype(x) != dtype:
            raise Refused(f"remainder of a {str(tensor_dtype(x)).replace('torch.', '')} tensor (NNAPI has no "
                          "floating-point remainder; the integer one is DIV on TENSOR_INT32)")
        if isinstance(m, bool) or not isinstance(m, int) or m <= 0 or m > INT32_RANGE[1]:
            raise Refused(f"remainder by {m!r} (a positive integer within int32 is needed)")
        ctx.require(FeatureLevel.ANDROID_11, "integer remainder (DIV on TENSOR_INT32)")
        check_rank(node, MAX_RANK, what="output")
        check_int64_result(node, ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, m = node.args[0], int(node.args[1])
        g = lc.graph
        order = lc.order(x)
        shape = [lc.shape(x)[d] for d in order] or [1]
        source = lc.operand(x, order)

        def constant(value: int) -> int:
            return g.emit_constant_tensor(torch.tensor([value], dtype=torch.int32))

        def step(code: OperationCode, inputs: list[int], dtype: torch.dtype = torch.int32, name: str = "") -> int:
            out = g.emit_tensor(shape, dtype, debug_name=f"{node.name}.{name}")
            fused = [g.emit_int32(0)] if code in (OperationCode.DIV, OperationCode.MUL, OperationCode.SUB,
                                                   OperationCode.ADD) else []
            g.emit_operation(code, inputs + fused, [out], debug_name=node.name)
            return out

        quotient = step(OperationCode.DIV, [source, constant(m)], name="quotient")
        if _overflow_free(x, m, CheckContext(g.feature_level, lc.exported_program)):
            product = step(OperationCode.MUL, [quotient, constant(m)], name="product")
            out = lc.emit_output(node, order)
            g.emit_operation(OperationCode.SUB, [source, product, g.emit_int32(0)], [out], debug_name=node.name)
            return
        least = -((1 << 31) // m)       # q0: q0 * m >= INT32_MIN
        raised = step(OperationCode.MAXIMUM, [quotient, constant(least)], name="raised")
        product = step(OperationCode.MUL, [raised, constant(m)], name="product")
        difference = step(OperationCode.SUB, [source, product], name="difference")
        negative = step(OperationCode.LESS, [difference, constant(0)], torch.bool, name="negative")
        wrapped = step(OperationCode.ADD, [difference, constant(m)], name="wrapped")
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.SELECT, [negative, wrapped, difference], [out], debug_name=node.name)
