"""aten.bmm -> BATCH_MATMUL (feature level 6); before it MUL of a[B,M,K,1] and
b[B,1,K,N] (broadcast to [B,M,K,N]) + REDUCE_SUM over K (API 29) when that
intermediate is small, else one FULLY_CONNECTED per batch item (API 29), or,
with a dynamic batch, MUL + REDUCE_SUM over blocks of rows of ``a`` whose
intermediates stay small at the exported upper bounds (dynamic Swin's attention).

FULLY_CONNECTED computes ``input @ weightsᵀ`` and NNAPI does not require its
weights to be constant, so ``a_i @ b_i`` is FULLY_CONNECTED(a_i, b_iᵀ, 0): SPLIT
a and bᵀ along the batch, one FULLY_CONNECTED each, CONCATENATION. bᵀ is ``b``
read in dim order (0, 2, 1), which is free when ``b`` is itself a transposed
value (attention's ``q @ kᵀ``). It needs a static batch; the zero bias of size N is
a constant, or FILL (API 30) when N is symbolic."""

from __future__ import annotations

import sympy
import torch
from torch.fx import Node

from ..graph import LoweringError, identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import Dim, is_static
from .common import check_float_tensors
from .matmul import emit_batch_matmul
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

# Largest [B, M, K, N] intermediate of the MUL + REDUCE_SUM form (64 MiB of float32).
MAX_BROADCAST_ELEMENTS = 1 << 24


def upper_bound(expr: Dim, ctx: "CheckContext | LoweringContext") -> int | None:
    """Largest value of a (monotone, positive) size expression over the exported ranges
    (``ctx.exported_program``'s); None if unbounded."""
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
        OpSupport(aten.bmm.default, FeatureLevel.ANDROID_10, "MUL + REDUCE_SUM or FULLY_CONNECTED per batch item (BATCH_MATMUL from feature level 6)",
                  "float32; before feature level 6, B*M*K*N > 2^24 needs a static B (and a static N below "
                  "API 30), or a static M and B*K*N <= 2^24 (row blocks)"),
    )

    @staticmethod
    def rows_per_block(bsz: Dim, m: Dim, k: Dim, n: Dim, ctx: "CheckContext | LoweringContext") -> int | None:
        """Rows of ``a`` per MUL + REDUCE_SUM step keeping each [B, rows, K, N] intermediate
        within MAX_BROADCAST_ELEMENTS at the exported upper bounds; None if M is dynamic
        or even one row does not fit."""
        bound = upper_bound(bsz * k * n, ctx)
        if not is_static(m) or bound is None or bound > MAX_BROADCAST_ELEMENTS:
            return None
        return min(int(m), MAX_BROADCAST_ELEMENTS // bound)

    def check(self, node: Node, ctx: CheckContext) -> None:
        a, b = node.args[:2]
        check_float_tensors(node, a, b)
        if ctx.feature_level >= FeatureLevel.FEATURE_LEVEL_6:
            return
        bsz, m, k = tensor_shape(a)
        n = tensor_shape(b)[2]
        bound = upper_bound(bsz * m * k * n, ctx)
        if bound is not None and bound <= MAX_BROADCAST_ELEMENTS:
            return
        if not self._per_batch_possible(bsz, n, ctx.feature_level) and self.rows_per_block(bsz, m, k, n, ctx) is None:
            what = f"B*M*K*N = {bound} > 2^24" if bound is not None else "unbounded B*M*K*N"
            raise Refused(f"bmm with {what} elements in the MUL + REDUCE_SUM intermediate and a dynamic batch or N "
                          f"(the per-batch FULLY_CONNECTED form needs a static batch, and a static N below API 30; "
                          f"row blocks need a static M and B*K*N <= 2^24) before feature level 6")

    def define(self, node: Node, lc: LoweringContext) -> None:
        a, b = node.args[:2]
        g = lc.graph
        if g.feature_level >= FeatureLevel.FEATURE_LEVEL_6:
            emit_batch_matmul(node, lc)
            return
        bsz, m, k = lc.shape(a)
        n = lc.shape(b)[2]
        # The same bound check() took the node with (over the exported ranges): a dynamic
        # intermediate known to stay small takes MUL + REDUCE_SUM, whose sizes the shape
        # program computes, where the per-batch form would need a static batch and N.
        bound = upper_bound(bsz * m * k * n, lc)
        fits = bound is not None and bound <= MAX_BROADCAST_ELEMENTS
        if not fits and self._per_batch_possible(bsz, n, g.feature_level):
            self._define_per_batch(node, lc)
            return
        a4 = self._reshaped(lc, a, [bsz, m, k, 1], f"{node.name}.a")
        b4 = self._reshaped(lc, b, [bsz, 1, k, n], f"{node.name}.b")
        if fits:
            out = lc.emit_output(node, identity(3))
            self._multiply_and_sum(lc, a4, b4, [bsz, m, k, n], out, node.name)
            return
        rows = self.rows_per_block(bsz, m, k, n, lc)
        if rows is None:
            raise LoweringError(f"{node.name}: bmm too large for any form before feature level 6 (partitioner bug)")
        blocks = []
        for start in range(0, int(m), rows):
            size = min(rows, int(m) - start)
            rows_of_a = g.emit_tensor([bsz, size, k, 1], debug_name=f"{node.name}.a{start}")
            # begin/end only on the row dim: the end mask (0b1101) takes the others whole.
            g.emit_operation(OperationCode.STRIDED_SLICE,
                             [a4, g.emit_int32_vector([0, start, 0, 0]), g.emit_int32_vector([0, start + size, 0, 0]),
                              g.emit_int32_vector([1, 1, 1, 1]), g.emit_int32(0), g.emit_int32(0b1101),
                              g.emit_int32(0)], [rows_of_a], debug_name=node.name)
            block = g.emit_tensor([bsz, size, n], debug_name=f"{node.name}.rows{start}")
            self._multiply_and_sum(lc, rows_of_a, b4, [bsz, size, k, n], block, node.name)
            blocks.append(block)
        out = lc.emit_output(node, identity(3))
        g.emit_operation(OperationCode.CONCATENATION, [*blocks, g.emit_int32(1)], [out], debug_name=node.name)

    @staticmethod
    def _per_batch_possible(bsz: Dim, n: Dim, level: int) -> bool:
        """One FULLY_CONNECTED per item needs a static batch, and its zero bias of size N is
        a constant, or FILL (API 30) when N is symbolic."""
        return is_static(bsz) and (is_static(n) or level >= FeatureLevel.ANDROID_11)

    @staticmethod
    def _multiply_and_sum(lc: LoweringContext, a4: int, b4: int, product_shape: list[Dim], out: int,
                          name: str) -> None:
        """out = REDUCE_SUM over K of MUL(a[B, M, K, 1], b[B, 1, K, N])."""
        g = lc.graph
        products = g.emit_tensor(product_shape, debug_name=f"{name}.products")
        g.emit_operation(OperationCode.MUL, [a4, b4, g.emit_int32(int(FuseCode.NONE))], [products], debug_name=name)
        g.emit_operation(OperationCode.REDUCE_SUM, [products, g.emit_int32_vector([2]), g.emit_bool(False)], [out],
                         debug_name=name)

    @staticmethod
    def _define_per_batch(node: Node, lc: LoweringContext) -> None:
        """One FULLY_CONNECTED(a_i, b_iᵀ, 0) per batch item, concatenated."""
        a, b = node.args[:2]
        g = lc.graph
        bsz, m, k = lc.shape(a)
        n = lc.shape(b)[2]
        bsz = int(bsz)
        a_items = BmmBuilder._split_batch(lc, lc.operand(a, identity(3)), bsz, [m, k], f"{node.name}.a")
        bt = lc.constant(b).to(torch.float32).transpose(1, 2) if lc.is_constant(b) else None
        if bt is not None:
            w_items = [g.emit_constant_tensor(bt[i].contiguous()) for i in range(bsz)]
        else:
            w_items = BmmBuilder._split_batch(lc, lc.operand(b, (0, 2, 1)), bsz, [n, k], f"{node.name}.bT")
        if is_static(n):
            zero_bias = g.emit_constant_tensor(torch.zeros(n, dtype=torch.float32))
        else:
            zero_bias = g.emit_tensor([n], debug_name=f"{node.name}.bias")
            g.emit_operation(OperationCode.FILL, [g.emit_int32_vector([n]), g.emit_float32(0.0)], [zero_bias],
                             debug_name=node.name)
        products = []
        for i, (a_i, w_i) in enumerate(zip(a_items, w_items)):
            out = g.emit_tensor([m, n], debug_name=f"{node.name}.{i}")
            g.emit_operation(OperationCode.FULLY_CONNECTED, [a_i, w_i, zero_bias, g.emit_int32(int(FuseCode.NONE))],
                             [out], debug_name=node.name)
            products.append(out)
        stacked = g.emit_tensor([bsz * m, n], debug_name=f"{node.name}.stacked")
        g.emit_operation(OperationCode.CONCATENATION, [*products, g.emit_int32(0)], [stacked], debug_name=node.name)
        out = lc.emit_output(node, identity(3))
        g.emit_operation(OperationCode.RESHAPE, [stacked, g.emit_int32_vector([bsz, m, n])], [out],
                         debug_name=node.name)

    @staticmethod
    def _split_batch(lc: LoweringContext, operand: int, bsz: int, item_shape: list[Dim], name: str) -> list[int]:
        """The ``bsz`` items of a [bsz, *item_shape] operand as 2-D operands (SPLIT, then RESHAPE)."""
        g = lc.graph
        pieces = [g.emit_tensor([1, *item_shape], debug_name=f"{name}{i}") for i in range(bsz)]
        g.emit_operation(OperationCode.SPLIT, [operand, g.emit_int32(0), g.emit_int32(bsz)], pieces, debug_name=name)
        items = []
        for i, piece in enumerate(pieces):
            item = g.emit_tensor(item_shape, debug_name=f"{name}{i}.2d")
            g.emit_operation(OperationCode.RESHAPE, [piece, g.emit_int32_vector(item_shape)], [item], debug_name=name)
            items.append(item)
        return items

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
