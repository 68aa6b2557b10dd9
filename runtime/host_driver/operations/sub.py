"""SUB (36): a - b with broadcasting and a fused activation."""

import torch

from ._binary import validate_binary
from .common import F16, F32, I32T, QA8, QA8S, Ctx, activate_

NAME, CODE, SINCE = "SUB", 36, 28
QUANT_COMPUTE = False
TYPES = {F32: 28, F16: 29, QA8: 29, QA8S: 30, I32T: 30}


def validate(c: Ctx) -> None:
    validate_binary(c, TYPES, fused=True)


def compute(ins, p):
    return [activate_(torch.sub(ins[0], ins[1]), p.act)]
