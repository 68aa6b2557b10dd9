"""The one-input, same-shape element-wise operations: one table row each.

Adding such an operation is one row of `_UNARY` (or `_CLAMPS` for a clamp of the codes).
"""

from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn.functional as F

from . import _qkernels as qk
from .common import B8T, F16, F32, FLOAT_QUANT, I32T, QA8, QA8S, Ctx, OperationDef

_FLOAT_29 = {F32: 29, F16: 29}

# (name, code, since, types, torch function, validate_unary options). Rank: AOSP checks <= 4 only
# where max_rank is given; TANH/LOGISTIC quantized outputs have a fixed scale/zeroPoint.
_UNARY = (
    ("ABS", 38, 29, {F32: 29, F16: 29, I32T: 30}, torch.abs, {}),
    ("NEG", 67, 29, {F32: 29, F16: 29, I32T: 29}, torch.neg, {}),
    ("EXP", 49, 29, _FLOAT_29, torch.exp, {}),
    ("LOG", 60, 29, _FLOAT_29, torch.log, {}),
    ("SIN", 85, 29, _FLOAT_29, torch.sin, {}),
    ("SQRT", 88, 29, _FLOAT_29, torch.sqrt, {}),
    ("RSQRT", 83, 29, _FLOAT_29, torch.rsqrt, {}),
    ("FLOOR", 8, 27, {F32: 27, F16: 29}, torch.floor, {"max_rank": 4}),
    ("TANH", 28, 27, {F32: 27, F16: 29, QA8: 29, QA8S: 30}, torch.tanh,
     {"max_rank": 4, "fixed_q": {QA8: (1 / 128, 128), QA8S: (1 / 128, 0)}}),
    ("LOGISTIC", 14, 27, FLOAT_QUANT, torch.sigmoid,
     {"max_rank": 4, "fixed_q": {QA8: (1 / 256, 0), QA8S: (1 / 256, -128)}}),
    ("HARD_SWISH", 99, 30, {F32: 30, F16: 30, QA8: 30, QA8S: 30}, F.hardswish, {"same_q": False}),
    ("LOGICAL_NOT", 62, 29, {B8T: 29}, torch.logical_not, {}),
)

# Rows whose torch function has no out= variant.
_NO_OUT = {"HARD_SWISH"}

# (name, code, lower, upper): clamps available since 27; quantized inputs clamp their codes
# with the input's scale/zeroPoint (docs/nnapi_facts.md §9.5).
_CLAMPS = (
    ("RELU", 19, 0.0, None),
    ("RELU1", 20, -1.0, 1.0),
    ("RELU6", 21, 0.0, 6.0),
)


def validate_unary(c: Ctx, types: dict[int, int], *, max_rank: int | None = None,
                   same_q: bool = True, fixed_q: dict | None = None, n_in: int = 1) -> None:
    """Input 0 (a tensor of `types`), output 0 of the same type and shape."""
    c.counts((n_in,))
    c.tensor(0, types)
    c.out_like(0, 0, same_q=same_q and fixed_q is None)
    if fixed_q:
        c.out_fixed_q(0, fixed_q)
    if max_rank is not None:
        c.max_rank(0, max_rank)
    c.set_out(0, c.dims(0))


def _round_half_away(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def quant_clamp_range(scale: float, zero_point: int, dtype: torch.dtype, lo: float | None,
                      hi: float | None) -> tuple[int, int]:
    """Code range of a real clamp [lo, hi] (docs/nnapi_facts.md §9.5, float32 division)."""
    qmin, qmax = (0, 255) if dtype == torch.uint8 else (-128, 127)
    s = torch.tensor(scale, dtype=torch.float32)

    def q(f: float) -> int:
        return zero_point + _round_half_away(float(torch.tensor(f, dtype=torch.float32) / s))

    return (qmin if lo is None else max(qmin, q(lo)), qmax if hi is None else min(qmax, q(hi)))


def validate_clamp(c: Ctx, types: dict[int, int], lo: float | None, hi: float | None) -> None:
    """RELU/RELU1/RELU6: for quantized inputs the code range comes from the input's scale/zp."""
    validate_unary(c, types, max_rank=4)
    t = c.type(0)
    if t in (QA8, QA8S):
        op = c.operand(0)
        c.p.qrange = quant_clamp_range(op.scale, op.zero_point, torch.uint8 if t == QA8 else torch.int8, lo, hi)
    c.p.lo, c.p.hi = lo, hi


def compute_clamp(ins, p):
    x = ins[0]
    if x.is_floating_point():
        return [x.clamp(p.lo, p.hi)]
    return [x.clamp(*p.qrange)]


def compute_clamp_into(ins, p, outs) -> bool:
    x = ins[0]
    if not x.is_contiguous():
        return False
    if x.is_floating_point():
        torch.clamp(x, p.lo, p.hi, out=outs[0])
    else:
        torch.clamp(x, *p.qrange, out=outs[0])
    return True


# Operations with 8-bit integer kernels: (derive the parameters in validate, kernel).
_QUANT = {
    "LOGISTIC": (qk.requant_sigmoid_like, qk.qlogistic),
    "TANH": (qk.requant_sigmoid_like, qk.qtanh),
    "HARD_SWISH": (qk.requant_hard_swish, qk.qhard_swish),
}


def _unary(name: str, code: int, since: int, types: dict[int, int], fn: Callable, options: dict) -> OperationDef:
    quant = _QUANT.get(name)

    def validate(c: Ctx) -> None:
        c.p.quant = quant is not None and c.type(0) in (QA8, QA8S)
        validate_unary(c, types, **options)
        if c.p.quant:
            quant[0](c)

    def compute(ins, p):
        if p.quant:
            return [quant[1](ins[0], p)]
        return [fn(ins[0])]

    def compute_into(ins, p, outs) -> bool:
        if p.quant or not ins[0].is_contiguous():
            return False
        fn(ins[0], out=outs[0])
        return True

    return OperationDef(name, code, since, validate, compute, QUANT_COMPUTE=quant is not None,
                        compute_into=None if name in _NO_OUT else compute_into)


def _clamp(name: str, code: int, lo: float | None, hi: float | None) -> OperationDef:
    def validate(c: Ctx) -> None:
        validate_clamp(c, FLOAT_QUANT, lo, hi)

    return OperationDef(name, code, 27, validate, compute_clamp, QUANT_COMPUTE=True,
                        compute_into=compute_clamp_into)


OPERATIONS: tuple[OperationDef, ...] = (*(_unary(*row) for row in _UNARY), *(_clamp(*row) for row in _CLAMPS))
