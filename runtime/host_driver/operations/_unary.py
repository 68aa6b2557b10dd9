"""Shared validation of the one-input, same-shape operations."""

from __future__ import annotations

import math

import torch

from .common import QA8, QA8S, Ctx


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
    """Code range of a real clamp [lo, hi] (reference §7.5, float32 division)."""
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
