"""RELU1 (20): clamp(x, -1, 1)."""

from ._unary import compute_clamp, validate_clamp
from .common import FLOAT_QUANT, Ctx

NAME, CODE, SINCE = "RELU1", 20, 27
QUANT_COMPUTE = True  # clamps the codes with the input's scale/zeroPoint (reference §7.5)


def validate(c: Ctx) -> None:
    validate_clamp(c, FLOAT_QUANT, -1.0, 1.0)


compute = compute_clamp
