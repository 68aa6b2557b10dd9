"""NEG (67): negation."""

import torch

from ._unary import validate_unary
from .common import F16, F32, I32T, Ctx

NAME, CODE, SINCE = "NEG", 67, 29
QUANT_COMPUTE = False
TYPES = {F32: 29, F16: 29, I32T: 29}


def validate(c: Ctx) -> None:
    validate_unary(c, TYPES)


def compute(ins, p):
    return [torch.neg(ins[0])]
