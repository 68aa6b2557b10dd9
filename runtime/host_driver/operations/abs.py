"""ABS (38): absolute value."""

import torch

from ._unary import validate_unary
from .common import F16, F32, I32T, Ctx

NAME, CODE, SINCE = "ABS", 38, 29
QUANT_COMPUTE = False
TYPES = {F32: 29, F16: 29, I32T: 30}


def validate(c: Ctx) -> None:
    validate_unary(c, TYPES)


def compute(ins, p):
    return [torch.abs(ins[0])]
