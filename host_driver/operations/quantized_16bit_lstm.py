"""QUANTIZED_16BIT_LSTM (73, feature level 29): one step of an 8-bit LSTM cell with a 16-bit cell
state, Android's reference arithmetic in integers (QuantizedLSTM.cpp, TFLite's LstmCell with gemmlowp's
16-bit fixed point), and gemmlowp's 16-bit fixed-point functions that QUANTIZED_LSTM shares.

Inputs: 0 input [batch, input_size] TENSOR_QUANT8_ASYMM (scale 1/128, zeroPoint 128); 1-4
input-to-{input, forget, cell, output} weights [output_size, input_size] and 5-8 recurrent-to-{...}
weights [output_size, output_size], TENSOR_QUANT8_ASYMM, all with one scale and zeroPoint; 9-12
{input, forget, cell, output} gate biases [output_size] TENSOR_INT32 (scale weights_scale / 128,
zeroPoint 0); 13 previous cell state [batch, output_size] TENSOR_QUANT16_SYMM (scale 2^-11: 4
integer bits, zeroPoint 0); 14 previous output [batch, output_size] TENSOR_QUANT8_ASYMM (scale 1/128,
zeroPoint 128). Outputs: 0 cell state out (the previous cell state's shape and quantization), 1
output (the previous output's). Every input is required and none may be zero-sized.

Arithmetic: each gate's accumulator ``bias + sum((a - 128)(w - w_zp))`` over the activations
``a = [input | previous output]`` and the weights laid out as Android's reference lays them,
``[recurrent weights | input weights]`` (so the activations do not meet the weights of their own
name: Android's expected results are this product, and the driver computes the same), requantized
with the multiplier 4096 * bias_scale to 16 bits with 3 integer bits (saturating); gemmlowp's
logistic / tanh give the gates with no integer bit; the new cell state ``saturate(i * z (rescaled
to 4 integer bits) + f * c)``; the output ``o * tanh(c')`` (c' rescaled to 3 integer bits,
saturating) rounded by 2^-8 to 8 bits, offset by 128.
"""

from __future__ import annotations

import numpy as np
import torch

from .common import ADD, I32T, Q16S, QA8, RUN, Ctx, Deferred
from ._qmath import mbqm, quantize_multiplier, rdbp, round_half_away
from .rnn import check_dims, require_present

NAME, CODE, SINCE = "QUANTIZED_16BIT_LSTM", 73, 29
QUANT_COMPUTE = True

INPUT, PREV_CELL_STATE, PREV_OUTPUT = 0, 13, 14
INPUT_WEIGHTS, RECURRENT_WEIGHTS, BIASES = (1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12)
NAMES = ("input", "input_to_input_weights", "input_to_forget_weights", "input_to_cell_weights",
         "input_to_output_weights", "recurrent_to_input_weights", "recurrent_to_forget_weights",
         "recurrent_to_cell_weights", "recurrent_to_output_weights", "input_gate_bias", "forget_gate_bias",
         "cell_gate_bias", "output_gate_bias", "prev_cell_state", "prev_output")
ACTIVATION_SCALE, ACTIVATION_ZERO_POINT = 1.0 / 128.0, 128
STATE_INTEGER_BITS = 4   # the only cell-state format Android's reference supports (scale 2^-11)
GATE_INTEGER_BITS = 3    # the gates' accumulators: 16 bits, 3 integer bits (scale 2^-12)

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


# -- gemmlowp's 16-bit fixed point (int16 values held in int64 tensors) -------------------------------
def wrap16(x: torch.Tensor) -> torch.Tensor:
    """C's truncation of an int to int16 (gemmlowp's plain int16 adds and negations)."""
    return ((x + (1 << 15)) & 0xFFFF) - (1 << 15)


def sat16(x: torch.Tensor) -> torch.Tensor:
    """Saturate to the int16 range."""
    return x.clamp(INT16_MIN, INT16_MAX)


def srdhm16(a: torch.Tensor, b) -> torch.Tensor:
    """SaturatingRoundingDoublingHighMul of int16 values: (a·b + 2^14) >> 15, -1 · -1 saturating."""
    b = torch.as_tensor(b, dtype=torch.int64)
    r = (a * b + (1 << 14)) >> 15
    return torch.where((a == INT16_MIN) & (b == INT16_MIN), INT16_MAX, r)


def mul_pot16(x: torch.Tensor, e: int) -> torch.Tensor:
    """SaturatingRoundingMultiplyByPOT<e> of int16 values."""
    if e <= 0:
        return rdbp(x, -e) if e else x
    threshold = (1 << (15 - e)) - 1
    return torch.where(x > threshold, INT16_MAX, torch.where(x < -threshold, INT16_MIN, x << e))


def constant16(raw32: int) -> int:
    """gemmlowp's 32-bit constant as a 16-bit one (rounding shift by 16)."""
    return int(rdbp(torch.tensor(raw32, dtype=torch.int64), 16))


def _exp_on_interval16(a: torch.Tensor) -> torch.Tensor:
    """exp(a) for a Q0.15 a in [-1/4, 0): the Taylor expansion around -1/8 (saturating final add)."""
    c = constant16(1895147668)
    x = a + (1 << 12)
    x2 = srdhm16(x, x)
    x3 = srdhm16(x2, x)
    x4 = srdhm16(x2, x2)
    poly = rdbp(wrap16(srdhm16(wrap16(rdbp(x4, 2) + x3), constant16(715827883)) + x2), 1)
    return sat16(c + srdhm16(torch.as_tensor(c), wrap16(x + poly)))


_EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535),
               (3, 720401), (4, 242))


def exp_on_negative_values16(a: torch.Tensor, int_bits: int) -> torch.Tensor:
    """exp(a) for a <= 0 given with ``int_bits`` integer bits; Q0.15 result."""
    frac = 15 - int_bits
    quarter = 1 << (frac - 2)
    a_mod = (a & (quarter - 1)) - quarter
    result = _exp_on_interval16(mul_pot16(a_mod, int_bits))
    remainder = wrap16(a_mod - a)
    for exponent, multiplier in _EXP_BARREL:
        if int_bits > exponent:
            bit = (remainder >> (frac + exponent)) & 1
            result = torch.where(bit == 1, srdhm16(result, constant16(multiplier)), result)
    if int_bits > 5:
        clamp = constant16(-(1 << (36 - int_bits)))
        result = torch.where(a < clamp, 0, result)
    return torch.where(a == 0, INT16_MAX, result)


def _newton_reciprocal16(a: torch.Tensor) -> torch.Tensor:
    """x ≈ 1/(1 + a) in Q2.13 for a Q0.15 a in [0, 1): three Newton-Raphson steps."""
    s = a + INT16_MAX
    half_denominator = torch.div(s + torch.where(s >= 0, 1, -1), 2, rounding_mode="trunc")
    one = 1 << 13
    x = wrap16(constant16(1515870810) + srdhm16(half_denominator, constant16(-1010580540)))
    for _ in range(3):
        one_minus = wrap16(one - srdhm16(half_denominator, x))
        x = wrap16(x + mul_pot16(srdhm16(x, one_minus), 2))
    return x


def logistic16(a: torch.Tensor, int_bits: int) -> torch.Tensor:
    """gemmlowp's logistic of an int16 fixed-point value with ``int_bits`` integer bits; Q0.15 result."""
    positive = a > 0
    abs_a = torch.where(positive, a, wrap16(-a))
    result_pos = mul_pot16(_newton_reciprocal16(exp_on_negative_values16(wrap16(-abs_a), int_bits)), 1)
    result = torch.where(positive, result_pos, wrap16(INT16_MAX - result_pos))
    return torch.where(a == 0, 1 << 14, result)


def tanh16(a: torch.Tensor, int_bits: int) -> torch.Tensor:
    """gemmlowp's tanh of an int16 fixed-point value with ``int_bits`` integer bits; Q0.15 result."""
    negative = a < 0
    n = torch.where(negative, a, wrap16(-a))
    e = exp_on_negative_values16(n, int_bits + 1)
    t = mul_pot16(wrap16(_newton_reciprocal16(e) - (1 << 13)), 2)
    result = torch.where(negative, wrap16(-t), t)
    return torch.where(a == 0, 0, result)


def checked_log2(x: float) -> tuple[int, bool]:
    """TFLite's CheckedLog2 in float32: (rounded log2(x), whether x is a power of two within 1e-3)."""
    if not x > 0:
        return 0, False
    x_log2 = np.float32(np.log(np.float32(x))) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    rounded = round_half_away(float(x_log2))
    return rounded, bool(abs(np.float32(x_log2 - np.float32(rounded))) < 1e-3)


# -- the operation --------------------------------------------------------------------------------------
def validate(c: Ctx) -> None:
    """Types at addOperation; presence, quantization and shapes when known."""
    c.counts((15,), (2,))
    for i in range(15):
        c.tensor(i, {I32T: SINCE} if i in BIASES else {Q16S: SINCE} if i == PREV_CELL_STATE else {QA8: SINCE},
                 NAMES[i])
    c.out_is(0, Q16S)
    c.out_is(1, QA8)
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    require_present(c, range(15), NAMES)
    if c.stage == RUN:
        for i in range(15):
            if 0 in c.dims(i):
                c.fail(f"input {i} ({NAMES[i]}) is zero-sized ({list(c.dims(i))}); this operation needs "
                       "non-empty inputs")
    for i in (INPUT, PREV_OUTPUT):
        _check_quant(c, i, ACTIVATION_SCALE, ACTIVATION_ZERO_POINT)
    batch, input_size = check_dims(c, INPUT, NAMES[INPUT], (None, None))
    out_size = check_dims(c, PREV_OUTPUT, NAMES[PREV_OUTPUT], (batch, None))[1]
    w = c.operand(INPUT_WEIGHTS[0])
    for i in (*INPUT_WEIGHTS, *RECURRENT_WEIGHTS):
        check_dims(c, i, NAMES[i], (out_size, input_size if i in INPUT_WEIGHTS else out_size))
        _check_quant(c, i, w.scale, w.zero_point)
    for i in BIASES:
        check_dims(c, i, NAMES[i], (out_size,))
        _check_quant(c, i, w.scale / 128.0, 0)
    check_dims(c, PREV_CELL_STATE, NAMES[PREV_CELL_STATE], (batch, out_size))
    state = c.operand(PREV_CELL_STATE)
    log2, exact = checked_log2(state.scale)
    if state.zero_point != 0 or not exact or 15 + log2 != STATE_INTEGER_BITS:
        c.fail(f"input {PREV_CELL_STATE} ({NAMES[PREV_CELL_STATE]}) must have scale 2^-11 (4 integer bits) and "
               f"zeroPoint 0, got {state.scale:g} and {state.zero_point}")
    for j, i in ((0, PREV_CELL_STATE), (1, PREV_OUTPUT)):
        o, it = c.out_operand(j), c.operand(i)
        if (o.scale, o.zero_point) != (it.scale, it.zero_point):
            c.fail(f"output {j} must have input {i}'s ({NAMES[i]}) scale and zeroPoint ({it.scale:g}, "
                   f"{it.zero_point}), got ({o.scale:g}, {o.zero_point})")
    c.p.weights_zero_point = w.zero_point
    c.p.accumulator_multiplier = quantize_multiplier(4096.0 * c.operand(BIASES[0]).scale)
    c.set_out(0, (batch, out_size))
    c.set_out(1, (batch, out_size))


def _check_quant(c: Ctx, i: int, scale: float, zero_point: int) -> None:
    """Android's exact quantization rules: the activations' 1/128 and 128, every weight like the
    input-to-input weights, every bias weights_scale / 128 and 0."""
    t = c.operand(i)
    if t.scale != scale or t.zero_point != zero_point:
        c.fail(f"input {i} ({NAMES[i]}) must have scale {scale:g} and zeroPoint {zero_point}, got "
               f"{t.scale:g} and {t.zero_point}")


def compute(ins, p):
    """One step in Android's reference integer arithmetic (see the module docstring)."""
    x, prev_cell, prev_out = ins[INPUT], ins[PREV_CELL_STATE], ins[PREV_OUTPUT]
    out_size = prev_out.shape[1]
    # The reference concatenates the input and the previous output per batch, [input | previous
    # output], but lays each gate's weights out as [recurrent weights | input weights] (rows: input,
    # cell, forget, output gates), so that the first input_size activations meet the recurrent
    # weights' first columns. Android's expected results are those of this product; it is kept.
    gate_order = (0, 2, 1, 3)
    activations = torch.cat([x, prev_out], 1).to(torch.int64) - ACTIVATION_ZERO_POINT
    weights = torch.cat([torch.cat([ins[RECURRENT_WEIGHTS[g]], ins[INPUT_WEIGHTS[g]]], 1) for g in gate_order])
    weights = weights.to(torch.int64) - p.weights_zero_point
    bias = torch.cat([ins[BIASES[g]] for g in gate_order]).to(torch.int64)
    acc = activations @ weights.t() + bias
    gates = sat16(mbqm(acc, *p.accumulator_multiplier))
    i_raw, z_raw, f_raw, o_raw = gates.split(out_size, 1)
    i = logistic16(i_raw, GATE_INTEGER_BITS)
    z = tanh16(z_raw, GATE_INTEGER_BITS)
    f = logistic16(f_raw, GATE_INTEGER_BITS)
    o = logistic16(o_raw, GATE_INTEGER_BITS)
    cell = sat16(rdbp(srdhm16(i, z), STATE_INTEGER_BITS) + srdhm16(f, prev_cell.to(torch.int64)))
    hidden = srdhm16(o, tanh16(mul_pot16(cell, STATE_INTEGER_BITS - GATE_INTEGER_BITS), GATE_INTEGER_BITS))
    out = rdbp(hidden, 8).clamp(-128, 127) + ACTIVATION_ZERO_POINT
    return [cell.to(torch.int16), out.to(torch.uint8)]
