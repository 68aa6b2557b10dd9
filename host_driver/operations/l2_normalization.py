"""L2_NORMALIZATION (11): x / sqrt(sum(x^2)) along an axis (default -1); all-zero vectors give 0.

8-bit inputs follow Android's reference integer arithmetic (L2Normalization.cpp and the TFLite
kernels it calls): the int32 sum of squared (code - zeroPoint) gives an inverse square root as a
fixed-point multiplier and shift (TFLite's GetInvSqrtQuantizedMultiplierExp: five Newton-Raphson
steps in Q3.28), and each difference is scaled by it to the fixed output quantization (1/128,
zeroPoint 128 for TENSOR_QUANT8_ASYMM, 0 for TENSOR_QUANT8_ASYMM_SIGNED). Along the last axis the
int8 form goes through TFLite's reference int8 kernel, which multiplies the difference itself and
folds the x128 into the shift, so it rounds at other points (about 2 codes in 100 differ by one);
on the other axes it is computed like uint8.
"""

import torch

from ..operand_types import INT32
from . import _qmath as qm
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "L2_NORMALIZATION", 11, 27
QUANT_COMPUTE = True
TYPES = {F32: 27, F16: 29, QA8: 29, QA8S: 30}
OUTPUT_Q = {QA8: (1 / 128, 128), QA8S: (1 / 128, 0)}

# log2 of the output scale's inverse (1/128): the int8 kernel folds it into the multiplier's shift.
_OUTPUT_SCALE_BITS = 7
_HALF_THREE_Q3 = 3 << 27            # 1.5 in Q3.28
_ONE_Q3 = 1 << 28                   # 1.0 in Q3.28
_HALF_SQRT_2_Q0 = 1518500250        # sqrt(2)/2 in Q0.31


def validate(c: Ctx) -> None:
    c.counts((1, 2))
    c.tensor(0, TYPES)
    if c.n_in == 2:
        c.scalar(1, INT32, "axis")
        c.require_level(29, "the axis input")
    c.out_like(0, 0, same_q=False)
    c.out_fixed_q(0, OUTPUT_Q)
    r = c.max_rank(0)
    if r != 4:
        c.require_level(29, f"rank {r} input")
    c.p.axis = c.axis(c.value(1, "axis"), r) if c.n_in == 2 else r - 1
    c.p.last_axis = c.p.axis == r - 1
    c.set_out(0, c.dims(0))


def compute(ins, p):
    x = ins[0]
    if x.dtype in (torch.uint8, torch.int8):
        return [_quantized(x, p)]
    sq = torch.sum(x * x, dim=p.axis, keepdim=True)
    inv = torch.where(sq > 0, torch.rsqrt(sq), torch.zeros_like(sq))
    return [x * inv]


def _bit_length(x: torch.Tensor) -> torch.Tensor:
    """Number of significant bits of non-negative int32 values held in int64."""
    powers = torch.ones(31, dtype=torch.int64) << torch.arange(31)
    return (x.unsqueeze(-1) >= powers).sum(-1)


def inv_sqrt_multiplier(total: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(multiplier, left shift <= 0) with multiplier·2^(shift-31) ≈ 1/sqrt(total), elementwise.

    Totals 0 and 1 give (INT32_MAX, 0) as the reference does (0 would divide by zero).
    """
    small = total <= 1
    s = torch.where(small, 2, total)
    shift = torch.full_like(s, 11)
    # Bring s below 2^29 by quarters (one step at most for an int32), then up to [2^27, 2^29).
    while bool((s >= 1 << 29).any()):
        big = s >= 1 << 29
        s = torch.where(big, s // 4, s)
        shift = shift + big.to(torch.int64)
    pairs = (32 - _bit_length(s) - 1) // 2 - 1
    shift = shift - pairs
    s = s << (2 * pairs)
    # Newton-Raphson for 1/sqrt in Q3.28 from x = 1: x <- 1.5·x - (s/2)·x^3.
    half_input = qm.rdbp(s >> 1, 1)
    x = torch.full_like(s, _ONE_Q3)
    for _ in range(5):
        x3 = qm.saturating_mul_by_pot(qm.srdhm(qm.srdhm(x, x), x), 6)
        step = qm.wrap32(qm.srdhm(_HALF_THREE_Q3, x) - qm.srdhm(half_input, x3))
        x = qm.saturating_mul_by_pot(step, 3)
    x = qm.srdhm(x, _HALF_SQRT_2_Q0)
    negative = shift < 0
    x = torch.where(negative, qm.wrap32(x << (-shift).clamp(min=0)), x)
    shift = torch.where(negative, 0, shift)
    return torch.where(small, qm.INT32_MAX, x), torch.where(small, 0, -shift)


def _quantized(x: torch.Tensor, p) -> torch.Tensor:
    zp = p.in_q[0][1]
    diff = x.to(torch.int64) - zp
    total = qm.wrap32((diff * diff).sum(p.axis, keepdim=True))
    multiplier, shift = inv_sqrt_multiplier(total)
    if x.dtype == torch.int8 and p.last_axis:
        scaled = qm.mbqm(diff, multiplier, shift + _OUTPUT_SCALE_BITS)
    else:
        scaled = qm.rdbp(qm.srdhm(diff * 128, multiplier), -shift)
    out_zp = OUTPUT_Q[QA8][1] if x.dtype == torch.uint8 else OUTPUT_Q[QA8S][1]
    return qm.saturate(scaled + out_zp, x.dtype)
