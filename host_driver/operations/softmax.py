"""SOFTMAX (25): exp((x - max) * beta) / sum along an axis (default -1)."""

import torch

from ..operand_types import INT32
from . import _qkernels as qk
from .common import FLOAT_QUANT, QA8, QA8S, Ctx

NAME, CODE, SINCE = "SOFTMAX", 25, 27
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    c.counts((2, 3))
    c.tensor(0, FLOAT_QUANT)
    c.float_scalar_for(1, 0, "beta")
    if c.n_in == 3:
        c.scalar(2, INT32, "axis")
        c.require_level(29, "the axis input")
    c.out_like(0, 0, same_q=False)
    c.out_fixed_q(0, {QA8: (1 / 256, 0), QA8S: (1 / 256, -128)})
    r = c.max_rank(0)
    if r not in (2, 4):
        c.require_level(29, f"rank {r} input")
    beta = float(c.value(1, "beta"))
    if not beta > 0:
        c.fail(f"input 1 (beta) must be > 0, got {beta}")
    c.p.beta = beta
    c.p.axis = c.axis(c.value(2, "axis"), r) if c.n_in == 3 else r - 1
    c.p.quant = c.type(0) in (QA8, QA8S)
    if c.p.quant:
        qk.requant_softmax(c, beta)
    c.set_out(0, c.dims(0))


def compute(ins, p):
    if p.quant:
        return [qk.qsoftmax(ins[0], p, p.axis)]
    x = ins[0]
    if p.beta != 1.0:
        x = x * p.beta
    return [torch.softmax(x, p.axis)]


def compute_into(ins, p, outs) -> bool:
    x = ins[0]
    if p.quant or not x.is_contiguous():
        return False
    if p.beta != 1.0:
        x = x * p.beta
    torch.softmax(x, p.axis, out=outs[0])
    return True
