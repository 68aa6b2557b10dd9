"""PAD (32): pad with zeros (the zero point for quantized tensors)."""

from ._pad import compute_pad, validate_pad
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "PAD", 32, 28
QUANT_COMPUTE = True  # pads with the zero point (defined since 29)
TYPES = {F32: 28, QA8: 28, F16: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    c.counts((2,))
    validate_pad(c, TYPES, 28)
    op = c.operand(0)
    c.p.value = op.zero_point if op.type in (QA8, QA8S) else 0.0


compute = compute_pad
