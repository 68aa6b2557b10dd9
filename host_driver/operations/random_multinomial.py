"""RANDOM_MULTINOMIAL (74): `samples` class indices per batch drawn from softmax(logits), with a
generator seeded by the two TENSOR_INT32 seeds (both 0: an unpredictable seed, as NNAPI says).

As Android, non-finite logits have probability 0 and a row with none finite gives index `classes`
for every sample. The draws are PyTorch's (torch.multinomial), not Android's Philox stream: the
conformance test checks only the class frequencies."""

import torch

from ..operand_types import INT32
from .common import F16, F32, I32T, Ctx
from .rnn import require_present

NAME, CODE, SINCE = "RANDOM_MULTINOMIAL", 74, 29
QUANT_COMPUTE = False
TYPES = {F32: 29, F16: 29}


def validate(c: Ctx) -> None:
    c.counts((3,))
    c.tensor(0, TYPES, "logits")
    c.scalar(1, INT32, "sample count")
    c.tensor(2, {I32T: 29}, "seeds")
    c.out_is(0, I32T)
    if c.rank(0) != 2:
        c.fail(f"input 0 (logits) must be 2-D [batches, classes], got rank {c.rank(0)}")
    require_present(c, (0, 2), ("logits", "seeds"))
    samples = c.value(1, "sample count")
    if samples < 0:
        c.fail(f"input 1 (sample count) must be >= 0, got {samples}")
    if list(c.dims(2)) != [2]:
        c.fail(f"input 2 (seeds) must have shape [2], got {list(c.dims(2))}")
    c.p.samples = samples
    c.set_out(0, (c.dims(0)[0], samples))


def _generator(seeds: torch.Tensor) -> torch.Generator:
    first, second = (int(s) & 0xFFFFFFFF for s in seeds.tolist())
    g = torch.Generator()
    if first or second:
        g.manual_seed((first << 32) | second)
    else:
        g.seed()
    return g


def compute(ins, p):
    logits, _, seeds = ins
    batches, classes = logits.shape
    out = torch.full((batches, p.samples), classes, dtype=torch.int32)
    if not p.samples or not classes:
        return [out]
    x = logits.double()
    finite = torch.isfinite(x)
    top = torch.where(finite, x, torch.full_like(x, -torch.inf)).amax(1, keepdim=True)
    weights = torch.where(finite, torch.exp(x - top), torch.zeros_like(x))
    drawable = weights.sum(1) > 0
    if drawable.any():
        draws = torch.multinomial(weights[drawable], p.samples, replacement=True, generator=_generator(seeds))
        out[drawable] = draws.to(torch.int32)
    return [out]
