"""AVERAGE_POOL_2D (1): average over the in-bounds part of each window (padding excluded)."""

from ._pool import average, validate_pool
from .common import FLOAT_QUANT, Ctx, activate_, from_nchw

NAME, CODE, SINCE = "AVERAGE_POOL_2D", 1, 27
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_pool(c, FLOAT_QUANT)


def compute(ins, p):
    return [from_nchw(activate_(average(ins[0], p), p.act), p.nchw)]
