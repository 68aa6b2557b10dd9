"""RSQRT (83): 1 / sqrt(x)."""

import torch

from ._unary import validate_unary
from .common import F16, F32, Ctx

NAME, CODE, SINCE = "RSQRT", 83, 29
QUANT_COMPUTE = False
TYPES = {F32: 29, F16: 29}


def validate(c: Ctx) -> None:
    validate_unary(c, TYPES)


def compute(ins, p):
    return [torch.rsqrt(ins[0])]
