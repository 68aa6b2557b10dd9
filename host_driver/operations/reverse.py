"""REVERSE (105, feature level 7): reverse one dimension of a tensor of rank 1 to 8."""

from .common import F16, F32, FL7, I32T, QA8, QA8S, Ctx

NAME, CODE, SINCE = "REVERSE", 105, FL7
QUANT_COMPUTE = True  # data movement only (output keeps the input's scale / zeroPoint)
TYPES = {F32: FL7, F16: FL7, QA8: FL7, QA8S: FL7, I32T: FL7}


def validate(c: Ctx) -> None:
    c.counts((2,))
    c.tensor(0, TYPES)
    c.tensor(1, {I32T: FL7}, "axis")
    c.out_like(0, 0)
    dims = c.dims(0)
    if not 1 <= len(dims) <= 8:
        c.fail(f"input 0 must have rank 1 to 8, got {len(dims)}")
    if c.dims(1) != (1,):
        c.fail(f"input 1 (axis) must have shape [1], got {list(c.dims(1))}")
    axis = c.ints(1, "axis")[0]
    if not 0 <= axis < len(dims):
        c.fail(f"input 1 (axis) must be in [0, {len(dims)}), got {axis}")
    c.p.axis = axis
    c.set_out(0, dims)


def compute(ins, p):
    return [ins[0].flip(p.axis)]
