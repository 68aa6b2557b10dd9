"""L2_NORMALIZATION (11): x / sqrt(sum(x^2)) along an axis (default -1); all-zero vectors give 0."""

import torch

from ..operand_types import INT32
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "L2_NORMALIZATION", 11, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29, QA8: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    c.counts((1, 2))
    c.tensor(0, TYPES)
    if c.n_in == 2:
        c.scalar(1, INT32, "axis")
        c.require_level(29, "the axis input")
    c.out_like(0, 0, same_q=False)
    c.out_fixed_q(0, {QA8: (1 / 128, 128), QA8S: (1 / 128, 0)})
    r = c.max_rank(0)
    if r != 4:
        c.require_level(29, f"rank {r} input")
    c.p.axis = c.axis(c.value(1, "axis"), r) if c.n_in == 2 else r - 1
    c.set_out(0, c.dims(0))


def compute(ins, p):
    x = ins[0]
    sq = torch.sum(x * x, dim=p.axis, keepdim=True)
    inv = torch.where(sq > 0, torch.rsqrt(sq), torch.zeros_like(sq))
    return [x * inv]
