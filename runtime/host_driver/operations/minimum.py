"""MINIMUM (66): element-wise min with broadcasting."""

import torch

from ._binary import validate_binary
from .common import FLOAT_INT_QUANT_29, Ctx

NAME, CODE, SINCE = "MINIMUM", 66, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_binary(c, FLOAT_INT_QUANT_29, fused=False, max_rank=None)


def compute(ins, p):
    return [torch.minimum(ins[0], ins[1])]
