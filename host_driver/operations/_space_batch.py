"""Shared validation of SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (since 28): rank-4 data, a
[2] block-size tensor, the optional NCHW flag."""

from __future__ import annotations

from .common import F16, F32, I32T, QA8, QA8S, Ctx, layout_flag, layout_value, nhwc_dims

TYPES = {F32: 28, QA8: 28, F16: 29, QA8S: 30}


def validate_common(c: Ctx, n_data_inputs: int) -> tuple[int, int, int, int, list[int]]:
    """Checks types (and, once known, values and the rank); returns (N, H, W, C, [bh, bw])."""
    c.counts((n_data_inputs, n_data_inputs + 1))
    c.tensor(0, TYPES)
    for i in range(1, n_data_inputs):
        c.tensor(i, {I32T: 28}, "block sizes" if i == 1 else "paddings")
    layout_flag(c, n_data_inputs)
    c.out_like(0, 0)
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    block = c.ints(1, "block sizes")
    if len(block) != 2 or min(block) < 1:
        c.fail(f"input 1 (block sizes) must hold 2 values >= 1, got {block}")
    c.p.block = block
    c.p.nchw = nchw = layout_value(c, n_data_inputs)
    return (*nhwc_dims(c.dims(0), nchw), block)
