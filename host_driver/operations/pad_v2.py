"""PAD_V2 (69): pad with a given value (a quantized code for quantized tensors)."""

from ..operand_types import FLOAT16, FLOAT32, INT32
from ._pad import compute_pad, validate_pad
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "PAD_V2", 69, 29
QUANT_COMPUTE = True  # the pad value is already a code
TYPES = {F32: 29, F16: 29, QA8: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    c.counts((3,))
    t = c.tensor(0, TYPES)
    c.scalar(2, {F32: FLOAT32, F16: FLOAT16}.get(t, INT32), "pad value")
    validate_pad(c, TYPES, 29)
    value = c.value(2, "pad value")
    if t in (QA8, QA8S):
        lo, hi = (0, 255) if t == QA8 else (-128, 127)
        if not lo <= value <= hi:
            c.fail(f"input 2 (pad value) {value} is outside the code range [{lo}, {hi}]")
    c.p.value = value


compute = compute_pad
