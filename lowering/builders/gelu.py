"""aten.gelu -> exact GELU (erf composed from ABS/MINIMUM/EXP/MUL/ADD/DIV/RELU/SUB, API 29)
or tanh-approximate GELU (MUL/ADD/TANH, API 27).

NNAPI has no GELU and no ERF operation. ``gelu(x, approximate='none')`` is
``x·Φ(x)`` with ``Φ(x) = erfc(-x/√2)/2``; since ``Φ(x) = 1 - Φ(-x)``,

    gelu(x) = relu(x) - |x|·erfc(|x|/√2)/2

which needs erfc only for a non-negative argument, no sign and no SELECT. For
erfc we use the Chebyshev fit of Press et al. (Numerical Recipes, ``erfcc``):

    t = 1 / (1 + z/2),  erfc(z) = t·exp(-z² + P(t)),  P of degree 9,

whose *relative* error is below 1.2e-7 for every z >= 0, so the negative tail
of GELU (where erfc is tiny) is as accurate as the positive side. |x| is first
clamped to ``_CLAMP`` = 100: beyond it erfc(|x|/√2) underflows float32 to 0, so
the value is unchanged, and ``|x|·erfc`` is ``100·0 = 0`` instead of ``inf·0``.

Measured bound in float32 (tests/lowering/test_gelu_erf.py sweeps all float32
magnitudes, both signs): |result - gelu(x)| <= 1e-7·max(1, |x|) (maximum seen
9.1e-8, below float32's epsilon 1.19e-7). Specials: gelu(+inf) = +inf,
gelu(-inf) = 0 (the mathematical limits; eager torch on the CPU returns NaN for
both), NaN stays NaN.
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

# erfc(z) ≈ t·exp(-z² + Σ c_i·t^i), t = 1/(1 + z/2), z >= 0 (Numerical Recipes' erfcc).
ERFC_COEFFS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
               -1.13520398, 1.48851587, -0.82215223, 0.17087277)
# |x| beyond which erfc(|x|/√2) is 0 in float32 (erfc(70.7) ≈ 1e-2174).
_CLAMP = 100.0


def _approximate(node: Node) -> str:
    return node.kwargs.get("approximate", node.args[1] if len(node.args) > 1 else "none")


@register_builder
class GeluBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.gelu.default, FeatureLevel.ANDROID_8_1, "MUL / ADD / TANH; exact: ABS / MINIMUM / EXP / DIV",
                  "float32, rank 1-4; approximate='none' (erf, |error| <= 1e-7·max(1,|x|)) needs API 29"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        approximate = _approximate(node)
        if approximate == "none":
            ctx.require(FeatureLevel.ANDROID_10, "exact gelu (erf from ABS / MINIMUM / EXP)")
        elif approximate != "tanh":
            raise Refused(f"gelu with approximate='{approximate}'")
        check_rank(node, MAX_RANK)  # ADD / MUL / TANH / RELU

    def define(self, node: Node, lc: LoweringContext) -> None:
        if _approximate(node) == "tanh":
            self._define_tanh(ElementwiseChain(lc, node))
        else:
            self._define_erf(ElementwiseChain(lc, node))

    @staticmethod
    def _define_tanh(c: ElementwiseChain) -> None:
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

    @staticmethod
    def _define_erf(c: ElementwiseChain) -> None:
        c.lc.graph.require_feature_level(FeatureLevel.ANDROID_10)
        x = c.x
        u = c.op(OperationCode.MINIMUM, [c.op(OperationCode.ABS, [x]), c.const(_CLAMP)])
        # z = u/√2; t = 1/(1 + z/2)
        denominator = c.op(OperationCode.ADD, [c.op(OperationCode.MUL, [u, c.const(0.5 / math.sqrt(2.0))]),
                                               c.const(1.0)])
        t = c.op(OperationCode.DIV, [c.const(1.0), denominator])
        poly = c.const(ERFC_COEFFS[-1])
        for coeff in reversed(ERFC_COEFFS[:-1]):  # Horner
            poly = c.op(OperationCode.ADD, [c.op(OperationCode.MUL, [poly, t]), c.const(coeff)])
        # exponent = P(t) - z² = P(t) - u²/2
        half_u2 = c.op(OperationCode.MUL, [c.op(OperationCode.MUL, [u, u]), c.const(0.5)])
        e = c.op(OperationCode.EXP, [c.op(OperationCode.SUB, [poly, half_u2])])
        # |x|·erfc/2 = (u·t/2)·e
        tail = c.op(OperationCode.MUL, [c.op(OperationCode.MUL, [c.op(OperationCode.MUL, [u, t]), c.const(0.5)]), e])
        c.op(OperationCode.SUB, [c.op(OperationCode.RELU, [x]), tail], last=True)
