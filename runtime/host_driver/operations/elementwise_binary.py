"""The broadcasting element-wise binary operations (reference §6.7): one table row each.

Adding such an operation is one row of `OPERATIONS`.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch

from ..operand_types import INT32
from .common import (
    F16, F32, FLOAT_INT_QUANT_29, FLOAT_ONLY_29, FLOAT_QUANT_29, I32T, QA8, QA8S, Ctx, OperationDef, activate_,
    broadcast_dims, fuse_code,
)


def validate_binary(c: Ctx, types: dict[int, int], *, fused: bool, max_rank: int | None = 4,
                    same_q: bool = False, out_type: Optional[int] = None) -> None:
    """Inputs 0 and 1 (same type, broadcast-compatible), optional FuseCode input 2, one output.

    The output has input 0's type, or `out_type` when given (TENSOR_BOOL8 for comparisons).
    """
    c.counts((3,) if fused else (2,))
    c.tensor(0, types)
    c.same_type(1, 0)
    if fused:
        c.scalar(2, INT32, "fused activation")
    if out_type is None:
        c.out_like(0, 0, same_q=same_q)
    else:
        c.out_is(0, out_type)
    for i in (0, 1):
        if max_rank is not None:
            c.max_rank(i, max_rank)
    c.p.act = fuse_code(c, 2) if fused else 0
    c.set_out(0, broadcast_dims(c, c.dims(0), c.dims(1)))


def _binary(name: str, code: int, since: int, types: dict[int, int], fn: Callable, *, fused: bool = False,
            max_rank: int | None = None, check: Optional[Callable[[Ctx], None]] = None) -> OperationDef:
    """An operation computing fn(a, b), then the fused activation if it has one."""

    def validate(c: Ctx) -> None:
        validate_binary(c, types, fused=fused, max_rank=max_rank)
        if check is not None:
            check(c)

    def compute(ins, p):
        return [activate_(fn(ins[0], ins[1]), p.act)]

    return OperationDef(name, code, since, validate, compute)


def _mul_output_scale(c: Ctx) -> None:
    # AOSP rejects QA8 MUL unless output_scale > input1_scale * input2_scale.
    if c.type(0) == QA8:
        s1, s2, so = c.operand(0).scale, c.operand(1).scale, c.out_operand(0).scale
        if not so > s1 * s2:
            c.fail(f"output scale {so:g} must be greater than input scales' product {s1 * s2:g}")


def _div(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Floor division for TENSOR_INT32 (its fused activation is always NONE)."""
    if a.dtype != torch.int32:
        return torch.div(a, b)
    if bool((b == 0).any()):
        raise ZeroDivisionError("DIV: integer division by zero")
    return torch.div(a, b, rounding_mode="floor")


def _prelu(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """x if x >= 0 else alpha * x, alpha broadcast against x."""
    return torch.where(x >= 0, x, x * alpha)


OPERATIONS: tuple[OperationDef, ...] = (
    _binary("ADD", 0, 27, {F32: 27, QA8: 27, F16: 29, QA8S: 30, I32T: 30}, torch.add, fused=True, max_rank=4),
    _binary("SUB", 36, 28, {F32: 28, F16: 29, QA8: 29, QA8S: 30, I32T: 30}, torch.sub, fused=True, max_rank=4),
    _binary("MUL", 18, 27, {F32: 27, QA8: 27, F16: 29, QA8S: 30, I32T: 30}, torch.mul, fused=True, max_rank=4,
            check=_mul_output_scale),
    _binary("DIV", 30, 28, {F32: 28, F16: 29, I32T: 30}, _div, fused=True, max_rank=4),
    _binary("MAXIMUM", 65, 29, FLOAT_INT_QUANT_29, torch.maximum),
    _binary("MINIMUM", 66, 29, FLOAT_INT_QUANT_29, torch.minimum),
    _binary("POW", 70, 29, FLOAT_ONLY_29, torch.pow),
    _binary("PRELU", 71, 29, FLOAT_QUANT_29, _prelu),
)
