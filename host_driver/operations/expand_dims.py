"""EXPAND_DIMS (50): insert a size-1 dim at axis in [-(n+1), n+1)."""

from ..operand_types import INT32
from .common import FLOAT_INT_QUANT_29, Ctx

NAME, CODE, SINCE = "EXPAND_DIMS", 50, 29
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    c.counts((2,))
    c.tensor(0, FLOAT_INT_QUANT_29)
    c.scalar(1, INT32, "axis")
    c.out_like(0, 0)
    dims = c.dims(0)
    axis = c.axis(c.value(1, "axis"), len(dims), "axis", extra=1)
    c.p.axis = axis
    c.set_out(0, (*dims[:axis], 1, *dims[axis:]))


def compute(ins, p):
    return [ins[0].unsqueeze(p.axis)]
