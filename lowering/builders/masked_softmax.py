"""Attention's masked softmax (MaskedSoftmaxUnit) -> float operations only:
REDUCE_MAX, MAXIMUM, SUB, EXP, REDUCE_SUM, MAXIMUM, DIV (API 29).

The unit's bool tensors have no place on the delegate's float path. The same
values as PyTorch's come from

    m = max(max_d(x), -FLT_MAX)       # finite, also for a fully masked row
    e = exp(x - m)                    # all 0 in a fully masked row
    out = e / max(sum_d(e), FLT_MIN)  # 0 / FLT_MIN = 0 there; elsewhere sum >= 1

which is PyTorch's own softmax formula (exp(x - max) / sum) where any logit is
finite, and exactly 0 where none is. The bool nodes emit nothing; the softmax
itself is emitted as SOFTMAX (by its own builder) only if something outside
the unit reads it.
"""

from __future__ import annotations

import torch

from ..graph import permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_units import MaskedSoftmaxUnit
from .node_builder import UnitBuilder
from .registry import register_unit_builder

_FLT_MAX = float(torch.finfo(torch.float32).max)
_FLT_MIN = float(torch.finfo(torch.float32).tiny)


@register_unit_builder
class MaskedSoftmaxBuilder(UnitBuilder):
    """where(all -inf, 0, softmax(x)) -> REDUCE_MAX, MAXIMUM, SUB, EXP, REDUCE_SUM, MAXIMUM, DIV."""

    unit = MaskedSoftmaxUnit
    since = FeatureLevel.ANDROID_10  # REDUCE_MAX, MAXIMUM, EXP, REDUCE_SUM
    what = "masked softmax (REDUCE_MAX, EXP, REDUCE_SUM)"

    def define(self, unit: MaskedSoftmaxUnit, lc: LoweringContext) -> None:
        """The masked softmax as the value of ``unit.where``, in the input's dim order."""
        node = unit.where
        g = lc.graph
        x = unit.input
        order = lc.order(x)
        axis = order.index(unit.dim)
        dims = permute_shape(lc.shape(x), order)
        reduced = [1 if i == axis else d for i, d in enumerate(dims)]
        x_op = lc.operand(x, order)
        axes, keep, no_fuse = g.emit_int32_vector([axis]), g.emit_bool(True), g.emit_int32(int(FuseCode.NONE))
        steps = iter(range(1, 10))

        def op(code: OperationCode, inputs: list[int], shape, out: int | None = None) -> int:
            out = g.emit_tensor(shape, debug_name=f"{node.name}.{next(steps)}") if out is None else out
            g.emit_operation(code, inputs, [out], debug_name=node.name)
            return out

        def const(value: float) -> int:
            return g.emit_constant_tensor(torch.tensor([value], dtype=torch.float32))

        row_max = op(OperationCode.REDUCE_MAX, [x_op, axes, keep], reduced)
        row_max = op(OperationCode.MAXIMUM, [row_max, const(-_FLT_MAX)], reduced)
        shifted = op(OperationCode.SUB, [x_op, row_max, no_fuse], dims)
        exps = op(OperationCode.EXP, [shifted], dims)
        total = op(OperationCode.REDUCE_SUM, [exps, axes, keep], reduced)
        total = op(OperationCode.MAXIMUM, [total, const(_FLT_MIN)], reduced)
        op(OperationCode.DIV, [exps, total, no_fuse], dims, out=lc.emit_output(node, order))
