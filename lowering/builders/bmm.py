"""aten.bmm -> BATCH_MATMUL (feature level 6), or before it MUL of a[B,M,K,1] and
b[B,1,K,N] (broadcast to [B,M,K,N]) + REDUCE_SUM over K (API 29)."""

from __future__ import annotations

import sympy
import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import Dim, is_static
from .common import check_float_tensors
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

# Largest [B, M, K, N] intermediate of the MUL + REDUCE_SUM form (64 MiB of float32).
MAX_BROADCAST_ELEMENTS = 1 << 24


def upper_bound(expr: Dim, ctx: CheckContext) -> int | None:
    """Largest value of a (monotone, positive) size expression over the exported ranges; None if unbounded."""
    if is_static(expr):
        return int(expr)
    ranges = getattr(ctx.exported_program, "range_constraints", None) or {}
    upper = {}
    for sym in sympy.sympify(expr).free_symbols:
        vr = next((v for k, v in ranges.items() if str(k) == str(sym)), None)
        try:
            upper[sym] = int(vr.upper)
        except (AttributeError, TypeError, ValueError, OverflowError):
            return None
    try:
        return int(sympy.sympify(expr).subs(upper))
    except (TypeError, ValueError):
        return None


@register_builder
class BmmBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.bmm.default, FeatureLevel.ANDROID_10, "MUL + REDUCE_SUM (BATCH_MATMUL from feature level 6)",
                  "float32, B*M*K*N <= 2^24 before feature level 6"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        a, b = node.args[:2]
        check_float_tensors(node, a, b)
        if ctx.feature_level >= FeatureLevel.FEATURE_LEVEL_6:
            return
        bsz, m, k = tensor_shape(a)
        n = tensor_shape(b)[2]
        bound = upper_bound(bsz * m * k * n, ctx)
        if bound is None:
            raise Refused("bmm with unbounded dynamic dims (the MUL + REDUCE_SUM form needs a [B, M, K, N] "
                          "intermediate; give the dims a max)")
        if bound > MAX_BROADCAST_ELEMENTS:
            raise Refused(f"bmm too large for MUL + REDUCE_SUM before feature level 6: B*M*K*N = {bound} "
                          f"> 2^24 elements in the intermediate")

    def define(self, node: Node, lc: LoweringContext) -> None:
        a, b = node.args[:2]
        g = lc.graph
        if g.feature_level >= FeatureLevel.FEATURE_LEVEL_6:
            out = lc.emit_output(node, identity(3))
            g.emit_operation(OperationCode.BATCH_MATMUL, [lc.operand(a, identity(3)), lc.operand(b, identity(3))],
                             [out], debug_name=node.name)
            return
        bsz, m, k = lc.shape(a)
        n = lc.shape(b)[2]
        a4 = self._reshaped(lc, a, [bsz, m, k, 1], f"{node.name}.a")
        b4 = self._reshaped(lc, b, [bsz, 1, k, n], f"{node.name}.b")
        products = g.emit_tensor([bsz, m, k, n], debug_name=f"{node.name}.products")
        g.emit_operation(OperationCode.MUL, [a4, b4, g.emit_int32(int(FuseCode.NONE))], [products],
                         debug_name=node.name)
        out = lc.emit_output(node, identity(3))
        g.emit_operation(OperationCode.REDUCE_SUM, [products, g.emit_int32_vector([2]), g.emit_bool(False)], [out],
                         debug_name=node.name)

    @staticmethod
    def _reshaped(lc: LoweringContext, x: Node, shape: list[Dim], name: str) -> int:
        """``x`` as a 4-D operand of ``shape`` (constants reshaped at lowering time)."""
        g = lc.graph
        if lc.is_constant(x):
            return g.emit_constant_tensor(lc.constant(x).to(torch.float32).reshape(shape))
        out = g.emit_tensor(shape, debug_name=name)
        g.emit_operation(OperationCode.RESHAPE, [lc.operand(x, identity(3)), g.emit_int32_vector(shape)], [out],
                         debug_name=name)
        return out
