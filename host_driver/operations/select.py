"""SELECT (84): out[i] = cond[i] ? x[i] : y[i]; all three of one shape (no broadcasting)."""

import torch

from . import _qkernels as qk
from .common import B8T, FLOAT_INT_QUANT_29, QUANTIZED, Ctx

NAME, CODE, SINCE = "SELECT", 84, 29
QUANT_COMPUTE = True  # requantizes x and y to the output's parameters (AOSP Select.cpp)


def validate(c: Ctx) -> None:
    c.counts((3,))
    c.tensor(0, {B8T: 29}, "condition")
    c.tensor(1, FLOAT_INT_QUANT_29)
    c.same_type(2, 1)
    # Quantized x and y may have their own scale/zeroPoint: AOSP requantizes both to the output's.
    c.out_like(0, 1, same_q=False)
    dims = [c.dims(i) for i in range(3)]
    # AOSP Select.cpp prepare: condition and x must have equal dims, y the same shape as x.
    if not dims[0] == dims[1] == dims[2]:
        c.fail(f"inputs must have the same shape (SELECT does not broadcast), got "
               f"{list(dims[0])}, {list(dims[1])} and {list(dims[2])}")
    c.set_out(0, dims[1])
    c.p.quant = c.type(1) in QUANTIZED
    if c.p.quant:
        qk.requant_to_output(c, (1, 2))


def compute(ins, p):
    x, y = ins[1], ins[2]
    if p.quant:
        x, y = qk.requantize(x, *p.q_in[0], *p.q_out), qk.requantize(y, *p.q_in[1], *p.q_out)
    return [torch.where(ins[0], x, y)]
