"""SQUEEZE (34): drop size-1 dims (the listed ones, or all); everything squeezed gives [1]."""

from .common import F16, F32, I32T, QA8, QA8S, Ctx

NAME, CODE, SINCE = "SQUEEZE", 34, 28
QUANT_COMPUTE = True  # data movement only
TYPES = {F32: 28, QA8: 28, F16: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    c.counts((1, 2))
    c.tensor(0, TYPES)
    if c.n_in == 2:
        c.tensor(1, {I32T: 28}, "axes")
    c.out_like(0, 0)
    r = c.max_rank(0)
    dims = c.dims(0)
    if c.n_in == 2 and not c.omitted(1):
        axes = {c.axis(a, r, "squeeze axis") for a in c.ints(1, "axes")}
        for a in sorted(axes):
            if dims[a] != 1:
                c.fail(f"cannot squeeze dimension {a} of {list(dims)}: its size is {dims[a]}, not 1")
    else:
        axes = {k for k, d in enumerate(dims) if d == 1}
    out = [d for k, d in enumerate(dims) if k not in axes] or [1]
    c.p.shape = tuple(out)
    c.set_out(0, out)


def compute(ins, p):
    return [ins[0].reshape(p.shape)]
