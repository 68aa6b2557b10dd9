"""SPLIT (87): num_splits equal parts along an axis."""

import torch

from ..operand_types import INT32
from .common import FLOAT_INT_QUANT_29, Ctx

NAME, CODE, SINCE = "SPLIT", 87, 29
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    if c.n_in != 3:
        c.fail(f"expects 3 inputs, got {c.n_in}")
    c.tensor(0, FLOAT_INT_QUANT_29)
    c.scalar(1, INT32, "axis")
    c.scalar(2, INT32, "num_splits")
    for j in range(c.n_out):
        c.out_like(j, 0)
    num = c.value(2, "num_splits")
    if num <= 0 or num != c.n_out:
        c.fail(f"input 2 (num_splits) is {num} but the operation has {c.n_out} outputs")
    dims = c.dims(0)
    axis = c.axis(c.value(1, "axis"), len(dims))
    if dims[axis] % num:
        c.fail(f"dimension {axis} of size {dims[axis]} cannot be split into {num} equal parts")
    c.p.axis, c.p.part = axis, dims[axis] // num
    for j in range(num):
        c.set_out(j, (*dims[:axis], dims[axis] // num, *dims[axis + 1:]))


def compute(ins, p):
    return list(torch.split(ins[0], p.part, p.axis))
