"""aten.log2 / log10 / log1p -> LOG (API 29), scaled, or log1p's exact form (aten.log is a row of
elementwise_unary.py).

log2 and log10 are LOG times 1/ln 2 or 1/ln 10 (one more float32 rounding). log1p
is not LOG(1 + x), which loses every digit of a tiny x; it is Goldberg's

    u = 1 + x;  log1p(x) = x                      if u == 1
                         = log(u) · x / (u - 1)   otherwise

(the quotient cancels the rounding of 1 + x), with x and u clamped to 2^100 in
the quotient so that x = +inf gives log(inf)·1 = inf rather than inf/inf.
"""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, tensor_shape
from .common import check_float_tensors, check_static
from .elementwise_chain import ElementwiseChain
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

_SCALE = {aten.log2.default: 1.0 / math.log(2.0), aten.log10.default: 1.0 / math.log(10.0)}
_BIG = 2.0 ** 100


@register_builder
class LogBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.log2.default, FeatureLevel.ANDROID_10, "LOG / MUL", "float32, rank 1-4"),
        OpSupport(aten.log10.default, FeatureLevel.ANDROID_10, "LOG / MUL", "float32, rank 1-4"),
        OpSupport(aten.log1p.default, FeatureLevel.ANDROID_10, "ADD / LOG / MINIMUM / DIV / EQUAL / SELECT",
                  "float32, rank 1-4, static shape (SELECT does not broadcast)"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        rank = len(tensor_shape(node))
        if not 1 <= rank <= 4:
            raise Refused(f"{aten_op(node)._opname} of a rank-{rank} tensor (MUL / ADD take rank 1-4)")
        if aten_op(node) is aten.log1p.default:
            check_static(tensor_shape(node), "log1p (its SELECT does not broadcast)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        c = ElementwiseChain(lc, node)
        op = aten_op(node)
        if op in _SCALE:
            c.op(OperationCode.MUL, [c.op(OperationCode.LOG, [c.x]), c.const(_SCALE[op])], last=True)
        else:
            u = c.op(OperationCode.ADD, [c.x, c.const(1.0)])
            big = c.const(_BIG)
            u_minus_1 = c.op(OperationCode.SUB, [c.op(OperationCode.MINIMUM, [u, big]), c.const(1.0)])
            ratio = c.op(OperationCode.DIV, [c.op(OperationCode.MINIMUM, [c.x, big]), u_minus_1])
            general = c.op(OperationCode.MUL, [c.op(OperationCode.LOG, [u]), ratio])
            exact_one = c.op(OperationCode.EQUAL, [u, c.const(1.0)], dtype=torch.bool)
            c.op(OperationCode.SELECT, [exact_one, c.x, general], last=True)
