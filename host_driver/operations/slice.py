"""SLICE (86): begin and size per dim (size -1 = to the end)."""

from .common import FLOAT_INT_QUANT_29, I32T, Ctx

NAME, CODE, SINCE = "SLICE", 86, 29
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    c.counts((3,))
    c.tensor(0, FLOAT_INT_QUANT_29)
    c.tensor(1, {I32T: 29}, "begin")
    c.tensor(2, {I32T: 29}, "size")
    c.out_like(0, 0)
    dims = c.dims(0)
    begin, size = c.ints(1, "begin"), c.ints(2, "size")
    if len(begin) != len(dims) or len(size) != len(dims):
        c.fail(f"begin {begin} and size {size} must have one entry per dimension of {list(dims)}")
    out = []
    for k, (b, s, d) in enumerate(zip(begin, size, dims)):
        if s == -1:
            s = d - b
        # Android allows empty slices (size 0, begin at the end): zero-sized tensors pass through.
        if not (0 <= b <= d and 0 <= s and b + s <= d):
            c.fail(f"dimension {k}: begin {b} and size {size[k]} do not fit in size {d}")
        out.append(s)
    c.p.index = tuple(slice(b, b + s) for b, s in zip(begin, out))
    c.set_out(0, out)


def compute(ins, p):
    return [ins[0][p.index]]
