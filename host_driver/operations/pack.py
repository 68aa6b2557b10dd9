"""PACK (103, feature level 6): stack N tensors of one shape along a new axis (torch.stack)."""

import torch

from ..operand_types import INT32
from .common import F16, F32, FL6, I32T, QA8, QA8S, Ctx

NAME, CODE, SINCE = "PACK", 103, FL6
QUANT_COMPUTE = True  # data movement only: every input has the output's scale / zeroPoint
TYPES = {F32: FL6, F16: FL6, QA8: FL6, QA8S: FL6, I32T: FL6}


def validate(c: Ctx) -> None:
    if c.n_in < 2:
        c.fail(f"expects the axis and at least 1 tensor, got {c.n_in} inputs")
    c.counts((c.n_in,))
    c.scalar(0, INT32, "axis")
    c.tensor(1, TYPES)
    for i in range(2, c.n_in):
        c.same_type(i, 1)
    for i in range(1, c.n_in):
        # AOSP checks every input against the output: same type, scale and zeroPoint.
        c.out_like(0, i)
    first = c.dims(1)
    if not first:
        c.fail("input 1 must have rank 1 or more")
    for i in range(2, c.n_in):
        if c.dims(i) != first:
            c.fail(f"input {i} has shape {list(c.dims(i))}, input 1 has {list(first)}: all must be equal")
    axis = c.value(0, "axis")
    if not 0 <= axis <= len(first):
        c.fail(f"input 0 (axis) must be in [0, {len(first) + 1}), got {axis}")
    c.p.axis = axis
    c.set_out(0, (*first[:axis], c.n_in - 1, *first[axis:]))


def compute(ins, p):
    return [torch.stack(ins[1:], p.axis)]
