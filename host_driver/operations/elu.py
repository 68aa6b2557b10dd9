"""ELU (98): max(0, x) + min(0, alpha * (exp(x) - 1))."""

import torch

from .common import F16, F32, Ctx

NAME, CODE, SINCE = "ELU", 98, 30
QUANT_COMPUTE = False
TYPES = {F32: 30, F16: 30}


def validate(c: Ctx) -> None:
    c.counts((2,))
    c.tensor(0, TYPES)
    c.float_scalar_for(1, 0, "alpha")
    c.out_like(0, 0)
    c.p.alpha = float(c.value(1, "alpha"))
    c.set_out(0, c.dims(0))


def compute(ins, p):
    return [torch.nn.functional.elu(ins[0], p.alpha)]
