"""MAX_POOL_2D (17): maximum over the in-bounds part of each window."""

from ._pool import maximum, validate_pool
from .common import FLOAT_QUANT, Ctx, activate_, from_nchw

NAME, CODE, SINCE = "MAX_POOL_2D", 17, 27
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_pool(c, FLOAT_QUANT)


def compute(ins, p):
    return [from_nchw(activate_(maximum(ins[0], p), p.act), p.nchw)]
