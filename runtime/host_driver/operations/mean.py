"""MEAN (31): mean over the listed axes; keep_dims is an INT32 (> 0 keeps)."""

import torch

from ._reduce import validate_reduce
from .common import F16, F32, INT32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "MEAN", 31, 28
QUANT_COMPUTE = False
TYPES = {F32: 28, QA8: 28, F16: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    validate_reduce(c, TYPES, keep_type=INT32, axes_since=28)


def compute(ins, p):
    return [torch.mean(ins[0], dim=p.axes, keepdim=p.keep).reshape(p.out_shape)]
