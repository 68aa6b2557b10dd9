"""CONCATENATION (2): join tensors along a non-negative axis (the last input)."""

import torch

from ..operand_types import INT32, QUANTIZED
from . import _qkernels as qk
from .common import FLOAT_QUANT, QA8, Ctx

NAME, CODE, SINCE = "CONCATENATION", 2, 27
QUANT_COMPUTE = True  # inputs quantized like the output are copied, the others requantized (docs/nnapi_facts.md §9.9)


def validate(c: Ctx) -> None:
    if c.n_in < 2:
        c.fail(f"expects at least 2 inputs (tensors and the axis), got {c.n_in}")
    c.counts((c.n_in,), (1,))
    n = c.n_in - 1
    c.tensor(0, FLOAT_QUANT)
    for i in range(1, n):
        c.same_type(i, 0)
    c.scalar(n, INT32, "axis")
    c.out_like(0, 0, same_q=False)
    out = c.out_operand(0)
    same_q = all((c.operand(i).scale, c.operand(i).zero_point) == (out.scale, out.zero_point) for i in range(n))
    if c.type(0) == QA8 and c.level < 29 and not same_q:
        c.fail("below feature level 29 every TENSOR_QUANT8_ASYMM input must have the output's scale/zeroPoint")
    c.p.requantize = c.type(0) in QUANTIZED and not same_q
    axis = c.value(n, "axis")
    r = c.max_rank(0)
    if not 0 <= axis < r:
        c.fail(f"input {n} (axis) must be in [0, {r}) (the reference rejects negative axes), got {axis}")
    first = c.dims(0)
    total = 0
    for i in range(n):
        d = c.dims(i)
        if len(d) != r or any(a != b for k, (a, b) in enumerate(zip(d, first)) if k != axis):
            c.fail(f"input {i} has shape {list(d)}, which differs from input 0's {list(first)} "
                   f"outside axis {axis}")
        total += d[axis]
    c.p.axis = axis
    c.set_out(0, (*first[:axis], total, *first[axis + 1:]))


def compute(ins, p):
    if p.requantize:
        return [qk.qconcat(ins[:-1], p.in_q[:-1], p.out_q[0], p.axis)]
    return [torch.cat(ins[:-1], p.axis)]
