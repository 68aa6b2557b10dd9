"""STRIDED_SLICE (35): TensorFlow-style strided slice with begin/end/shrink-axis masks."""

import torch

from ..operand_types import INT32
from .common import F16, F32, FINISH, I32T, QA8, QA8S, Ctx, Deferred

NAME, CODE, SINCE = "STRIDED_SLICE", 35, 28
QUANT_COMPUTE = True  # data movement only
TYPES = {F32: 28, QA8: 28, F16: 29, QA8S: 30}


def _clamped_index(index: int, dim: int, positive_stride: bool) -> int:
    """Where a begin/end value lands (the TFLite strided-slice index rule)."""
    if positive_stride:
        if index >= dim:
            return dim
        return min(max(index, -dim), dim) % dim if dim else 0
    if index < -dim:
        return -1
    return min(max(index, -dim), dim - 1) % dim


def _fail_at_execution(c: Ctx, msg: str) -> None:
    """A rule Android checks only when the operation is prepared for execution (StridedSlice.cpp
    prepare; its validate() reads no values): its Model_finish accepts such a model, and CTS asserts
    that it does, so the driver leaves it to execution too, even when the values are constants."""
    if c.stage == FINISH:
        raise Deferred
    c.fail(msg)


def validate(c: Ctx) -> None:
    c.counts((7,))
    c.tensor(0, TYPES)
    for i, name in ((1, "begin"), (2, "end"), (3, "strides")):
        c.tensor(i, {I32T: 28}, name)
    for i, name in ((4, "begin_mask"), (5, "end_mask"), (6, "shrink_axis_mask")):
        c.scalar(i, INT32, name)
    c.out_like(0, 0)
    begin, end, strides = c.ints(1, "begin"), c.ints(2, "end"), c.ints(3, "strides")
    begin_mask, end_mask, shrink = c.value(4), c.value(5), c.value(6)
    r = c.max_rank(0)
    dims = c.dims(0)
    if not len(begin) == len(end) == len(strides) == r:
        c.fail(f"begin {begin}, end {end} and strides {strides} must have {r} entries each")
    index, out = [], []
    for k in range(r):
        d, s = dims[k], strides[k]
        if s == 0:
            c.fail(f"stride of dimension {k} is 0")
        pos = s > 0
        b = (0 if pos else d - 1) if begin_mask >> k & 1 else _clamped_index(begin[k], d, pos)
        e = (d if pos else -1) if end_mask >> k & 1 else _clamped_index(end[k], d, pos)
        n = max(0, -(-(e - b) // s))  # ceil((e - b) / s)
        if shrink >> k & 1:
            if s < 0:
                _fail_at_execution(c, f"dimension {k} is shrunk (shrink_axis_mask) but its stride {s} "
                                      "is negative; a shrunk dimension needs a positive stride")
            if n != 1:
                _fail_at_execution(c, f"dimension {k} is shrunk but its slice has {n} elements, not 1")
        else:
            out.append(n)
        index.append((b, s, n))
    c.p.index = tuple(index)
    c.p.simple = all(s > 0 for _, s, _ in index)
    c.p.out_shape = tuple(out) if out else (1,)
    if any(n == 0 for _, _, n in index):
        c.fail(f"the slice is empty (shape {[n for _, _, n in index]})")
    c.set_out(0, c.p.out_shape)


def compute(ins, p):
    x = ins[0]
    if p.simple:
        y = x[tuple(slice(b, b + s * n, s) for b, s, n in p.index)]
    else:
        y = x
        for k, (b, s, n) in enumerate(p.index):
            y = torch.index_select(y, k, torch.arange(b, b + s * n, s)[:n])
    return [y.reshape(p.out_shape)]
