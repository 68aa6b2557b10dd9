"""FLOOR (8): round toward -inf."""

import torch

from ._unary import validate_unary
from .common import F16, F32, Ctx

NAME, CODE, SINCE = "FLOOR", 8, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29}


def validate(c: Ctx) -> None:
    validate_unary(c, TYPES, max_rank=4)


def compute(ins, p):
    return [torch.floor(ins[0])]
