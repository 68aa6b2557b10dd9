"""GATHER (51): take index-selected slices along an axis: shape[:axis] + indices.shape + shape[axis+1:]."""

import torch

from ..operand_types import INT32
from .common import FLOAT_INT_QUANT_29, I32T, Ctx

NAME, CODE, SINCE = "GATHER", 51, 29
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    c.counts((3,))
    c.tensor(0, FLOAT_INT_QUANT_29)
    c.scalar(1, INT32, "axis")
    c.tensor(2, {I32T: 29}, "indices")
    c.out_like(0, 0)
    dims = c.dims(0)
    axis = c.axis(c.value(1, "axis"), len(dims))
    idx = c.dims(2)
    c.p.axis, c.p.size = axis, dims[axis]
    const = c.const_tensor(2)
    if const is not None:
        _check(const, dims[axis], c.fail)
    c.p.checked = const is not None
    c.p.out_shape = (*dims[:axis], *idx, *dims[axis + 1:])
    c.set_out(0, c.p.out_shape)


def _check(indices: torch.Tensor, size: int, fail) -> None:
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= size):
        fail(f"indices must be in [0, {size}), got values in [{int(indices.min())}, {int(indices.max())}]")


def _fail(msg: str):
    raise IndexError(f"GATHER: {msg}")


def compute(ins, p):
    x, _, indices = ins
    if not p.checked:
        _check(indices, p.size, _fail)
    return [torch.index_select(x, p.axis, indices.reshape(-1)).reshape(p.out_shape)]
