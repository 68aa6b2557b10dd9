"""REDUCE_SUM (80): sum over the listed axes; keep_dims is a BOOL."""

import torch

from ._reduce import validate_reduce
from .common import BOOL, FLOAT_ONLY_29, Ctx

NAME, CODE, SINCE = "REDUCE_SUM", 80, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_reduce(c, FLOAT_ONLY_29, keep_type=BOOL, axes_since=29)


def compute(ins, p):
    return [torch.sum(ins[0], dim=p.axes, keepdim=p.keep).reshape(p.out_shape)]
