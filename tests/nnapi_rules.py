"""An integer model of NNAPI's rules where they differ from LiteRT's (docs/nnapi_facts.md §9, §10).

Written element by element with Python integers from the reference text, independently of the
driver's vectorized torch kernels, so that the tests check the driver against the rule itself.
"""

from __future__ import annotations

import math
import struct

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def c_round(x: float) -> int:
    """std::round: half away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def c_div(a: int, b: int) -> int:
    """C integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def i32(x: int) -> int:
    return (x + (1 << 31)) % (1 << 32) - (1 << 31)


def quantize_multiplier(m: float) -> tuple[int, int]:
    if m == 0:
        return 0, 0
    q, shift = math.frexp(m)
    fixed = c_round(q * 2.0 ** 31)
    if fixed == 1 << 31:
        fixed, shift = fixed // 2, shift + 1
    return (0, 0) if shift < -31 else (fixed, shift)


def srdhm(a: int, b: int) -> int:
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    return c_div(ab + ((1 << 30) if ab >= 0 else 1 - (1 << 30)), 1 << 31)


def rdbp(x: int, e: int) -> int:
    mask = (1 << e) - 1
    return (x >> e) + (1 if (x & mask) > (mask >> 1) + (1 if x < 0 else 0) else 0)


def mbqm(x: int, m: int, shift: int) -> int:
    return rdbp(srdhm(i32(x << max(shift, 0)), m), max(-shift, 0))


def activation_range(act: int, scale: float, zp: int, signed: bool) -> tuple[int, int]:
    lo, hi = (-128, 127) if signed else (0, 255)
    q = lambda r: zp + c_round(f32(r / f32(scale)))  # noqa: E731
    return {0: (lo, hi), 1: (max(lo, q(0.0)), hi), 2: (max(lo, q(-1.0)), min(hi, q(1.0))),
            3: (max(lo, q(0.0)), min(hi, q(6.0)))}[act]


def conv_output(acc: int, s_in: float, s_w: float, s_out: float, zp_out: int, lo: int, hi: int) -> int:
    """docs/nnapi_facts.md §9.6: float32 product s_in·s_w over s_out (double), QuantizeMultiplier, double rounding."""
    m, shift = quantize_multiplier(f32(s_in * s_w) / s_out)
    return min(hi, max(lo, mbqm(acc, m, shift) + zp_out))


# -- gemmlowp fixed point (docs/nnapi_facts.md §9.11) -------------------------------------------------
def sat_pot(x: int, e: int) -> int:
    if e <= 0:
        return x if e == 0 else rdbp(x, -e)
    t = (1 << (31 - e)) - 1
    return INT32_MAX if x > t else INT32_MIN if x < -t else x << e


def exp_on_negative_values(a: int, int_bits: int) -> int:
    frac = 31 - int_bits
    quarter = 1 << (frac - 2)
    a_mod = (a & (quarter - 1)) - quarter
    x = sat_pot(a_mod, int_bits) + (1 << 28)
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    t = rdbp(srdhm(rdbp(x4, 2) + x3, 715827883) + x2, 1)
    result = 1895147668 + srdhm(1895147668, x + t)
    rem = a_mod - a
    for e, k in ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535),
                 (3, 720401), (4, 242)):
        if int_bits > e and (rem >> (frac + e)) & 1:
            result = srdhm(result, k)
    if int_bits > 5 and a < -(32 << frac):
        result = 0
    return INT32_MAX if a == 0 else result


def _reciprocal_q2(a: int) -> int:
    s = a + INT32_MAX
    h = c_div(s + (1 if s >= 0 else -1), 2)
    x = 1515870810 + srdhm(h, -1010580540)
    for _ in range(3):
        x = x + sat_pot(srdhm(x, (1 << 29) - srdhm(h, x)), 2)
    return x


def gemmlowp_logistic(a: int) -> int:
    if a == 0:
        return 1 << 30
    r = sat_pot(_reciprocal_q2(exp_on_negative_values(-abs(a), 4)), 1)
    return r if a > 0 else INT32_MAX - r


def gemmlowp_tanh(a: int) -> int:
    if a == 0:
        return 0
    t = sat_pot(_reciprocal_q2(exp_on_negative_values(-abs(a), 5)) - (1 << 29), 2)
    return t if a > 0 else -t


def _input_rescale(q: int, s_in: float, zp: int) -> tuple[int, int, int]:
    """(centered, Q4.27 value, radius) of LOGISTIC/TANH's input."""
    m, ls = quantize_multiplier(s_in * 2.0 ** 27)
    radius = math.floor(15.0 * 2.0 ** 27 / 2.0 ** ls)
    centered = q - zp
    return centered, srdhm(i32(centered << ls), m), radius


def _saturating_curve(q: int, s_in: float, zp: int, signed: bool, curve, shift: int, offset: int) -> int:
    """LOGISTIC / TANH: saturate outside the input radius, else the fixed-point ``curve``
    rounded down by ``shift`` bits, moved by ``offset`` and clamped to the output type."""
    lo, hi = (-128, 127) if signed else (0, 255)
    c, x, radius = _input_rescale(q, s_in, zp)
    if c <= -radius:
        return lo
    if c >= radius:
        return hi
    return min(hi, max(lo, rdbp(curve(x), shift) + offset))


def logistic(q: int, s_in: float, zp: int, signed: bool) -> int:
    # Output scale 1/256: zero point 0 (uint8) or -128 (int8).
    return _saturating_curve(q, s_in, zp, signed, gemmlowp_logistic, 23, -128 if signed else 0)


def tanh(q: int, s_in: float, zp: int, signed: bool) -> int:
    # Output scale 1/128: zero point 128 (uint8) or 0 (int8).
    return _saturating_curve(q, s_in, zp, signed, gemmlowp_tanh, 24, 0 if signed else 128)


def softmax_row(row: list[int], s_in: float, beta: float, signed: bool) -> list[int]:
    """docs/nnapi_facts.md §9.12 on one 1-D slice."""
    m, ls = quantize_multiplier(min(beta * s_in * 2.0 ** 26, 2.0 ** 31 - 1))
    diff_min = -math.floor(31.0 * 2.0 ** 26 / 2.0 ** ls)
    mx = max([-128 if signed else 0] + row)
    exps = [exp_on_negative_values(srdhm(i32((q - mx) << ls), m), 5) if q - mx >= diff_min else None
            for q in row]
    total = sum(rdbp(e, 12) for e in exps if e is not None)
    headroom = 32 - total.bit_length()
    shifted = i32(((total << headroom) & 0xFFFFFFFF) - (1 << 31))
    inverse = sat_pot(_reciprocal_q2(shifted), 1)
    lo, hi = (-128, 127) if signed else (0, 255)
    out = []
    for e in exps:
        if e is None:
            out.append(lo)
            continue
        v = rdbp(srdhm(inverse, e), 12 - headroom + 31 - 8) - (128 if signed else 0)
        out.append(min(hi, max(lo, v)))
    return out


def concat_rescale_uint8(q: int, s_in: float, zp_in: int, s_out: float, zp_out: int) -> int:
    """TFLite's uint8 ConcatenationWithScaling element: float32 scale and bias (docs/nnapi_facts.md §9.9)."""
    scale = f32(s_in * f32(1.0 / s_out))
    bias = f32(-zp_in * scale)
    return min(255, max(0, c_round(f32(f32(q * scale) + bias)) + zp_out))


def mean(values: list[int]) -> int:
    """docs/nnapi_facts.md §9.10: sum of the stored codes over the count, C truncation."""
    return c_div(sum(values), len(values))


def requantize(q: int, s_old: float, zp_old: int, s_new: float, zp_new: int, signed: bool) -> int:
    """AOSP OperationsUtils requantize<T> (MAXIMUM, MINIMUM, SELECT): float32 (q - zp_old)·s_old,
    then / s_new + zp_new in double, clamped to the code range, std::round."""
    lo, hi = (-128, 127) if signed else (0, 255)
    r = f32((q - zp_old) * f32(s_old)) / f32(s_new) + zp_new
    if r < lo:
        return lo
    if r > hi:
        return hi
    return c_round(r)


def prelu(q: int, a: int, s_in: float, zp_in: int, s_a: float, zp_a: int, s_out: float, zp_out: int,
          signed: bool) -> int:
    """AOSP PRelu.cpp evalQuant8: q - zp_in >= 0 is rescaled by float32(s_in / s_out), otherwise
    (q - zp_in)(a - zp_a) by double(float32(s_in·s_a)) / s_out; MultiplyByQuantizedMultiplier; clamped."""
    lo, hi = (-128, 127) if signed else (0, 255)
    x = q - zp_in
    if x >= 0:
        v = mbqm(x, *quantize_multiplier(f32(s_in / s_out)))
    else:
        v = mbqm(x * (a - zp_a), *quantize_multiplier(f32(s_in * s_a) / s_out))
    return min(hi, max(lo, v + zp_out))


def _resize_source(dst: int, size_in: int, size_out: int, align: bool, half: bool) -> tuple[float, int, int]:
    """TFLite's ComputeInterpolationValues in float32: (source coordinate, low, high)."""
    if align and size_out > 1:
        scale = f32(f32(size_in - 1) / f32(size_out - 1))
    else:
        scale = f32(f32(size_in) / f32(size_out))
    src = f32(f32(f32(dst + 0.5) * scale) - 0.5) if half else f32(dst * scale)
    return src, max(math.floor(src), 0), min(math.ceil(src), size_in - 1)


def resize_bilinear(x, out_h: int, out_w: int, align: bool, half: bool, add_half: bool = False):
    """RESIZE_BILINEAR on NHWC codes (a numpy array; returns one of the same dtype), element by
    element: TFLite's reference ResizeBilinear<T> with every product and sum rounded to float32 in
    the C expression's order, then C's cast to the code type, which truncates toward zero
    (docs/nnapi_facts.md §9.14, Android 11). ``add_half`` adds 0.5 before the cast, as newer TFLite
    does for uint8."""
    import numpy as np

    n, in_h, in_w, channels = x.shape
    out = np.zeros((n, out_h, out_w, channels), dtype=x.dtype)
    for y in range(out_h):
        sy, y0, y1 = _resize_source(y, in_h, out_h, align, half)
        dy = f32(sy - y0)
        gy = f32(1 - dy)
        for xx in range(out_w):
            sx, x0, x1 = _resize_source(xx, in_w, out_w, align, half)
            dx = f32(sx - x0)
            gx = f32(1 - dx)
            for b in range(n):
                for c in range(channels):
                    total = f32(f32(int(x[b, y0, x0, c]) * gy) * gx)
                    total = f32(total + f32(f32(int(x[b, y1, x0, c]) * dy) * gx))
                    total = f32(total + f32(f32(int(x[b, y0, x1, c]) * gy) * dx))
                    total = f32(total + f32(f32(int(x[b, y1, x1, c]) * dy) * dx))
                    out[b, y, xx, c] = math.trunc(f32(total + 0.5) if add_half else total)
    return out
