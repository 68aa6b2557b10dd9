"""ARGMAX (39) and ARGMIN (40): index of the largest / smallest element along one axis.

Inputs: 0 tensor (F16, F32, I32T, QA8 since 29; QA8S since 30), rank 1..4, non-empty; 1 INT32 axis in
[-n, n). Output TENSOR_INT32 of the input's shape without the axis ([1] for a rank-1 input). Ties give
the first index, as TFLite's reference kernel (strict comparison) does; quantized inputs compare codes,
which order like the values they stand for.
"""

from __future__ import annotations

from typing import Callable

import torch

from ..operand_types import INT32
from .common import FLOAT_INT_QUANT_29, I32T, Ctx, OperationDef


def validate_arg_reduce(c: Ctx) -> None:
    c.counts((2,))
    c.tensor(0, FLOAT_INT_QUANT_29)
    c.scalar(1, INT32, "axis")
    c.out_is(0, I32T)
    dims = c.dims(0)
    c.max_rank(0)
    if 0 in dims:
        c.fail(f"input 0 is empty (shape {list(dims)})")
    axis = c.axis(c.value(1, "axis"), len(dims))
    c.p.axis = axis
    c.p.out_shape = tuple(d for i, d in enumerate(dims) if i != axis) or (1,)
    c.set_out(0, c.p.out_shape)


def _arg_reduce(name: str, code: int, fn: Callable) -> OperationDef:
    def compute(ins, p):
        x = ins[0]
        if not x.is_floating_point():
            x = x.to(torch.int64)  # uint8 / int8 / int32 codes: compare as integers
        return [fn(x, p.axis).to(torch.int32).reshape(p.out_shape)]

    return OperationDef(name, code, 29, validate_arg_reduce, compute, QUANT_COMPUTE=True)


OPERATIONS: tuple[OperationDef, ...] = (
    _arg_reduce("ARGMAX", 39, lambda x, axis: torch.argmax(x, axis)),
    _arg_reduce("ARGMIN", 40, lambda x, axis: torch.argmin(x, axis)),
)
