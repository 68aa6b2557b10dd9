"""REDUCE_PROD (79): product over the listed axes; keep_dims is a BOOL."""

from ._reduce import validate_reduce
from .common import BOOL, FLOAT_ONLY_29, Ctx

NAME, CODE, SINCE = "REDUCE_PROD", 79, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_reduce(c, FLOAT_ONLY_29, keep_type=BOOL, axes_since=29)


def compute(ins, p):
    y = ins[0]
    # torch.prod reduces one dim at a time; go from the last so indices stay valid.
    for a in reversed(p.axes):
        y = y.prod(dim=a, keepdim=p.keep)
    return [y.reshape(p.out_shape)]
