"""AVERAGE_POOL_2D (1): average over the in-bounds part of each window (padding excluded)."""

from . import _qkernels as qk
from ._pool import average, validate_pool
from .common import FLOAT_QUANT, Ctx, activate_, from_nchw

NAME, CODE, SINCE = "AVERAGE_POOL_2D", 1, 27
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    validate_pool(c, FLOAT_QUANT)
    qk.pool_params(c)


def compute(ins, p):
    if p.quant:
        return [qk.qaverage_pool(ins[0], p)]
    return [from_nchw(activate_(average(ins[0], p), p.act), p.nchw)]
