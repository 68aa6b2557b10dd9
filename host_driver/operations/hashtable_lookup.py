"""HASHTABLE_LOOKUP (10): for each lookup, the row of Values whose key (1-D TENSOR_INT32 Keys,
sorted ascending) equals it, or zeros; and a TENSOR_QUANT8_ASYMM hits mask (scale 1, zeroPoint 0).

Android finds keys by binary search, which is exact on sorted keys; the driver matches keys
exactly (a duplicated key gives its first row) so unsorted keys, which Android does not refuse,
still find their rows."""

import torch

from .common import F32, I32T, QA8, Ctx
from .rnn import require_present

NAME, CODE, SINCE = "HASHTABLE_LOOKUP", 10, 27
QUANT_COMPUTE = True  # data movement only
TYPES = {F32: 27, I32T: 27, QA8: 27}


def validate(c: Ctx) -> None:
    c.counts((3,), (2,))
    c.tensor(0, {I32T: 27}, "lookups")
    c.tensor(1, {I32T: 27}, "keys")
    c.tensor(2, TYPES, "values")
    c.out_like(0, 2)
    c.out_is(1, QA8)
    c.out_fixed_q(1, {QA8: (1.0, 0)})
    for i, what in ((0, "lookups"), (1, "keys")):
        if c.rank(i) != 1:
            c.fail(f"input {i} ({what}) must be 1-D, got rank {c.rank(i)}")
    if c.rank(2) < 1:
        c.fail("input 2 (values) must have rank 1 or more, got rank 0")
    require_present(c, (0, 1, 2), ("lookups", "keys", "values"))
    lookups, keys, values = c.dims(0), c.dims(1), c.dims(2)
    if keys[0] != values[0]:
        c.fail(f"input 1 (keys) has {keys[0]} entries but input 2 (values) has {values[0]} rows")
    c.set_out(0, (lookups[0], *values[1:]))
    c.set_out(1, (lookups[0],))


def compute(ins, p):
    lookups, keys, values = ins
    sorted_keys, order = torch.sort(keys, stable=True)
    at = torch.searchsorted(sorted_keys, lookups).clamp_(max=max(keys.numel() - 1, 0))
    hits = sorted_keys[at] == lookups if keys.numel() else torch.zeros_like(lookups, dtype=torch.bool)
    rows = order[at] if keys.numel() else at
    out = torch.zeros((lookups.shape[0], *values.shape[1:]), dtype=values.dtype)
    out[hits] = values[rows[hits]]
    return [out, hits.to(torch.uint8)]
