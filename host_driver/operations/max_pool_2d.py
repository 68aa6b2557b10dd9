"""MAX_POOL_2D (17): maximum over the in-bounds part of each window."""

from . import _qkernels as qk
from ._pool import maximum, validate_pool
from .common import FLOAT_QUANT, Ctx, activate_, from_nchw

NAME, CODE, SINCE = "MAX_POOL_2D", 17, 27
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    validate_pool(c, FLOAT_QUANT)
    qk.pool_params(c)


def compute(ins, p):
    if p.quant:
        return [qk.qmax_pool(ins[0], p)]
    return [from_nchw(activate_(maximum(ins[0], p), p.act), p.nchw)]
