"""PRELU (71): x if x >= 0 else alpha * x, alpha broadcast against x."""

import torch

from ._binary import validate_binary
from .common import FLOAT_QUANT_29, Ctx

NAME, CODE, SINCE = "PRELU", 71, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_binary(c, FLOAT_QUANT_29, fused=False, max_rank=None)


def compute(ins, p):
    x, alpha = ins
    return [torch.where(x >= 0, x, x * alpha)]
