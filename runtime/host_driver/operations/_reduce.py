"""Shared validation of MEAN and REDUCE_* (axes tensor + keep_dims)."""

from __future__ import annotations

from ..operand_types import INT32
from .common import I32T, Ctx


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


