"""aten.expm1 -> EXP and Kahan's exact form (API 29).

EXP(x) - 1 loses every digit of a tiny x (exp(1e-10) rounds to 1). Kahan's form keeps them:

    u = exp(x);  expm1(x) = x                        if u == 1
                          = (u - 1) · x / log(u)     otherwise

(log of the rounded u cancels its rounding). It is used for |x| < 0.5 only: beyond, u - 1
has no cancellation (u >= 1.65 or u <= 0.61), and u = inf or 0 gives inf or -1 directly.
xIELU (Apertus) and other gated activations call expm1.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .common import check_float_tensors, check_rank, check_static
from .elementwise_chain import ElementwiseChain
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten

_SMALL = 0.5   # below: Kahan's quotient; from here: u - 1


@register_builder
class Expm1Builder(NodeBuilder):
    ops = (
        OpSupport(aten.expm1.default, FeatureLevel.ANDROID_10,
                  "EXP / SUB / LOG / DIV / MUL / ABS / LESS / EQUAL / SELECT",
                  "float32, rank 1-4, static shape (SELECT does not broadcast)"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, what="expm1 input (SUB / DIV take rank 1-4)")
        check_static(tensor_shape(node), "expm1 (its SELECT does not broadcast)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        c = ElementwiseChain(lc, node)
        u = c.op(OperationCode.EXP, [c.x])
        u_minus_1 = c.op(OperationCode.SUB, [u, c.const(1.0)])
        quotient = c.op(OperationCode.MUL, [u_minus_1, c.op(OperationCode.DIV, [c.x, c.op(OperationCode.LOG, [u])])])
        exact_one = c.op(OperationCode.EQUAL, [u, c.const(1.0)], dtype=torch.bool)
        kahan = c.op(OperationCode.SELECT, [exact_one, c.x, quotient])
        small = c.op(OperationCode.LESS, [c.op(OperationCode.ABS, [c.x]), c.const(_SMALL)], dtype=torch.bool)
        c.op(OperationCode.SELECT, [small, kahan, u_minus_1], last=True)
