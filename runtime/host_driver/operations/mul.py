"""MUL (18): a * b with broadcasting and a fused activation."""

import torch

from ._binary import validate_binary
from .common import F16, F32, I32T, QA8, QA8S, Ctx, activate_

NAME, CODE, SINCE = "MUL", 18, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, QA8: 27, F16: 29, QA8S: 30, I32T: 30}


def validate(c: Ctx) -> None:
    validate_binary(c, TYPES, fused=True)
    if c.type(0) == QA8:
        # AOSP rejects QA8 MUL unless output_scale > input1_scale * input2_scale.
        s1, s2, so = c.operand(0).scale, c.operand(1).scale, c.out_operand(0).scale
        if not so > s1 * s2:
            c.fail(f"output scale {so:g} must be greater than input scales' product {s1 * s2:g}")


def compute(ins, p):
    return [activate_(torch.mul(ins[0], ins[1]), p.act)]
