"""REDUCE_MAX (77): maximum over the listed axes; keep_dims is a BOOL."""

import torch

from ._reduce import validate_reduce
from .common import BOOL, FLOAT_QUANT_29, Ctx

NAME, CODE, SINCE = "REDUCE_MAX", 77, 29
QUANT_COMPUTE = True  # same scale/zeroPoint in and out: the max of the codes is exact


def validate(c: Ctx) -> None:
    validate_reduce(c, FLOAT_QUANT_29, keep_type=BOOL, axes_since=29)


def compute(ins, p):
    return [torch.amax(ins[0], dim=p.axes, keepdim=p.keep).reshape(p.out_shape)]
