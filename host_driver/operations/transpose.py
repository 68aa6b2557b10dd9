"""TRANSPOSE (37): permute dims (output dim i = input dim perm[i]); no perm reverses them."""

from .common import F16, F32, I32T, QA8, QA8S, Ctx

NAME, CODE, SINCE = "TRANSPOSE", 37, 28
QUANT_COMPUTE = True  # data movement only
TYPES = {F32: 28, QA8: 28, F16: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    c.counts((1, 2))
    c.tensor(0, TYPES)
    if c.n_in == 2:
        c.tensor(1, {I32T: 28}, "perm")
    c.out_like(0, 0)
    r = c.max_rank(0)
    if c.n_in == 2 and not c.omitted(1):
        perm = c.ints(1, "perm")
        if sorted(perm) != list(range(r)):
            c.fail(f"input 1 (perm) {perm} is not a permutation of 0..{r - 1}")
    else:
        perm = list(range(r - 1, -1, -1))
    dims = c.dims(0)
    c.p.perm = tuple(perm)
    c.set_out(0, [dims[k] for k in perm])


def compute(ins, p):
    return [ins[0].permute(p.perm)]
