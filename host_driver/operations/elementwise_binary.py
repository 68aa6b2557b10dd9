"""The broadcasting element-wise binary operations (docs/nnapi_facts.md §7.5): one table row each.

Adding such an operation is one row of `OPERATIONS`.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch

from ..operand_types import INT32
from . import _qkernels as qk
from .common import (
    F16, F32, FLOAT_INT_QUANT_29, FLOAT_ONLY_29, FLOAT_QUANT_29, I32T, QA8, QA8S, Ctx, OperationDef, activate_,
    all_contiguous, broadcast_dims, fuse_code,
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
            max_rank: int | None = None, check: Optional[Callable[[Ctx], None]] = None,
            quant: Optional[tuple[Callable[[Ctx], None], Callable]] = None,
            into: Optional[Callable[[torch.Tensor, torch.Tensor, torch.Tensor], bool]] = None) -> OperationDef:
    """An operation computing fn(a, b), then the fused activation if it has one.

    `quant`: (derive the integer parameters in validate, integer kernel) for 8-bit inputs.
    `into`: into(a, b, out) writes fn(a, b) into out and returns True, or returns False.
    """

    def validate(c: Ctx) -> None:
        c.p.quant = quant is not None and c.type(0) in (QA8, QA8S) and c.type(1) == c.type(0)
        if c.p.quant:
            quant[0](c)  # needs only the scales: refused at addOperation already
        validate_binary(c, types, fused=fused, max_rank=max_rank)
        if check is not None:
            check(c)
        if c.p.quant:
            qk.binary_clamp_range(c)

    def compute(ins, p):
        if p.quant:
            return [quant[1](ins[0], ins[1], p)]
        return [activate_(fn(ins[0], ins[1]), p.act)]

    def compute_into(ins, p, outs) -> bool:
        if p.quant or not all_contiguous(ins) or not into(ins[0], ins[1], outs[0]):
            return False
        activate_(outs[0], p.act)
        return True

    return OperationDef(name, code, since, validate, compute, QUANT_COMPUTE=quant is not None,
                        compute_into=None if into is None else compute_into)


def _div(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Floor division for TENSOR_INT32 (its fused activation is always NONE).

    NNAPI leaves division by zero undefined; Android's reference gives 0 (and does not fail),
    and so does the driver.
    """
    if a.dtype != torch.int32:
        return torch.div(a, b)
    zero = b == 0
    if not bool(zero.any()):
        return torch.div(a, b, rounding_mode="floor")
    quotient = torch.div(a, torch.where(zero, 1, b), rounding_mode="floor")
    return torch.where(zero, 0, quotient).to(torch.int32)


def _into(fn: Callable) -> Callable[[torch.Tensor, torch.Tensor, torch.Tensor], bool]:
    """fn(a, b, out=out): the same kernel as fn(a, b)."""

    def into(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> bool:
        fn(a, b, out=out)
        return True

    return into


def _div_into(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> bool:
    """Float division only: the integer one floors and maps zero divisors to 0 (`_div`)."""
    if a.dtype == torch.int32:
        return False
    torch.div(a, b, out=out)
    return True


def _prelu(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """x if x >= 0 else alpha * x, alpha broadcast against x."""
    return torch.where(x >= 0, x, x * alpha)


OPERATIONS: tuple[OperationDef, ...] = (
    _binary("ADD", 0, 27, {F32: 27, QA8: 27, F16: 29, QA8S: 30, I32T: 30}, torch.add, fused=True, max_rank=4,
            quant=(lambda c: qk.requant_add(c, negate_second=False), qk.qadd), into=_into(torch.add)),
    _binary("SUB", 36, 28, {F32: 28, F16: 29, QA8: 29, QA8S: 30, I32T: 30}, torch.sub, fused=True, max_rank=4,
            quant=(lambda c: qk.requant_add(c, negate_second=True), qk.qadd), into=_into(torch.sub)),
    # MUL's quantized output scale must exceed the product of the input scales (multiplier < 1).
    _binary("MUL", 18, 27, {F32: 27, QA8: 27, F16: 29, QA8S: 30, I32T: 30}, torch.mul, fused=True, max_rank=4,
            quant=(qk.requant_mul, qk.qmul), into=_into(torch.mul)),
    _binary("DIV", 30, 28, {F32: 28, F16: 29, I32T: 30}, _div, fused=True, max_rank=4, into=_div_into),
    # Quantized MAXIMUM / MINIMUM requantize both inputs to the output's parameters first.
    _binary("MAXIMUM", 65, 29, FLOAT_INT_QUANT_29, torch.maximum,
            quant=(lambda c: qk.requant_to_output(c, (0, 1)), qk.qmaximum), into=_into(torch.maximum)),
    _binary("MINIMUM", 66, 29, FLOAT_INT_QUANT_29, torch.minimum,
            quant=(lambda c: qk.requant_to_output(c, (0, 1)), qk.qminimum), into=_into(torch.minimum)),
    _binary("POW", 70, 29, FLOAT_ONLY_29, torch.pow, into=_into(torch.pow)),
    _binary("PRELU", 71, 29, FLOAT_QUANT_29, _prelu, quant=(qk.requant_prelu, qk.qprelu)),
)
