"""MAXIMUM (65): element-wise max with broadcasting."""

import torch

from ._binary import validate_binary
from .common import FLOAT_INT_QUANT_29, Ctx

NAME, CODE, SINCE = "MAXIMUM", 65, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_binary(c, FLOAT_INT_QUANT_29, fused=False, max_rank=None)


def compute(ins, p):
    return [torch.maximum(ins[0], ins[1])]
