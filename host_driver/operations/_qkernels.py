"""NNAPI's 8-bit integer kernels (docs/nnapi_facts.md §9.4-§9.14) on torch tensors.

Each kernel takes the stored codes (uint8 or int8 tensors) and the parameters its operation's
`validate` derived from the operands' scales and zero points (`requant_*` below, run once per
model), and returns codes. torch's convolution, matmul and pooling do the integer
accumulation on integer-valued floats: float32 when every partial sum stays below 2^24 (then
it is exact whatever order the kernel sums in; see `exact_integer_linear`), float64 otherwise.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from . import _qmath as qm
from .common import QS8PC, Ctx, f32, from_nchw, nhwc_dims, pad_nhwc, to_nchw

DTYPE_OF = {5: torch.uint8, 14: torch.int8}   # TENSOR_QUANT8_ASYMM, TENSOR_QUANT8_ASYMM_SIGNED


def q_dtype(c: Ctx, j: int = 0) -> torch.dtype:
    """Storage dtype of output j."""
    return DTYPE_OF[c.out_type(j)]


def multiplier_or_fail(c: Ctx, fn, m: float, what: str) -> tuple[int, int]:
    """(M, shift) from a multiplier function, or BAD_DATA naming the scales that make it invalid."""
    try:
        return fn(m)
    except ValueError:
        c.fail(f"{what}: the real multiplier {m:g} is out of the range NNAPI's reference accepts")


# -- convolutions (docs/nnapi_facts.md §9.6) ------------------------------------------------------------
def check_bias_quant(c: Ctx) -> None:
    """A quantized convolution's/FC's INT32 bias: zeroPoint 0; scale 0 for a per-channel filter (docs/nnapi_facts.md §8.2),
    float32(s_in·s_w) within 1e-6 relative otherwise (docs/nnapi_facts.md §9.2)."""
    inp, filt, bias = c.operand(0), c.operand(1), c.operand(2)
    if bias.zero_point != 0:
        c.fail(f"input 2 (bias) must have zeroPoint 0, got {bias.zero_point}")
    if c.type(1) == QS8PC:
        if bias.scale != 0:
            c.fail(f"input 2 (bias) of a per-channel quantized filter must have scale 0, got {bias.scale:g}")
    elif not qm.bias_scale_matches(inp.scale, filt.scale, bias.scale):
        c.fail(f"input 2 (bias) scale {bias.scale:g} must equal input scale * filter scale = "
               f"{f32(inp.scale * filt.scale):g}")


def requant_conv(c: Ctx, depth_out: int) -> None:
    """Per-output-channel (M, shift), zero points and the clamp range of a quantized convolution/FC."""
    inp, filt, out = c.operand(0), c.operand(1), c.out_operand(0)
    scales = c.channel_quant(1)[1] if c.type(1) == QS8PC else (filt.scale,) * depth_out
    mults = [qm.quantize_multiplier(qm.conv_multiplier(inp.scale, s, out.scale)) for s in scales]
    c.p.q_m = torch.tensor([m for m, _ in mults], dtype=torch.int64)
    c.p.q_shift = torch.tensor([s for _, s in mults], dtype=torch.int64)
    c.p.q_zp = (inp.zero_point, 0 if c.type(1) == QS8PC else filt.zero_point, out.zero_point)
    c.p.q_dtype = q_dtype(c)
    c.p.q_range = qm.activation_range(c.p.act, out.scale, out.zero_point, c.p.q_dtype)


def offset_weight(prepare, zp_w: int):
    """A weight preparation giving float64 (q_w - zp_w) in the layout `prepare` makes."""

    def prep(w: torch.Tensor) -> torch.Tensor:
        return prepare(w).to(torch.float64) - zp_w

    return prep


def requantize_acc(acc: torch.Tensor, p, channel_axis: int) -> torch.Tensor:
    """int32 accumulator -> output codes: MultiplyByQuantizedMultiplier, + zp_out, clamp."""
    shape = [1] * acc.dim()
    shape[channel_axis] = -1
    m, shift = p.q_m.view(shape), p.q_shift.view(shape)

    def requantize(a: torch.Tensor) -> torch.Tensor:
        return (qm.mbqm(a, m, shift) + p.q_zp[2]).clamp(*p.q_range).to(p.q_dtype)

    axes = [d for d in range(acc.dim()) if d != channel_axis and acc.shape[d] > 1]
    return qm.by_slices(requantize, acc, axis=axes[0]) if axes else requantize(acc)


FLOAT32_EXACT = 1 << 24   # every integer of magnitude below this is a float32


def exact_integer_linear(op, x: torch.Tensor, w: torch.Tensor, taps: int) -> torch.Tensor:
    """``op(x, w)`` (a convolution or matmul summing ``taps`` products per output) of
    integer-valued ``x`` and ``w``, exactly, as int64.

    In float32 every partial sum is an integer below ``taps·max|x|·max|w|``; under 2^24 each is
    representable, so the sum is exact in any order and torch's float32 kernels apply. That is
    what makes depthwise convolutions fast (torch's float64 depthwise path is 10-40x slower);
    float64, exact for any int32 accumulator, takes the rest.
    """
    wmax = int(w.abs().max()) if w.numel() else 0
    xmax = int(x.abs().max()) if x.numel() else 0
    if taps * xmax * wmax < FLOAT32_EXACT:
        return op(x.to(torch.float32), w.to(torch.float32)).to(torch.int64)
    return op(x.to(torch.float64), w.to(torch.float64)).round().to(torch.int64)


def conv_acc(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor, p, groups: int = 1) -> torch.Tensor:
    """int64 accumulators in NCHW: Σ (q_in - zp_in)(q_w - zp_w) over in-bounds taps + bias."""
    xi = x.to(torch.int32) - p.q_zp[0]
    left, right, top, bottom = p.pads
    # Out-of-bounds taps contribute nothing: pad the offset input with 0.
    xi = to_nchw(pad_nhwc(xi, left, right, top, bottom, nchw=p.nchw), p.nchw)
    taps = w.shape[1] * w.shape[2] * w.shape[3]
    acc = exact_integer_linear(lambda a, b: F.conv2d(a, b, None, p.stride, 0, p.dilation, groups), xi, w, taps)
    return acc + bias.to(torch.int64).view(-1, 1, 1)


def qconv2d(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor, p, groups: int = 1) -> torch.Tensor:
    return from_nchw(requantize_acc(conv_acc(x, w, bias, p, groups), p, 1), p.nchw)


# -- ADD / SUB / MUL (docs/nnapi_facts.md §9.7) -------------------------------------------------------------
ADD_LEFT_SHIFT = 20


def requant_add(c: Ctx, negate_second: bool) -> None:
    s1, s2, out = c.operand(0).scale, c.operand(1).scale, c.out_operand(0)
    twice_max = 2.0 * max(s1, s2)
    what = "ADD/SUB scales (the output scale must exceed 2*max(input scales)/2^20)"
    m1, sh1 = multiplier_or_fail(c, qm.quantize_multiplier_smaller_than_one_exp, s1 / twice_max, what)
    m2, sh2 = multiplier_or_fail(c, qm.quantize_multiplier_smaller_than_one_exp, s2 / twice_max, what)
    mo, sho = multiplier_or_fail(c, qm.quantize_multiplier_smaller_than_one_exp,
                                 twice_max / f32((1 << ADD_LEFT_SHIFT) * out.scale), what)
    c.p.q_add = ((m1, sh1), (-m2 if negate_second else m2, sh2), (mo, sho))


def requant_mul(c: Ctx) -> None:
    s1, s2, out = c.operand(0).scale, c.operand(1).scale, c.out_operand(0)
    m = f32(s1 * s2) / out.scale
    c.p.q_mul = multiplier_or_fail(c, qm.quantize_multiplier_smaller_than_one_exp, m,
                                   "MUL scales (the output scale must exceed the product of the input scales)")


def binary_clamp_range(c: Ctx) -> None:
    """Zero points, dtype and fused-activation code range of a quantized ADD/SUB/MUL."""
    out = c.out_operand(0)
    c.p.q_zp = (c.operand(0).zero_point, c.operand(1).zero_point, out.zero_point)
    c.p.q_dtype = q_dtype(c)
    c.p.q_range = qm.activation_range(c.p.act, out.scale, out.zero_point, c.p.q_dtype)


def qadd(a: torch.Tensor, b: torch.Tensor, p) -> torch.Tensor:
    (m1, sh1), (m2, sh2), (mo, sho) = p.q_add
    za, zb, zo = p.q_zp

    def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a1 = qm.mbqm((a.to(torch.int64) - za) << ADD_LEFT_SHIFT, m1, sh1)
        b1 = qm.mbqm((b.to(torch.int64) - zb) << ADD_LEFT_SHIFT, m2, sh2)
        out = qm.mbqm(a1 + b1, mo, sho) + zo
        return out.clamp(*p.q_range).to(p.q_dtype)

    return _broadcast_slices(add, a, b)


def qmul(a: torch.Tensor, b: torch.Tensor, p) -> torch.Tensor:
    m, sh = p.q_mul
    za, zb, zo = p.q_zp

    def mul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        out = qm.mbqm((a.to(torch.int64) - za) * (b.to(torch.int64) - zb), m, sh) + zo
        return out.clamp(*p.q_range).to(p.q_dtype)

    return _broadcast_slices(mul, a, b)


def _broadcast_slices(fn, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """An elementwise ``fn(a, b)`` by slices of the leading dim when both have the same rank
    (a size-1 leading dim broadcasts), whole otherwise."""
    if a.dim() == b.dim() and a.dim() > 0:
        return qm.by_slices(fn, a, b)
    return fn(a, b)


# -- pooling (docs/nnapi_facts.md §9.8) -------------------------------------------------------------------------
def _window_counts(size: int, out: int, k: int, s: int, head: int) -> torch.Tensor:
    start = torch.arange(out) * s - head
    return torch.clamp(start + k, max=size) - torch.clamp(start, min=0)


def pool_params(c: Ctx) -> None:
    """The input's H and W (for the in-bounds counts) and the fused activation's code range."""
    c.p.quant = c.type(0) in DTYPE_OF
    if c.p.quant:
        op = c.operand(0)
        c.p.in_hw = nhwc_dims(c.dims(0), c.p.nchw)[1:3]
        c.p.q_range = qm.activation_range(c.p.act, op.scale, op.zero_point, DTYPE_OF[op.type])


def qaverage_pool(x: torch.Tensor, p) -> torch.Tensor:
    """Sum of the in-bounds codes / their count: half up (uint8), half away from zero (int8)."""
    left, right, top, bottom = p.pads
    xs = to_nchw(pad_nhwc(x.to(torch.float64), left, right, top, bottom, nchw=p.nchw), p.nchw)
    acc = F.avg_pool2d(xs, p.kernel, p.stride, divisor_override=1).round().to(torch.int64)
    (fh, fw), (sh, sw) = p.kernel, p.stride
    n = (_window_counts(p.in_hw[0], acc.shape[2], fh, sh, top)[:, None]
         * _window_counts(p.in_hw[1], acc.shape[3], fw, sw, left)[None, :])
    half = n // 2
    avg = torch.div(acc + torch.where(acc >= 0, half, -half), n, rounding_mode="trunc")
    return from_nchw(avg.clamp(*p.q_range).to(x.dtype), p.nchw)


def qmax_pool(x: torch.Tensor, p) -> torch.Tensor:
    left, right, top, bottom = p.pads
    lowest = qm.QRANGE[x.dtype][0] - 1       # below every code: padding never wins
    xs = to_nchw(pad_nhwc(x.to(torch.float32), left, right, top, bottom, value=lowest, nchw=p.nchw), p.nchw)
    y = F.max_pool2d(xs, p.kernel, p.stride).to(torch.int64)
    return from_nchw(y.clamp(*p.q_range).to(x.dtype), p.nchw)


# -- requantization with float32 rescaling (docs/nnapi_facts.md §9.9) ------------------------------------------
def round_half_away_t(v: torch.Tensor) -> torch.Tensor:
    """std::round on float32 values, exactly (the float64 sum |v| + 0.5 is exact for float32 v)."""
    v = v.to(torch.float64)
    return (torch.sign(v) * torch.floor(v.abs() + 0.5)).to(torch.int64)


def rescale_uint8(q: torch.Tensor, s_in: float, zp_in: int, s_out: float, zp_out: int) -> torch.Tensor:
    """TFLite's uint8 ConcatenationWithScaling for one input: float32 scale and bias, rounded, clamped."""
    scale = torch.tensor(f32(s_in * f32(1.0 / s_out)), dtype=torch.float32)
    bias = torch.tensor(-zp_in, dtype=torch.float32) * scale
    v = q.to(torch.float32) * scale + bias
    return (round_half_away_t(v) + zp_out).clamp(0, 255)


def qconcat(tensors: list[torch.Tensor], qs: list[tuple[float, int]], out_q: tuple[float, int],
            axis: int) -> torch.Tensor:
    """CONCATENATION with requantization; int8 goes through uint8 (+128) as AOSP does."""
    s_out, zp_out = out_q
    signed = tensors[0].dtype == torch.int8
    shift = 128 if signed else 0
    parts = []
    for t, (s, zp) in zip(tensors, qs):
        u = t.to(torch.int64) + shift
        if (s, zp) != (s_out, zp_out):
            u = rescale_uint8(u, s, zp + shift, s_out, zp_out + shift)
        parts.append(u)
    return (torch.cat(parts, axis) - shift).to(tensors[0].dtype)


def quantize(x: torch.Tensor, scale: float, zp: int, dtype: torch.dtype) -> torch.Tensor:
    """QUANTIZE: zp + round_half_away(x / scale), float32 arithmetic, clamped (docs/nnapi_facts.md §9.4)."""
    quotient = (x.to(torch.float64) / f32(scale)).to(torch.float32)
    v = torch.tensor(float(zp), dtype=torch.float32) + round_half_away_t(quotient).to(torch.float32)
    lo, hi = qm.QRANGE[dtype]
    return v.clamp(lo, hi).to(dtype)


# -- LOGISTIC, TANH (docs/nnapi_facts.md §9.11) -----------------------------------------------------------------
INPUT_INTEGER_BITS = 4


def requant_sigmoid_like(c: Ctx) -> None:
    """Input multiplier and radius of LOGISTIC/TANH: s_in·2^27 as a Q4.27 rescale."""
    inp = c.operand(0)
    m, ls = multiplier_or_fail(c, qm.quantize_multiplier_greater_than_one,
                               inp.scale * float(1 << (31 - INPUT_INTEGER_BITS)), "LOGISTIC/TANH input scale")
    c.p.q_in = (m, ls, qm.input_radius(INPUT_INTEGER_BITS, ls), inp.zero_point)
    c.p.q_dtype = q_dtype(c)


def _rescaled_input(x: torch.Tensor, p) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    m, ls, radius, zp = p.q_in
    centered = x.to(torch.int64) - zp
    fixed = qm.srdhm(qm.wrap32(centered << ls), m)
    return centered, fixed, torch.tensor(radius)


def qlogistic(x: torch.Tensor, p) -> torch.Tensor:
    centered, fixed, radius = _rescaled_input(x, p)
    y = qm.rdbp(qm.logistic(fixed, INPUT_INTEGER_BITS), 23)
    if p.q_dtype == torch.uint8:
        y = torch.where(y == 256, 255, y)
    else:
        y = (y - 128).clamp(-128, 127)
    lo, hi = qm.QRANGE[p.q_dtype]
    y = torch.where(centered <= -radius, lo, torch.where(centered >= radius, hi, y))
    return y.to(p.q_dtype)


def qtanh(x: torch.Tensor, p) -> torch.Tensor:
    centered, fixed, radius = _rescaled_input(x, p)
    y = qm.rdbp(qm.tanh(fixed, INPUT_INTEGER_BITS), 24)
    if p.q_dtype == torch.uint8:
        y = y + 128
        y = torch.where(y == 256, 255, y)
    else:
        y = y.clamp(-128, 127)
    lo, hi = qm.QRANGE[p.q_dtype]
    y = torch.where(centered <= -radius, lo, torch.where(centered >= radius, hi, y))
    return y.to(p.q_dtype)


# -- SOFTMAX (docs/nnapi_facts.md §9.12) ----------------------------------------------------------------------------
SCALED_DIFF_INTEGER_BITS = 5
ACCUMULATION_INTEGER_BITS = 12


def requant_softmax(c: Ctx, beta: float) -> None:
    inp = c.operand(0)
    r = min(1.0 * beta * inp.scale * float(1 << (31 - SCALED_DIFF_INTEGER_BITS)), float((1 << 31) - 1))
    m, ls = multiplier_or_fail(c, qm.quantize_multiplier_greater_than_one, r, "SOFTMAX beta * input scale")
    c.p.q_in = (m, ls, -qm.input_radius(SCALED_DIFF_INTEGER_BITS, ls))
    c.p.q_dtype = q_dtype(c)


def _clz32(x: torch.Tensor) -> torch.Tensor:
    """Count leading zeros of non-negative int32 values."""
    bits = torch.floor(torch.log2(x.clamp(min=1).to(torch.float64))).to(torch.int64) + 1
    # log2 in float64 is exact enough for int32, but guard the powers of two at the edges.
    bits = torch.where((1 << (bits - 1)) > x, bits - 1, bits)
    bits = torch.where((1 << bits) <= x, bits + 1, bits)
    return torch.where(x == 0, 32, 32 - bits)


def qsoftmax(x: torch.Tensor, p, axis: int) -> torch.Tensor:
    m, ls, diff_min = p.q_in
    xi = x.to(torch.int64).movedim(axis, -1)
    floor_code = qm.QRANGE[p.q_dtype][0]
    mx = xi.amax(-1, keepdim=True).clamp(min=floor_code)
    diff = xi - mx
    inside = diff >= diff_min
    scaled = qm.srdhm(qm.wrap32(diff << ls), m)
    exps = qm.exp_on_negative_values(scaled, SCALED_DIFF_INTEGER_BITS)
    total = torch.where(inside, qm.rdbp(exps, ACCUMULATION_INTEGER_BITS), 0).sum(-1, keepdim=True)
    total = qm.wrap32(total)
    headroom = _clz32(total)
    bits_over_unit = ACCUMULATION_INTEGER_BITS - headroom
    shifted = qm.wrap32(((total << headroom) & 0xFFFFFFFF) - (1 << 31))
    inverse = qm.one_over_one_plus_x(shifted)
    out = qm.rdbp(qm.srdhm(inverse, exps), bits_over_unit + 31 - 8)
    if p.q_dtype == torch.int8:
        out = out - 128
    lo, hi = qm.QRANGE[p.q_dtype]
    out = torch.where(inside, out.clamp(lo, hi), lo)
    return out.to(p.q_dtype).movedim(-1, axis).contiguous()


# -- HARD_SWISH (docs/nnapi_facts.md §9.13) ------------------------------------------------------------------------
def _int16_multiplier(m: float) -> tuple[int, int]:
    m32, e = qm.quantize_multiplier(m)
    m16 = 32767 if m32 >= qm.INT32_MAX - (1 << 15) else (m32 + (1 << 15)) >> 16
    return m16, e


def requant_hard_swish(c: Ctx) -> None:
    inp, out = c.operand(0), c.out_operand(0)
    hires = f32(f32(1.0 / 128.0) * f32(inp.scale))
    m_out, e_out = _int16_multiplier(f32(hires / f32(out.scale)))
    m_relu, e_relu = _int16_multiplier(f32(hires / f32(3.0 / 32768.0)))
    if e_out > 0:
        c.fail(f"HARD_SWISH: output scale {out.scale:g} is too small for the input scale {inp.scale:g} "
               "(the output multiplier must be below 1)")
    c.p.q_hs = (m_out, e_out, m_relu, e_relu, inp.zero_point, out.zero_point)
    c.p.q_dtype = q_dtype(c)


def _srdhm16(a: torch.Tensor, b: int) -> torch.Tensor:
    ab = a * b
    nudge = torch.where(ab >= 0, 1 << 14, 1 - (1 << 14))
    r = torch.div(ab + nudge, 1 << 15, rounding_mode="trunc")
    return torch.where((a == -32768) & (b == -32768), 32767, r)


def _sat16(x: torch.Tensor) -> torch.Tensor:
    return x.clamp(-32768, 32767)


def qhard_swish(x: torch.Tensor, p) -> torch.Tensor:
    m_out, e_out, m_relu, e_relu, zp_in, zp_out = p.q_hs
    v = (x.to(torch.int64) - zp_in) * 128
    pre = _srdhm16(v, m_out)
    r = v
    if e_relu > 0:
        r = _sat16(r << (e_relu - 1))
    r = _srdhm16(r, m_relu)
    if e_relu > 0:
        r = _sat16(r << 1)
    if e_relu < 0:
        r = qm.rdbp(r, -e_relu)
    r = (r + (1 << 15)) >> 1
    # SaturatingDoublingHighMul (no rounding) on int16.
    prod = torch.where((r == -32768) & (pre == -32768), 32767, torch.div(r * pre, 1 << 15, rounding_mode="trunc"))
    out = qm.rdbp(prod, -e_out) + zp_out
    lo, hi = qm.QRANGE[p.q_dtype]
    return out.clamp(lo, hi).to(p.q_dtype)


# -- MEAN (docs/nnapi_facts.md §9.10) ----------------------------------------------------------------------------
def qmean(x: torch.Tensor, axes: tuple[int, ...]) -> torch.Tensor:
    """Sum of the stored codes / count with C truncation (NNAPI ignores the scales, docs/nnapi_facts.md §9.10, §10)."""
    total = x.to(torch.int64).sum(dim=axes, keepdim=True)
    count = math.prod(x.shape[a] for a in axes)
    return torch.div(total, count, rounding_mode="trunc").to(x.dtype)


# -- MAXIMUM, MINIMUM, SELECT (AOSP `requantize`, docs/nnapi_facts.md §9.9), PRELU ---------------------------
def requantize(q: torch.Tensor, s_old: float, zp_old: int, s_new: float, zp_new: int) -> torch.Tensor:
    """AOSP's requantize<T>: float32 (q - zp_old)·s_old, widened; / s_new + zp_new in double; clamped to the
    code range, then std::round (half away from zero). Codes already in the new parameters are unchanged."""
    if (s_old, zp_old) == (s_new, zp_new):
        return q
    real = ((q.to(torch.int64) - zp_old).to(torch.float32) * f32(s_old)).to(torch.float64)
    r = real / f32(s_new) + zp_new
    lo, hi = qm.QRANGE[q.dtype]
    whole = torch.floor(r.abs())
    rounded = torch.sign(r) * (whole + (r.abs() - whole >= 0.5).to(torch.float64))
    return rounded.clamp(lo, hi).to(q.dtype)


def requant_to_output(c: Ctx, inputs: tuple[int, ...]) -> None:
    """The (scale, zeroPoint) of the given inputs and of output 0, for `requantize`."""
    c.p.q_in = [(c.operand(i).scale, c.operand(i).zero_point) for i in inputs]
    out = c.out_operand(0)
    c.p.q_out = (out.scale, out.zero_point)


def qmaximum(a: torch.Tensor, b: torch.Tensor, p) -> torch.Tensor:
    return torch.maximum(requantize(a, *p.q_in[0], *p.q_out), requantize(b, *p.q_in[1], *p.q_out))


def qminimum(a: torch.Tensor, b: torch.Tensor, p) -> torch.Tensor:
    return torch.minimum(requantize(a, *p.q_in[0], *p.q_out), requantize(b, *p.q_in[1], *p.q_out))


def requant_prelu(c: Ctx) -> None:
    """AOSP PRelu.cpp: positive inputs rescaled by float32(s_in / s_out); negative ones, times
    (alpha - zp_alpha), by double(float32(s_in·s_alpha)) / s_out; both through QuantizeMultiplier."""
    inp, alpha, out = c.operand(0), c.operand(1), c.out_operand(0)
    c.p.q_pos = qm.quantize_multiplier(f32(inp.scale / out.scale))
    c.p.q_neg = qm.quantize_multiplier(f32(inp.scale * alpha.scale) / out.scale)
    c.p.q_zp = (inp.zero_point, alpha.zero_point, out.zero_point)


def qprelu(x: torch.Tensor, alpha: torch.Tensor, p) -> torch.Tensor:
    zp_in, zp_alpha, zp_out = p.q_zp
    xi = x.to(torch.int64) - zp_in
    pos = qm.mbqm(xi, *p.q_pos)
    neg = qm.mbqm(xi * (alpha.to(torch.int64) - zp_alpha), *p.q_neg)
    lo, hi = qm.QRANGE[x.dtype]
    return (torch.where(xi >= 0, pos, neg) + zp_out).clamp(lo, hi).to(x.dtype)
