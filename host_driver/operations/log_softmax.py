"""LOG_SOFTMAX (64): x * beta - log(sum(exp(x * beta))) along an axis."""

import torch

from ..operand_types import INT32
from .common import FLOAT_ONLY_29, Ctx

NAME, CODE, SINCE = "LOG_SOFTMAX", 64, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    c.counts((3,))
    c.tensor(0, FLOAT_ONLY_29)
    c.float_scalar_for(1, 0, "beta")
    c.scalar(2, INT32, "axis")
    c.out_like(0, 0)
    beta = float(c.value(1, "beta"))
    if not beta > 0:
        c.fail(f"input 1 (beta) must be > 0, got {beta}")
    c.p.beta = beta
    c.p.axis = c.axis(c.value(2, "axis"), c.rank(0))
    c.set_out(0, c.dims(0))


def compute(ins, p):
    x = ins[0]
    if p.beta != 1.0:
        x = x * p.beta
    return [torch.log_softmax(x, p.axis)]
