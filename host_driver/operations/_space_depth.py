"""Shared validation of DEPTH_TO_SPACE and SPACE_TO_DEPTH."""

from __future__ import annotations

from ..operand_types import INT32
from .common import FLOAT_QUANT, Ctx, layout_flag, layout_value, nhwc_dims


def validate_block(c: Ctx) -> tuple[int, int, int, int, int]:
    """Returns (N, H, W, C, block_size); sets p.block, p.nchw."""
    c.counts((2, 3))
    c.tensor(0, FLOAT_QUANT)
    c.scalar(1, INT32, "block_size")
    layout_flag(c, 2)
    c.out_like(0, 0)
    bs = c.value(1, "block_size")
    if bs < 1:
        c.fail(f"input 1 (block_size) must be >= 1, got {bs}")
    c.p.block = bs
    c.p.nchw = nchw = layout_value(c, 2)
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    return (*nhwc_dims(c.dims(0), nchw), bs)
