"""L2_POOL_2D (12): sqrt(mean of squares) over the in-bounds part of each window."""

import torch

from ._pool import average, validate_pool
from .common import F16, F32, Ctx, activate_, from_nchw

NAME, CODE, SINCE = "L2_POOL_2D", 12, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29}


def validate(c: Ctx) -> None:
    validate_pool(c, TYPES)


def compute(ins, p):
    x = ins[0]
    return [from_nchw(activate_(torch.sqrt(average(x * x, p)), p.act), p.nchw)]
