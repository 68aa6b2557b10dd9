"""TOPK_V2 (90): the k largest values along the last dimension, in decreasing order, and their
indices (TENSOR_INT32). Equal values: the larger index first, as Android's reference does
(docs/nnapi_facts.md §7.10). Inputs: 0 tensor (F16, F32, I32T, QA8 since 29; QA8S since 30), rank >= 1;
1 INT32 k in [1, last dimension]. Output 0 has the input's type and quantization, output 1 is
TENSOR_INT32; both have the input's shape with the last dimension k.
"""

from __future__ import annotations

import torch

from ..operand_types import INT32
from .common import FLOAT_INT_QUANT_29, I32T, Ctx

NAME, CODE, SINCE = "TOPK_V2", 90, 29
QUANT_COMPUTE = True  # codes order like the values they stand for


def validate(c: Ctx) -> None:
    c.counts((2,), (2,))
    c.tensor(0, FLOAT_INT_QUANT_29)
    c.scalar(1, INT32, "k")
    c.out_like(0, 0)
    c.out_is(1, I32T)
    dims = c.dims(0)
    if not dims:
        c.fail("input 0 must have rank >= 1")
    k = int(c.value(1, "k"))
    if not 1 <= k <= dims[-1]:
        c.fail(f"input 1 (k) is {k}, outside [1, {dims[-1]}] (the last dimension of {list(dims)})")
    c.p.k = k
    for j in (0, 1):
        c.set_out(j, (*dims[:-1], k))


def compute(ins, p):
    x = ins[0]
    keys = x if x.is_floating_point() else x.to(torch.int64)
    # Flip so that a stable descending sort puts the larger original index first among equals.
    flipped = torch.flip(keys, dims=(-1,))
    order = torch.sort(flipped, dim=-1, descending=True, stable=True).indices[..., :p.k]
    indices = keys.shape[-1] - 1 - order
    return [torch.gather(x, -1, indices), indices.to(torch.int32)]
