"""Shared validation of the broadcasting element-wise binary operations (reference §6.7)."""

from __future__ import annotations

from ..operand_types import INT32
from .common import Ctx, broadcast_dims, fuse_code


def validate_binary(c: Ctx, types: dict[int, int], *, fused: bool, max_rank: int | None = 4,
                    same_q: bool = False) -> None:
    """Inputs 0 and 1 (same type, broadcast-compatible), optional FuseCode input 2, one output."""
    c.counts((3,) if fused else (2,))
    c.tensor(0, types)
    c.same_type(1, 0)
    if fused:
        c.scalar(2, INT32, "fused activation")
    c.out_like(0, 0, same_q=same_q)
    for i in (0, 1):
        if max_rank is not None:
            c.max_rank(i, max_rank)
    c.p.act = fuse_code(c, 2) if fused else 0
    c.set_out(0, broadcast_dims(c, c.dims(0), c.dims(1)))
