"""Shared validation of PAD and PAD_V2: paddings [rank, 2] of (before, after) >= 0."""

from __future__ import annotations

import torch.nn.functional as F

from .common import I32T, Ctx


def validate_pad(c: Ctx, types: dict[int, int], paddings_since: int) -> None:
    c.tensor(0, types)
    c.tensor(1, {I32T: paddings_since}, "paddings")
    c.out_like(0, 0)
    r = c.max_rank(0)
    dims = c.dims(0)
    if c.dims(1) != (r, 2):
        c.fail(f"input 1 (paddings) must have shape [{r}, 2], got {list(c.dims(1))}")
    pads = c.ints(1, "paddings")
    if any(v < 0 for v in pads):
        c.fail(f"input 1 (paddings) must be >= 0, got {pads}")
    # torch's pad lists (before, after) from the last dim backwards.
    c.p.torch_pads = tuple(v for k in reversed(range(r)) for v in (pads[2 * k], pads[2 * k + 1]))
    c.set_out(0, [pads[2 * k] + d + pads[2 * k + 1] for k, d in enumerate(dims)])


def compute_pad(ins, p):
    return [F.pad(ins[0], p.torch_pads, value=p.value)]
