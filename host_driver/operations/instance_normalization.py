"""INSTANCE_NORMALIZATION (57): (x - mean) * gamma / sqrt(var + eps) + beta per batch and channel."""

import torch

from .common import FLOAT_ONLY_29, Ctx, layout_flag, layout_value

NAME, CODE, SINCE = "INSTANCE_NORMALIZATION", 57, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    c.counts((5,))
    c.tensor(0, FLOAT_ONLY_29)
    for i, name in ((1, "gamma"), (2, "beta"), (3, "epsilon")):
        c.float_scalar_for(i, 0, name)
    layout_flag(c, 4, required=True)
    c.out_like(0, 0)
    c.p.gamma, c.p.beta, c.p.eps = (float(c.value(i)) for i in (1, 2, 3))
    c.p.nchw = layout_value(c, 4)
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    c.p.dims = (2, 3) if c.p.nchw else (1, 2)
    c.set_out(0, c.dims(0))


def compute(ins, p):
    x = ins[0]
    var, mean = torch.var_mean(x, dim=p.dims, keepdim=True, correction=0)
    return [(x - mean) * (p.gamma * torch.rsqrt(var + p.eps)) + p.beta]
