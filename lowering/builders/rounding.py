"""aten.floor / ceil / trunc / round -> FLOOR and exact compositions of it.

NNAPI has FLOOR only (API 27). The others are composed exactly (every step is
exact in float32: negation, floor, x - floor(x), halving and doubling):

- ceil(x)  = -floor(-x)                                   MUL, FLOOR (API 27)
- trunc(x) = floor(relu(x)) - floor(relu(-x))             RELU, MUL, FLOOR, ADD (API 27)
- round(x) (half to even) = f + [d > 1/2] + [d = 1/2]·(f - 2·floor(f/2)),
  f = floor(x), d = x - f                                 GREATER, EQUAL, SELECT (API 29)

floor(x + 0.5) is not used for round: x + 0.5 rounds in float32 (0.49999997 + 0.5
= 1.0) and it rounds ties up, not to even.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank, check_static
from .elementwise_chain import ElementwiseChain
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class RoundingBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.floor.default, FeatureLevel.ANDROID_8_1, "FLOOR", "float32, rank 1-4"),
        OpSupport(aten.ceil.default, FeatureLevel.ANDROID_8_1, "MUL / FLOOR", "float32, rank 1-4"),
        OpSupport(aten.trunc.default, FeatureLevel.ANDROID_8_1, "RELU / MUL / FLOOR / ADD", "float32, rank 1-4"),
        OpSupport(aten.round.default, FeatureLevel.ANDROID_10, "FLOOR / SUB / GREATER / EQUAL / SELECT",
                  "float32, rank 1-4, static shape (SELECT does not broadcast)"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK)  # FLOOR
        if aten_op(node) is aten.round.default:
            check_static(tensor_shape(node), "round (its SELECT needs constants of the full shape)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        c = ElementwiseChain(lc, node)
        op = aten_op(node)
        if op is aten.floor.default:
            c.op(OperationCode.FLOOR, [c.x], last=True)
        elif op is aten.ceil.default:
            negated_floor = c.op(OperationCode.FLOOR, [c.op(OperationCode.MUL, [c.x, c.const(-1.0)])])
            c.op(OperationCode.MUL, [negated_floor, c.const(-1.0)], last=True)
        elif op is aten.trunc.default:
            emit_trunc(c, c.x)
        else:
            self._define_round(c)

    @staticmethod
    def _define_round(c: ElementwiseChain) -> None:
        f = c.op(OperationCode.FLOOR, [c.x])
        d = c.op(OperationCode.SUB, [c.x, f])
        # f odd: f - 2·floor(f/2) in {0, 1}
        odd = c.op(OperationCode.SUB, [f, c.op(OperationCode.MUL, [
            c.op(OperationCode.FLOOR, [c.op(OperationCode.MUL, [f, c.const(0.5)])]), c.const(2.0)])])
        above = c.op(OperationCode.GREATER, [d, c.const(0.5)], dtype=torch.bool)
        tie = c.op(OperationCode.EQUAL, [d, c.const(0.5)], dtype=torch.bool)
        zeros = c.full(0.0)
        step = c.op(OperationCode.SELECT, [above, c.full(1.0), zeros])
        step = c.op(OperationCode.ADD, [step, c.op(OperationCode.SELECT, [tie, odd, zeros])])
        c.op(OperationCode.ADD, [f, step], last=True)


def emit_trunc(c: ElementwiseChain, x: int) -> int:
    """trunc(x) = floor(relu(x)) - floor(relu(-x)) as the chain's last step (exact, API 27)."""
    up = c.op(OperationCode.FLOOR, [c.op(OperationCode.RELU, [x])])
    minus_x = c.op(OperationCode.MUL, [x, c.const(-1.0)])
    down = c.op(OperationCode.MUL, [c.op(OperationCode.FLOOR, [c.op(OperationCode.RELU, [minus_x])]),
                                    c.const(-1.0)])
    return c.op(OperationCode.ADD, [up, down], last=True)
