"""BATCH_MATMUL (102): batched matrix product with optional adjoint (transpose) of either input."""

import torch

from .common import BOOL, F16, F32, FL6, I32T, QA8S, Ctx

NAME, CODE, SINCE = "BATCH_MATMUL", 102, FL6
QUANT_COMPUTE = False
TYPES = {F32: FL6, F16: FL6, QA8S: FL6, I32T: FL6}


def validate(c: Ctx) -> None:
    # The header calls adj_x / adj_y optional, but AOSP's validation (BatchMatmul.cpp) wants
    # exactly 4 inputs: a strict device refuses 2 or 3.
    if c.n_in in (2, 3):
        c.fail(f"expects 4 inputs (adj_x and adj_y are required by Android's validation, though the "
               f"header calls them optional), got {c.n_in}")
    c.counts((4,))
    c.tensor(0, TYPES)
    c.same_type(1, 0)
    for i, name in ((2, "adj_x"), (3, "adj_y")):
        c.scalar(i, BOOL, name)
    c.out_like(0, 0, same_q=False)
    adj = [not c.omitted(i) and bool(c.value(i)) for i in (2, 3)]
    c.p.adj_x, c.p.adj_y = adj
    a, b = c.dims(0), c.dims(1)
    if not 2 <= len(a) <= 4 or len(a) != len(b):
        c.fail(f"inputs must have the same rank, 2 to 4; got {list(a)} and {list(b)}")
    if a[:-2] != b[:-2]:
        c.fail(f"batch dimensions differ: {list(a[:-2])} vs {list(b[:-2])}")
    rx, cx = (a[-1], a[-2]) if adj[0] else (a[-2], a[-1])
    ry, cy = (b[-1], b[-2]) if adj[1] else (b[-2], b[-1])
    if cx != ry:
        c.fail(f"inner dimensions differ: {cx} vs {ry} (shapes {list(a)}, {list(b)}, adj_x={adj[0]}, adj_y={adj[1]})")
    c.set_out(0, (*a[:-2], rx, cy))


def compute(ins, p):
    x, y = ins[0], ins[1]
    if p.adj_x:
        x = x.transpose(-1, -2)
    if p.adj_y:
        y = y.transpose(-1, -2)
    return [torch.matmul(x, y)]
