"""LOCAL_RESPONSE_NORMALIZATION (13): x / (bias + alpha * sum of x^2 over [d - radius, d + radius]
of the axis)^beta (NNAPI does not divide alpha by the window size, unlike PyTorch)."""

import torch

from .common import F16, F32, INT32, Ctx

NAME, CODE, SINCE = "LOCAL_RESPONSE_NORMALIZATION", 13, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29}


def validate(c: Ctx) -> None:
    c.counts((5, 6))
    c.tensor(0, TYPES)
    c.scalar(1, INT32, "radius")
    for i, what in ((2, "bias"), (3, "alpha"), (4, "beta")):
        c.float_scalar_for(i, 0, what)
    if c.n_in == 6:
        c.scalar(5, INT32, "axis")
        c.require_level(29, "the axis input")
    c.out_like(0, 0)
    rank = c.max_rank(0)
    if rank != 4:
        c.require_level(29, f"rank {rank} input")
    radius = c.value(1, "radius")
    if radius < 0:
        c.fail(f"input 1 (radius) must be >= 0, got {radius}")
    c.p.radius = radius
    c.p.bias, c.p.alpha, c.p.beta = (float(c.value(i)) for i in (2, 3, 4))
    c.p.axis = c.axis(c.value(5, "axis"), rank) if c.n_in == 6 else rank - 1
    c.set_out(0, c.dims(0))


def compute(ins, p):
    x = ins[0].movedim(p.axis, -1)
    r = p.radius
    sq = torch.nn.functional.pad(x * x, (r, r))
    sums = sq.unfold(-1, 2 * r + 1, 1).sum(-1)
    out = x * torch.pow(p.bias + p.alpha * sums, -p.beta)
    return [out.movedim(-1, p.axis).contiguous()]
