"""CHANNEL_SHUFFLE (46): out channel k * groups + g = in channel g * (C / groups) + k along an axis."""

from ..operand_types import INT32
from .common import FLOAT_QUANT_29, Ctx

NAME, CODE, SINCE = "CHANNEL_SHUFFLE", 46, 29
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    c.counts((3,))
    c.tensor(0, FLOAT_QUANT_29)
    c.scalar(1, INT32, "num_groups")
    c.scalar(2, INT32, "axis")
    c.out_like(0, 0)
    r = c.max_rank(0)
    dims = c.dims(0)
    axis = c.axis(c.value(2, "axis"), r)
    groups = c.value(1, "num_groups")
    if groups <= 0 or dims[axis] % groups:
        c.fail(f"input 1 (num_groups) {groups} must be positive and divide dimension {axis} ({dims[axis]})")
    c.p.axis, c.p.groups = axis, groups
    c.set_out(0, dims)


def compute(ins, p):
    x = ins[0]
    a, g = p.axis, p.groups
    shape = x.shape
    y = x.reshape(*shape[:a], g, shape[a] // g, *shape[a + 1:]).transpose(a, a + 1)
    return [y.reshape(shape)]
