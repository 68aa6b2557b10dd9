"""DIV (30): a / b with broadcasting and a fused activation; floor division for TENSOR_INT32."""

import torch

from ._binary import validate_binary
from .common import F16, F32, I32T, Ctx, activate_

NAME, CODE, SINCE = "DIV", 30, 28
QUANT_COMPUTE = False
TYPES = {F32: 28, F16: 29, I32T: 30}


def validate(c: Ctx) -> None:
    validate_binary(c, TYPES, fused=True)
    c.p.floor = c.type(0) == I32T


def compute(ins, p):
    if p.floor:
        if bool((ins[1] == 0).any()):
            raise ZeroDivisionError("DIV: integer division by zero")
        return [torch.div(ins[0], ins[1], rounding_mode="floor")]
    return [activate_(torch.div(ins[0], ins[1]), p.act)]
