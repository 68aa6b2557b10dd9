"""RELU (19): max(0, x)."""

from ._unary import compute_clamp, validate_clamp
from .common import FLOAT_QUANT, Ctx

NAME, CODE, SINCE = "RELU", 19, 27
QUANT_COMPUTE = True  # clamps the codes with the input's scale/zeroPoint (reference §7.5)


def validate(c: Ctx) -> None:
    validate_clamp(c, FLOAT_QUANT, 0.0, None)


compute = compute_clamp
