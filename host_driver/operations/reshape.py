"""RESHAPE (22): new shape from a 1-D TENSOR_INT32 (at most one -1)."""

import math

from .common import F16, F32, FL6, I32T, QA8, QA8S, Ctx

NAME, CODE, SINCE = "RESHAPE", 22, 27
QUANT_COMPUTE = True  # data movement only
TYPES = {F32: 27, QA8: 27, F16: 29, QA8S: 30, I32T: FL6}  # TENSOR_INT32 from feature level 6


def validate(c: Ctx) -> None:
    c.counts((2,))
    c.tensor(0, TYPES)
    c.tensor(1, {I32T: 27}, "shape")
    c.out_like(0, 0)
    shape = c.ints(1, "shape")
    c.max_rank(0)
    if len(c.dims(1)) != 1:
        c.fail(f"input 1 (shape) must be 1-D, got shape {list(c.dims(1))}")
    if len(shape) > 4:
        c.fail(f"the new shape {shape} has rank {len(shape)}; at most 4 is supported")
    numel = math.prod(c.dims(0))
    if shape.count(-1) > 1 or any(d == 0 or d < -1 for d in shape):
        c.fail(f"input 1 (shape) {shape} must hold positive sizes and at most one -1")
    known = math.prod(d for d in shape if d != -1)
    if -1 in shape:
        if numel % known:
            c.fail(f"cannot reshape {list(c.dims(0))} ({numel} elements) to {shape}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        c.fail(f"cannot reshape {list(c.dims(0))} ({numel} elements) to {shape} ({known} elements)")
    c.p.shape = tuple(shape)
    c.set_out(0, shape)


def compute(ins, p):
    return [ins[0].reshape(p.shape)]


def compute_view(ins, p):
    """A contiguous input's free view, taken before the driver lends compute_into a buffer (a
    buffer taken and given back costs a step several microseconds: a language model's decode step
    runs hundreds of reshapes); None otherwise."""
    x = ins[0]
    return [x.view(p.shape)] if x.is_contiguous() else None


def compute_into(ins, p, outs) -> bool:
    """The copy reshape makes of a tensor it cannot view (e.g. TRANSPOSE's permuted result)."""
    x = ins[0]
    try:
        x.view(p.shape)
        return False  # compute's reshape is this free view
    except RuntimeError:
        pass
    outs[0].view(x.shape).copy_(x)
    return True
