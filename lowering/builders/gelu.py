"""aten.gelu(approximate='tanh') -> 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) with MUL/ADD/TANH.

NNAPI has no GELU or ERF operation, so the exact form is refused.
"""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank
from .elementwise_chain import ElementwiseChain
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

_K = math.sqrt(2.0 / math.pi)
_C = 0.044715


def _approximate(node: Node) -> str:
    return node.kwargs.get("approximate", node.args[1] if len(node.args) > 1 else "none")


@register_builder
class GeluBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.gelu.default, FeatureLevel.ANDROID_8_1, "MUL / ADD / TANH", "float32, approximate='tanh' only, rank 1-4"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        if _approximate(node) != "tanh":
            raise Refused(f"gelu with approximate='{_approximate(node)}' (NNAPI has no erf)")
        check_rank(node, MAX_RANK)  # ADD / MUL / TANH

    def define(self, node: Node, lc: LoweringContext) -> None:
        c = ElementwiseChain(lc, node)
        x = c.x
        # inner = x·(k + k·c·x²) = k·(x + c·x³), one MUL fewer than the textbook form.
        x2 = c.op(OperationCode.MUL, [x, x])
        poly = c.op(OperationCode.MUL, [x2, c.const(_K * _C)])
        poly = c.op(OperationCode.ADD, [poly, c.const(_K)])
        inner = c.op(OperationCode.MUL, [poly, x])
        t = c.op(OperationCode.TANH, [inner])
        t = c.op(OperationCode.ADD, [t, c.const(1.0)])
        half_x = c.op(OperationCode.MUL, [x, c.const(0.5)])
        c.op(OperationCode.MUL, [half_x, t], last=True)
