"""RANK (101): the number of dimensions of the input tensor, as an INT32 scalar output.

Input 0 may have any tensor type Android's reference lists (`_INPUT_TYPES`, all since feature
level 30). Output 0 is an INT32 scalar.
"""

from ..operand_types import INT32
from .common import B8T, F16, F32, I32T, Q16A, Q16S, QA8, QA8S, QS8, QS8PC, Ctx

NAME, CODE, SINCE = "RANK", 101, 30
QUANT_COMPUTE = True  # reads only the shape

_INPUT_TYPES = {t: 30 for t in (F16, F32, I32T, QA8, QA8S, QS8, QS8PC, Q16S, Q16A, B8T)}


def validate(c: Ctx) -> None:
    """Check the signature and record the scalar output (shape ())."""
    c.counts((1,))
    c.tensor(0, _INPUT_TYPES)
    c.out_is(0, INT32)
    c.rank(0)  # defers until the input's rank is known
    c.set_out(0, ())


def compute(ins, p):
    return [int(ins[0].dim())]
