"""TILE (89): repeat the tensor multiples[i] times along dim i."""

from .common import FLOAT_INT_QUANT_29, I32T, Ctx

NAME, CODE, SINCE = "TILE", 89, 29
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    c.counts((2,))
    c.tensor(0, FLOAT_INT_QUANT_29)
    c.tensor(1, {I32T: 29}, "multiples")
    c.out_like(0, 0)
    dims = c.dims(0)
    mult = c.ints(1, "multiples")
    if len(mult) != len(dims) or any(m <= 0 for m in mult):
        c.fail(f"input 1 (multiples) {mult} must hold one positive value per dimension of {list(dims)}")
    c.p.mult = tuple(mult)
    c.set_out(0, [d * m for d, m in zip(dims, mult)])


def compute(ins, p):
    return [ins[0].repeat(p.mult)]
