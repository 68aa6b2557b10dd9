"""MIRROR_PAD (104, feature level 7): pad each dimension with its mirror image, REFLECT (the
border element not repeated, PyTorch's reflection padding) or SYMMETRIC (repeated)."""

import torch

from ..operand_types import INT32
from .common import F16, F32, FL7, I32T, QA8, QA8S, Ctx

NAME, CODE, SINCE = "MIRROR_PAD", 104, FL7
QUANT_COMPUTE = True  # data movement only (output keeps the input's scale / zeroPoint)
TYPES = {F32: FL7, F16: FL7, QA8: FL7, QA8S: FL7, I32T: FL7}
REFLECT, SYMMETRIC = 0, 1


def validate(c: Ctx) -> None:
    c.counts((3,))
    c.tensor(0, TYPES)
    c.tensor(1, {I32T: FL7}, "paddings")
    c.scalar(2, INT32, "mode")
    c.out_like(0, 0)
    dims = c.dims(0)
    if not dims:
        c.fail("input 0 must have rank 1 or more")
    if c.dims(1) != (len(dims), 2):
        c.fail(f"input 1 (paddings) must have shape [{len(dims)}, 2], got {list(c.dims(1))}")
    mode = c.value(2, "mode")
    if mode not in (REFLECT, SYMMETRIC):
        c.fail(f"input 2 (mode) must be 0 (REFLECT) or 1 (SYMMETRIC), got {mode}")
    pads = c.ints(1, "paddings")
    for k, d in enumerate(dims):
        # AOSP's prepare: each pad in [0, dim - 1] for REFLECT, [0, dim] for SYMMETRIC.
        limit = d - (mode == REFLECT)
        for pad in pads[2 * k:2 * k + 2]:
            if not 0 <= pad <= limit:
                c.fail(f"input 1 (paddings): {pad} for dimension {k} of size {d} must be in [0, {limit}] "
                       f"in {'REFLECT' if mode == REFLECT else 'SYMMETRIC'} mode")
    c.p.pads, c.p.mode = pads, mode
    c.set_out(0, [pads[2 * k] + d + pads[2 * k + 1] for k, d in enumerate(dims)])


def compute(ins, p):
    x = ins[0]
    skip = 1 if p.mode == REFLECT else 0
    for k in range(x.dim()):
        before, after = p.pads[2 * k], p.pads[2 * k + 1]
        if not before and not after:
            continue
        size = x.shape[k]
        head = x.narrow(k, skip, before).flip(k)
        tail = x.narrow(k, size - skip - after, after).flip(k)
        x = torch.cat([head, x, tail], k)
    return [x]
