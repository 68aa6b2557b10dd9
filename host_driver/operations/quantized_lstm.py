"""QUANTIZED_LSTM (95, feature level 30): one step of an LSTM cell on signed 8-bit activations with a
16-bit cell state, optional CIFG, peepholes, layer normalization and projection, in Android's
reference integer arithmetic (QLSTM.cpp with its QuantUtils).

Inputs: 0 input [batch, input_size] TENSOR_QUANT8_ASYMM_SIGNED; 1-17 the cell's tensors in
_lstm_cell.py's order (weights and projection weights TENSOR_QUANT8_SYMM, peepholes
TENSOR_QUANT16_SYMM, biases TENSOR_INT32); 18 previous output [batch, output_size]
TENSOR_QUANT8_ASYMM_SIGNED; 19 previous cell state [batch, units] TENSOR_QUANT16_SYMM (its scale a
power of two, at most 2^-9); 20-23 the layer-norm weights TENSOR_QUANT16_SYMM; FLOAT32 24 cell clip,
25 projection clip, 26-29 the {input, forget, cell, output} gates' intermediate scales (the scales
of the matrix products' results); 30 INT32 hidden-state zero point; 31 FLOAT32 hidden-state scale.
Outputs: 0 output state out, 1 cell state out, 2 output (0 and 2 equal).

Each gate accumulates, in 16 bits with saturation after each term, the input's and the previous
output's matrix products (32-bit sums requantized to the gate's intermediate scale) and the peephole
term; with layer normalization it is normalized in integers, scaled by its weights, offset by the
gate's bias and requantized to 3 integer bits; then gemmlowp's 16-bit logistic (tanh for the cell
gate). The cell state ``f c >> 15 + i z >> (30 + log2(cell scale))`` saturates and is clipped; the
hidden state ``o tanh(c)`` is requantized to 8 bits, then projected.

As Android's reference does: the gate biases are used only by the layer normalization (a gate
without it has no bias); the hidden state is stored as ``value - zero_point`` and the projection adds
``zero_point * sum(weights)`` (through the projection bias' precomputation); the projection clip is
quantized with the projection weights' scale; the hidden zero point is the INT32's low byte; a cell
state with fewer than -15 integer bits leaves tanh(c) as the input gate's values. Where the
reference reads memory its checks do not guarantee, the driver follows its checks: the peepholes of
the input and forget gates read the previous cell state (the reference reads the output buffer
before writing it) over the units (it reads output_size values), and an omitted projection bias is
zero (the reference dereferences it).
"""

from __future__ import annotations

import math

import torch

from ..operand_types import FLOAT32, INT32
from .common import ADD, I32T, Q16S, QA8S, QS8, RUN, Ctx, Deferred, f32
from ._lstm_cell import CellConfig, CellLayout, check_cell
from ._qmath import INT32_MAX, INT32_MIN, mbqm, quantize_multiplier, rdbp, wrap32
from .quantized_16bit_lstm import checked_log2, logistic16, sat16, tanh16, wrap16
from .rnn import check_dims, require_present

NAME, CODE, SINCE = "QUANTIZED_LSTM", 95, 30
QUANT_COMPUTE = True

LAYOUT = CellLayout(first=1, states=(18, 19), layer_norm=20)
CELL_CLIP, PROJ_CLIP = 24, 25
INTERMEDIATE_SCALES = (26, 27, 28, 29)
HIDDEN_ZERO_POINT, HIDDEN_SCALE = 30, 31
SCALARS = {CELL_CLIP: "cell_clip", PROJ_CLIP: "projection_clip", 26: "input_intermediate_scale",
           27: "forget_intermediate_scale", 28: "cell_intermediate_scale", 29: "output_intermediate_scale",
           HIDDEN_ZERO_POINT: "hidden_state_zero_point", HIDDEN_SCALE: "hidden_state_scale"}
INPUT_GATE, FORGET_GATE, CELL_GATE, OUTPUT_GATE = range(4)
GATE_INTEGER_BITS = 3
LAYER_NORM_OVERFLOW_GUARD = 1 << 20


def _input_types() -> list[int]:
    """Android's operand type of each input."""
    types = [QA8S] + [QS8] * 8 + [Q16S] * 3 + [I32T] * 4 + [QS8, I32T, QA8S, Q16S] + [Q16S] * 4
    return types + [FLOAT32] * 6 + [INT32, FLOAT32]


def validate(c: Ctx) -> None:
    """Types at addOperation; presence, shapes and the quantization the arithmetic needs when known."""
    c.counts((32,), (3,))
    names = {**LAYOUT.names(), 0: "input", **SCALARS}
    for i, t in enumerate(_input_types()):
        if i in SCALARS:
            c.scalar(i, t, names[i])
        else:
            c.tensor(i, {t: SINCE}, names[i])
    for j, t in enumerate((QA8S, Q16S, QA8S)):
        c.out_is(j, t)
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    required = (0, *LAYOUT.required(), *SCALARS)
    require_present(c, required, [names[i] for i in required])
    if c.stage == RUN:
        for i in (0, *LAYOUT.tensors()):
            if not c.omitted(i) and 0 in c.dims(i):
                c.fail(f"input {i} ({names[i]}) is zero-sized ({list(c.dims(i))}); this operation needs "
                       "non-empty inputs")
    batch, input_size = check_dims(c, 0, "input", (None, None))
    cfg = check_cell(c, LAYOUT, input_size, batch)
    c.p.config = cfg
    _quantization(c, cfg)
    c.set_out(0, (batch, cfg.output_size))
    c.set_out(1, (batch, cfg.units))
    c.set_out(2, (batch, cfg.output_size))


def _multiplier(c: Ctx, m: float, what: str) -> tuple[int, int]:
    if not math.isfinite(m):
        c.fail(f"the effective scale of {what} is not finite ({m}); check the intermediate and hidden-state scales")
    return quantize_multiplier(m)


def _div(a: float, b: float) -> float:
    """C's float32 division (a zero divisor gives an infinity or NaN)."""
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return f32(a / b)


def _quantization(c: Ctx, cfg: CellConfig) -> None:
    """Android's effective scales (float32 products), multipliers and quantized clips."""
    p = c.p
    scale = lambda i: c.operand(i).scale  # noqa: E731
    cell_state = LAYOUT.states[1]
    log2, exact = checked_log2(scale(cell_state))
    if not exact or log2 > -9:
        c.fail(f"input {cell_state} (cell_state_in) must have a power-of-two scale of at most 2^-9, got "
               f"{scale(cell_state):g}")
    p.cell_shift = log2
    if 30 + log2 < 0:
        c.fail(f"input {cell_state} (cell_state_in) has scale 2^{log2}; below 2^-30 the cell update is undefined")
    inter = [float(c.value(i, SCALARS[i])) for i in INTERMEDIATE_SCALES]
    x_scale, out_scale = scale(0), scale(LAYOUT.states[0])
    gates = [g for g in range(4) if not (cfg.cifg and g == INPUT_GATE)]
    p.input_multipliers, p.recurrent_multipliers, p.peephole_multipliers, p.layer_norm_multipliers = {}, {}, {}, {}
    p.variance_limits = {}
    for g in gates:
        what = ("input", "forget", "cell", "output")[g]
        p.input_multipliers[g] = _multiplier(
            c, _div(f32(scale(LAYOUT.input_weights[g]) * x_scale), inter[g]), f"input_to_{what}_weights")
        p.recurrent_multipliers[g] = _multiplier(
            c, _div(f32(scale(LAYOUT.recurrent_weights[g]) * out_scale), inter[g]), f"recurrent_to_{what}_weights")
        if cfg.peephole and g != CELL_GATE and not (cfg.cifg and g == INPUT_GATE):
            k = (INPUT_GATE, FORGET_GATE, None, 2)[g]
            m = math.inf if inter[g] == 0 else f32(2.0 ** log2 * scale(LAYOUT.peephole[k]) / inter[g])
            p.peephole_multipliers[g] = _multiplier(c, m, f"cell_to_{what}_weights")
        if cfg.layer_norm:
            ln_scale = scale(LAYOUT.layer_norms[g])
            p.layer_norm_multipliers[g] = quantize_multiplier(ln_scale)
            p.variance_limits[g] = min(1, int(f32(10000 * ln_scale)))
    hidden_scale = float(c.value(HIDDEN_SCALE, "hidden_state_scale"))
    hidden = math.inf if hidden_scale == 0 else f32(2.0 ** -15 / hidden_scale * 2.0 ** -15)
    p.hidden_multiplier = _multiplier(c, hidden, "the hidden state")
    p.hidden_zero_point = ((int(c.value(HIDDEN_ZERO_POINT, "hidden_state_zero_point")) + 128) & 0xFF) - 128
    p.output_zero_point = c.operand(LAYOUT.states[0]).zero_point
    p.input_zero_point = c.operand(0).zero_point
    cell_clip, proj_clip = float(c.value(CELL_CLIP, "cell_clip")), float(c.value(PROJ_CLIP, "projection_clip"))
    p.cell_clip = int(min(max(_div(cell_clip, scale(cell_state)), -32768.0), 32767.0)) if cell_clip > 0 else 0
    p.proj_clip = 0
    if cfg.projection:
        pw_scale = scale(LAYOUT.projection[0])
        p.projection_multiplier = _multiplier(c, _div(f32(pw_scale * hidden_scale), out_scale), "the projection")
        if proj_clip > 0:
            p.proj_clip = int(min(max(_div(proj_clip, pw_scale), -128.0), 127.0))


# -- Android's integer kernels (QuantUtils) --------------------------------------------------------------
def _accumulate(x: torch.Tensor, zero_point: int, weights: torch.Tensor, multiplier: tuple[int, int],
                acc: torch.Tensor, bias=None, out_zero_point: int = 0, lo: int = -32768,
                hi: int = 32767) -> torch.Tensor:
    """MatrixBatchVectorMultiplyAccumulate: ``acc + requantized(x W^T - zp sum(W) + bias)`` saturated."""
    w = weights.to(torch.int64)
    total = x.to(torch.int64) @ w.t() - zero_point * w.sum(1)
    if bias is not None:
        total = total + bias
    return (mbqm(wrap32(total), *multiplier) + out_zero_point + acc).clamp(lo, hi)


def _srdhm32(a: int, b: int) -> int:
    if a == b == INT32_MIN:
        return INT32_MAX
    return (a * b + (1 << 30)) >> 31


def _saturating_left(x: int, e: int) -> int:
    threshold = (1 << (31 - e)) - 1
    return INT32_MAX if x > threshold else INT32_MIN if x < -threshold else x << e


def inv_sqrt_multiplier(value: int) -> tuple[int, int]:
    """GetInvSqrtQuantizedMultiplierExp(value, reverse_shift=-1): 1/sqrt(value) as a multiplier
    and a left shift, by gemmlowp's 32-bit Newton-Raphson iteration."""
    if value <= 1:
        return INT32_MAX, 0
    shift = 11
    while value >= 1 << 29:
        value //= 4
        shift += 1
    pairs = (32 - value.bit_length() - 1) // 2 - 1
    shift -= pairs
    value <<= 2 * pairs
    half_input = int(rdbp(torch.tensor(value >> 1), 1))
    half_three = (1 << 28) + (1 << 27)
    x = 1 << 28
    for _ in range(5):
        x3 = _saturating_left(_srdhm32(_srdhm32(x, x), x), 6)
        x = _saturating_left(int(wrap32(torch.tensor(_srdhm32(half_three, x) - _srdhm32(half_input, x3)))), 3)
    x = _srdhm32(x, 1518500250)
    if shift < 0:
        x = int(wrap32(torch.tensor(x << -shift)))
        shift = 0
    return x, -shift


def _layer_norm(g: torch.Tensor, weights: torch.Tensor, bias: torch.Tensor, multiplier: tuple[int, int],
                variance_limit: int) -> torch.Tensor:
    """ApplyLayerNorm on int16 gate values [B, N] (int64 tensor)."""
    n = g.shape[1]
    rows = []
    for row in g:
        total, total_sq = int(row.sum()), int((row * row).sum())
        mean = _c_div(total * 1024, n)
        variance = total_sq * (LAYER_NORM_OVERFLOW_GUARD // n) - mean * mean
        variance = _c_div(variance, LAYER_NORM_OVERFLOW_GUARD)
        if variance < 1:
            variance = variance_limit
        inv_a, inv_b = inv_sqrt_multiplier(variance)
        rescaled = mbqm(1024 * row - mean, inv_a, inv_b)
        v3 = wrap32(wrap32(rescaled * weights) + bias)
        v4 = torch.div(torch.where(v3 > 0, v3 + 512, v3 - 512), 1024, rounding_mode="trunc")
        rows.append(sat16(mbqm(v4, multiplier[0], multiplier[1] + 12)))
    return torch.stack(rows) if rows else g


def _c_div(a: int, b: int) -> int:
    """C's integer division (truncating)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


# -- the step ------------------------------------------------------------------------------------------------
def _gate(ins, p, g: int, x, prev_out, peephole_state) -> torch.Tensor:
    """A gate's 16-bit value before its activation."""
    cfg: CellConfig = p.config
    acc = torch.zeros((x.shape[0], cfg.units), dtype=torch.int64)
    acc = _accumulate(x, p.input_zero_point, ins[LAYOUT.input_weights[g]], p.input_multipliers[g], acc)
    acc = _accumulate(prev_out, p.output_zero_point, ins[LAYOUT.recurrent_weights[g]], p.recurrent_multipliers[g],
                      acc)
    if g in p.peephole_multipliers:
        k = {INPUT_GATE: 0, FORGET_GATE: 1, OUTPUT_GATE: 2}[g]
        prod = ins[LAYOUT.peephole[k]].to(torch.int64) * peephole_state
        acc = sat16(mbqm(prod, *p.peephole_multipliers[g]) + acc)
    if cfg.layer_norm:
        acc = _layer_norm(acc, ins[LAYOUT.layer_norms[g]].to(torch.int64), ins[LAYOUT.biases[g]].to(torch.int64),
                          p.layer_norm_multipliers[g], p.variance_limits[g])
    return acc


def compute(ins, p):
    """One step: the forget, cell and input gates, the cell state, the output gate, the hidden state
    and its projection, in Android's reference order and integer arithmetic."""
    cfg: CellConfig = p.config
    x, prev_out = ins[0], ins[LAYOUT.states[0]]
    prev_cell = ins[LAYOUT.states[1]].to(torch.int64)
    f = logistic16(_gate(ins, p, FORGET_GATE, x, prev_out, prev_cell), GATE_INTEGER_BITS)
    z = tanh16(_gate(ins, p, CELL_GATE, x, prev_out, None), GATE_INTEGER_BITS)
    if cfg.cifg:
        i = 32767 - f
    else:
        i = logistic16(_gate(ins, p, INPUT_GATE, x, prev_out, prev_cell), GATE_INTEGER_BITS)
    cell = sat16(wrap16(rdbp(f * prev_cell, 15)) + wrap16(rdbp(i * z, 30 + p.cell_shift)))
    if p.cell_clip > 0:
        cell = cell.clamp(-p.cell_clip, p.cell_clip)
    o = logistic16(_gate(ins, p, OUTPUT_GATE, x, prev_out, cell), GATE_INTEGER_BITS)
    tanh_bits = p.cell_shift + 15
    # Android's ApplyTanh dispatches 0-6 integer bits and otherwise leaves its buffer (the input gate).
    t = tanh16(cell, tanh_bits) if 0 <= tanh_bits <= 6 else i
    hidden = (mbqm(o * t, *p.hidden_multiplier) - p.hidden_zero_point).clamp(-128, 127)
    if cfg.projection:
        w, b = ins[LAYOUT.projection[0]], ins[LAYOUT.projection[1]]
        bias = b.to(torch.int64) if cfg.projection_bias else 0
        zeros = torch.zeros((x.shape[0], cfg.output_size), dtype=torch.int64)
        out = _accumulate(hidden, -p.hidden_zero_point, w, p.projection_multiplier, zeros, bias,
                          p.output_zero_point, -128, 127)
        if p.proj_clip > 0:
            out = out.clamp(-p.proj_clip, p.proj_clip)
    else:
        out = hidden
    out = out.to(torch.int8)
    return [out, cell.to(torch.int16), out.clone()]
