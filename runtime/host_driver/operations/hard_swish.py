"""HARD_SWISH (99): x * relu6(x + 3) / 6."""

import torch

from ._unary import validate_unary
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "HARD_SWISH", 99, 30
QUANT_COMPUTE = False
TYPES = {F32: 30, F16: 30, QA8: 30, QA8S: 30}


def validate(c: Ctx) -> None:
    validate_unary(c, TYPES, same_q=False)


def compute(ins, p):
    return [torch.nn.functional.hardswish(ins[0])]
