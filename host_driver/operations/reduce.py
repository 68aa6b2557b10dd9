"""MEAN and the REDUCE_* operations (tensor, 1-D axes, keep_dims): one table row each.

Adding such an operation is one row of `OPERATIONS`.
"""

from __future__ import annotations

from typing import Callable

import torch

from ..operand_types import BOOL, INT32
from . import _qkernels as qk
from .common import B8T, F16, F32, FLOAT_ONLY_29, FLOAT_QUANT_29, I32T, QA8, QA8S, Ctx, OperationDef


def validate_reduce(c: Ctx, types: dict[int, int], *, keep_type: int, same_q: bool = True,
                    axes_since: int = 27) -> None:
    """Inputs: tensor, 1-D TENSOR_INT32 axes, keep_dims (INT32 for MEAN, BOOL for REDUCE_*)."""
    c.counts((3,))
    c.tensor(0, types)
    c.tensor(1, {I32T: axes_since}, "axes")
    c.scalar(2, keep_type, "keep_dims")
    c.out_like(0, 0, same_q=same_q)
    keep = c.value(2, "keep_dims")
    keep = keep > 0 if keep_type == INT32 else bool(keep)
    dims = c.dims(0)
    r = c.max_rank(0)
    axes_dims = c.dims(1)
    if len(axes_dims) != 1:
        c.fail(f"input 1 (axes) must be 1-D, got shape {list(axes_dims)}")
    axes = sorted({c.axis(a, r, "axis") for a in c.ints(1, "axes")})
    if not axes:
        c.fail("input 1 (axes) is empty (NNAPI does not define it as 'all axes')")
    out = [1 if i in axes else d for i, d in enumerate(dims)] if keep else \
        [d for i, d in enumerate(dims) if i not in axes]
    c.p.axes, c.p.keep = tuple(axes), keep
    # Reducing every dim without keep_dims gives [1], not a 0-d tensor.
    c.p.out_shape = tuple(out) if out else (1,)
    c.set_out(0, c.p.out_shape)


def _reduce(name: str, code: int, since: int, types: dict[int, int], fn: Callable, *, keep_type: int = BOOL,
            axes_since: int = 29, quant: bool = False, into: bool = False) -> OperationDef:
    """An operation computing fn(x, axes, keepdim), reshaped to NNAPI's output shape.

    `into`: fn takes out= for floating-point inputs (used by compute_into).
    """

    def validate(c: Ctx) -> None:
        validate_reduce(c, types, keep_type=keep_type, axes_since=axes_since)

    def compute(ins, p):
        return [fn(ins[0], p.axes, p.keep).reshape(p.out_shape)]

    def compute_into(ins, p, outs) -> bool:
        x = ins[0]
        if not x.is_floating_point() or not x.is_contiguous():
            return False
        # fn's own result shape: without keep_dims, reducing every axis gives a 0-d tensor.
        shape = p.out_shape if p.keep else tuple(d for i, d in enumerate(x.shape) if i not in p.axes)
        fn(x, p.axes, p.keep, out=outs[0].view(shape))
        return True

    return OperationDef(name, code, since, validate, compute, QUANT_COMPUTE=quant,
                        compute_into=compute_into if into else None)


def _mean(x: torch.Tensor, axes: tuple[int, ...], keep: bool, out: torch.Tensor | None = None) -> torch.Tensor:
    if x.is_floating_point():
        return torch.mean(x, axes, keep, out=out)
    return qk.qmean(x, axes)  # keep_dims only changes the shape, which the caller sets


def _prod(x: torch.Tensor, axes: tuple[int, ...], keep: bool) -> torch.Tensor:
    # torch.prod reduces one dim at a time; go from the last so indices stay valid.
    for a in reversed(axes):
        x = x.prod(dim=a, keepdim=keep)
    return x


OPERATIONS: tuple[OperationDef, ...] = (
    # MEAN's keep_dims is an INT32 (> 0 keeps).
    # Quantized MEAN averages the stored codes (output quantized like the input, docs/nnapi_facts.md §9.10).
    _reduce("MEAN", 31, 28, {F32: 28, QA8: 28, F16: 29, QA8S: 30}, _mean, keep_type=INT32, axes_since=28,
            quant=True, into=True),
    # Same scale/zeroPoint in and out: the max/min of the codes is exact.
    _reduce("REDUCE_MAX", 77, 29, FLOAT_QUANT_29, torch.amax, quant=True, into=True),
    _reduce("REDUCE_MIN", 78, 29, FLOAT_QUANT_29, torch.amin, quant=True, into=True),
    _reduce("REDUCE_SUM", 80, 29, FLOAT_ONLY_29, torch.sum, into=True),
    _reduce("REDUCE_PROD", 79, 29, FLOAT_ONLY_29, _prod),
    _reduce("REDUCE_ANY", 76, 29, {B8T: 29}, torch.any),
    _reduce("REDUCE_ALL", 75, 29, {B8T: 29}, torch.all),
)
