"""NNAPI's reference integer arithmetic (docs/nnapi_facts.md §9), vectorized on torch int64 tensors.

Every function here follows the C semantics of Android's CPU implementation: int32 values held in
int64 tensors (so products never overflow), C truncating division, arithmetic right shifts and
round-half-away-from-zero where the C code calls `std::round`. Multipliers are derived from float32
scales exactly as the reference does (some products are float32, some double: docs/nnapi_facts.md §9.1, §9.2).
"""

from __future__ import annotations

import math
from typing import Union

import torch

from .common import f32

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
Int = Union[int, torch.Tensor]

# Code range of each 8-bit dtype.
QRANGE = {torch.uint8: (0, 255), torch.int8: (-128, 127)}


def round_half_away(x: float) -> int:
    """C `std::round` on a Python float (Python's round() is half-to-even)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def wrap32(x: torch.Tensor) -> torch.Tensor:
    """Wrap int64 values to int32 as C's int32 arithmetic does."""
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


# -- multipliers (docs/nnapi_facts.md §9.2) -------------------------------------------------------
def quantize_multiplier(m: float) -> tuple[int, int]:
    """QuantizeMultiplier: m ≈ M·2^(shift−31) with M in [2^30, 2^31); shift is a left shift."""
    if m == 0:
        return 0, 0
    q, shift = math.frexp(m)
    q_fixed = round_half_away(q * (1 << 31))
    if q_fixed == 1 << 31:
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q_fixed, shift


def quantize_multiplier_smaller_than_one_exp(m: float) -> tuple[int, int]:
    """For 0 < m < 1 (ADD/SUB/MUL): (M, left shift <= 0)."""
    if not 0 < m < 1:
        raise ValueError(f"multiplier {m!r} must be in (0, 1)")
    return quantize_multiplier(m)


def quantize_multiplier_greater_than_one(m: float) -> tuple[int, int]:
    """For m > 1 (LOGISTIC/TANH/SOFTMAX input scaling): (M, left shift >= 0)."""
    if not m > 1:
        raise ValueError(f"multiplier {m!r} must be greater than 1")
    return quantize_multiplier(m)


def conv_multiplier(s_in: float, s_w: float, s_out: float) -> float:
    """GetQuantizedConvolutionMultipler: the float32 product s_in·s_w, widened, over s_out."""
    return f32(s_in * s_w) / s_out


def bias_scale_matches(s_in: float, s_w: float, s_bias: float) -> bool:
    """The bias scale equals float32(s_in·s_w) within 1e-6 relative (checked at execution by AOSP)."""
    p = f32(s_in * s_w)
    return abs(p - s_bias) <= 1e-6 * min(p, s_bias)


def input_radius(int_bits: int, left_shift: int) -> int:
    """CalculateInputRadius: the largest |input| that does not saturate, in double."""
    r = float((1 << int_bits) - 1) * float(1 << (31 - int_bits)) / float(1 << left_shift)
    return math.floor(r)


# -- fixed-point primitives (docs/nnapi_facts.md §9.3) ----------------------------------------------
def srdhm(a: Int, b: Int) -> torch.Tensor:
    """SaturatingRoundingDoublingHighMul on int32 values (int64 tensors).

    gemmlowp adds a nudge of 2^30 (1 - 2^30 for a negative product) and divides by 2^31
    truncating; the negative nudge and the truncation cancel, so it is (a·b + 2^30) >> 31
    (an arithmetic shift) for every product. The one overflow, INT32_MIN · INT32_MIN,
    saturates to INT32_MAX.
    """
    a = torch.as_tensor(a, dtype=torch.int64)
    b = torch.as_tensor(b, dtype=torch.int64)
    r = a * b
    r += 1 << 30
    r >>= 31
    if bool((b == INT32_MIN).any()) and bool((a == INT32_MIN).any()):
        r = torch.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, r)
    return r


def rdbp(x: torch.Tensor, e: Int) -> torch.Tensor:
    """RoundingDivideByPOT: x / 2^e rounded to nearest, ties away from zero (0 <= e <= 31).

    (x + 2^(e-1) - [x < 0]) >> e for e > 0: a floor that rounds half up for x >= 0 and
    half down for x < 0, i.e. away from zero; x itself for e = 0.
    """
    e = torch.as_tensor(e, dtype=torch.int64)
    half = (torch.ones((), dtype=torch.int64) << e) >> 1
    negative_and_shifted = (x >> 63) & (e > 0).to(torch.int64)   # 1 where x < 0 and e > 0
    r = x + half
    r -= negative_and_shifted
    r >>= e
    return r


def mbqm(x: torch.Tensor, m: Int, shift: Int) -> torch.Tensor:
    """MultiplyByQuantizedMultiplier (double rounding): left shift, SRDHM, rounding right shift.

    `m` and `shift` may be per-channel tensors broadcasting against x. x is wrapped to int32
    first (as the C code's int32 argument), so callers pass int64 sums as they are.
    """
    shift = torch.as_tensor(shift, dtype=torch.int64)
    x = wrap32(x << shift.clamp(min=0)) if bool((shift > 0).any()) else wrap32(x)
    return rdbp(srdhm(x, m), (-shift).clamp(min=0))


def by_slices(fn, *xs: torch.Tensor, axis: int = 0, target: int = 1 << 18) -> torch.Tensor:
    """``fn(*xs)`` computed on slices of the tensors along ``axis`` and concatenated, for
    elementwise ``fn``. The int64 steps of requantization are memory-bound: on slices of
    ~2 MB that stay in cache they run ~5x faster than on a whole 128-image batch. A tensor
    whose size on ``axis`` is 1 broadcasts and is passed whole."""
    n = max(x.shape[axis] for x in xs)
    numel = max(x.numel() for x in xs)
    if n <= 1 or numel <= target:
        return fn(*xs)
    k = max(1, target * n // numel)
    parts = [fn(*(x.narrow(axis, i, min(k, n - i)) if x.shape[axis] == n else x for x in xs))
             for i in range(0, n, k)]
    return torch.cat(parts, axis)


def saturating_mul_by_pot(x: torch.Tensor, e: int) -> torch.Tensor:
    """SaturatingRoundingMultiplyByPOT<e>: rounding right shift for e < 0, saturating left shift for e > 0."""
    if e == 0:
        return x
    if e < 0:
        return rdbp(x, -e)
    threshold = (1 << (31 - e)) - 1
    return torch.where(x > threshold, INT32_MAX, torch.where(x < -threshold, INT32_MIN, x << e))


def rounding_half_sum(a: torch.Tensor, b: int) -> torch.Tensor:
    s = a + b
    return torch.div(s + torch.where(s >= 0, 1, -1), 2, rounding_mode="trunc")


def saturate(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    lo, hi = QRANGE[dtype]
    return x.clamp(lo, hi).to(dtype)


# -- gemmlowp's fixed-point transcendental functions (docs/nnapi_facts.md §9.11) ---------------------
_EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535),
               (3, 720401), (4, 242))


def _exp_on_interval(a: torch.Tensor) -> torch.Tensor:
    """exp(a) for a Q0.31 a in [-1/4, 0): a fourth-order Taylor expansion around -1/8."""
    c = 1895147668          # exp(-1/8) in Q0.31
    x = a + (1 << 28)
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    x4_over_4 = rdbp(x4, 2)
    poly = rdbp(srdhm(x4_over_4 + x3, 715827883) + x2, 1)
    return c + srdhm(c, x + poly)


def exp_on_negative_values(a: torch.Tensor, int_bits: int) -> torch.Tensor:
    """exp(a) for a <= 0 given as Q(int_bits).(31-int_bits); the result is Q0.31."""
    frac = 31 - int_bits
    quarter = 1 << (frac - 2)
    a_mod = (a & (quarter - 1)) - quarter
    result = _exp_on_interval(saturating_mul_by_pot(a_mod, int_bits))
    remainder = a_mod - a
    for exponent, multiplier in _EXP_BARREL:
        if int_bits > exponent:
            bit = (remainder >> (frac + exponent)) & 1
            result = torch.where(bit == 1, srdhm(result, multiplier), result)
    if int_bits > 5:
        # Below -32 the result underflows to 0.
        result = torch.where(a < -(32 << frac), 0, result)
    return torch.where(a == 0, INT32_MAX, result)


def _newton_reciprocal(a: torch.Tensor) -> torch.Tensor:
    """x ≈ 1/(1 + a) in Q2.29 for a Q0.31 a in [0, 1): three Newton-Raphson steps from 48/17 - 32/17·d."""
    half_denominator = rounding_half_sum(a, INT32_MAX)
    x = 1515870810 + srdhm(half_denominator, -1010580540)
    for _ in range(3):
        p = srdhm(half_denominator, x)
        x = x + saturating_mul_by_pot(srdhm(x, (1 << 29) - p), 2)
    return x


def one_over_one_plus_x(a: torch.Tensor) -> torch.Tensor:
    """1/(1 + a), Q0.31 in and out."""
    return saturating_mul_by_pot(_newton_reciprocal(a), 1)


def one_minus_x_over_one_plus_x(a: torch.Tensor) -> torch.Tensor:
    """(1 - a)/(1 + a), Q0.31 in and out."""
    return saturating_mul_by_pot(_newton_reciprocal(a) - (1 << 29), 2)


def logistic(a: torch.Tensor, int_bits: int) -> torch.Tensor:
    """gemmlowp logistic of a Q(int_bits) value; Q0.31 result."""
    abs_a = torch.where(a > 0, a, wrap32(-a))
    positive = one_over_one_plus_x(exp_on_negative_values(wrap32(-abs_a), int_bits))
    result = torch.where(a > 0, positive, INT32_MAX - positive)
    return torch.where(a == 0, 1 << 30, result)


def tanh(a: torch.Tensor, int_bits: int) -> torch.Tensor:
    """gemmlowp tanh of a Q(int_bits) value; Q0.31 result (exp(2n) read as Q(int_bits+1))."""
    n = torch.where(a < 0, a, wrap32(-a))
    t = one_minus_x_over_one_plus_x(exp_on_negative_values(n, int_bits + 1))
    result = torch.where(a < 0, -t, t)
    return torch.where(a == 0, 0, result)


# -- activation ranges (docs/nnapi_facts.md §9.5) ------------------------------------------------------
def activation_range(act: int, scale: float, zero_point: int, dtype: torch.dtype) -> tuple[int, int]:
    """Code range of a FuseCode for an output quantized with (scale, zero_point), float32 division."""
    qmin, qmax = QRANGE[dtype]
    s = f32(scale)

    def q(real: float) -> int:
        return zero_point + round_half_away(f32(real / s))

    if act == 1:
        return max(qmin, q(0.0)), qmax
    if act == 2:
        return max(qmin, q(-1.0)), min(qmax, q(1.0))
    if act == 3:
        return max(qmin, q(0.0)), min(qmax, q(6.0))
    return qmin, qmax
