"""FILL (100): a tensor of the shape given by a 1-D TENSOR_INT32, every element the scalar value."""

import torch

from ..operand_types import FLOAT16, FLOAT32, INT32, type_name
from .common import F16, F32, I32T, Ctx

NAME, CODE, SINCE = "FILL", 100, 30
QUANT_COMPUTE = False
# Output type -> (the value's scalar type, the dtype compute produces; F16 is rounded back by the driver).
_VALUE_TYPE = {F32: (FLOAT32, torch.float32), F16: (FLOAT16, torch.float32), I32T: (INT32, torch.int32)}


def validate(c: Ctx) -> None:
    c.counts((2,))
    c.tensor(0, {I32T: 30}, "shape")
    out = c.out_type(0)
    if out not in _VALUE_TYPE:
        c.fail(f"output 0 has type {type_name(out)}; allowed: "
               + ", ".join(type_name(t) for t in _VALUE_TYPE))
    value_type, c.p.dtype = _VALUE_TYPE[out]
    c.scalar(1, value_type, f"value for a {type_name(out)} output")
    if len(c.dims(0)) != 1:
        c.fail(f"input 0 (shape) must be 1-D, got shape {list(c.dims(0))}")
    shape = c.ints(0, "shape")
    if not shape or any(d <= 0 for d in shape):
        c.fail(f"input 0 (shape) {shape} must hold at least one positive size")
    c.p.shape = tuple(shape)
    c.p.value = c.value(1, "value")
    c.set_out(0, shape)


def compute(ins, p):
    return [torch.full(p.shape, p.value, dtype=p.dtype)]
