"""POW (70): base ** exponent with broadcasting."""

import torch

from ._binary import validate_binary
from .common import FLOAT_ONLY_29, Ctx

NAME, CODE, SINCE = "POW", 70, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_binary(c, FLOAT_ONLY_29, fused=False, max_rank=None)


def compute(ins, p):
    return [torch.pow(ins[0], ins[1])]
