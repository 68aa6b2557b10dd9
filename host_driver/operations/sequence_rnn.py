"""UNIDIRECTIONAL_SEQUENCE_RNN (93) and BIDIRECTIONAL_SEQUENCE_RNN (43): RNN's cell (rnn.py) run over
the time steps of a sequence, both since feature level 29 on TENSOR_FLOAT32 and TENSOR_FLOAT16.

UNIDIRECTIONAL_SEQUENCE_RNN: inputs 0 input ([max_time, batch, input_size] when time major, else
[batch, max_time, input_size]), 1 weights [units, input_size], 2 recurrent weights [units, units],
3 bias [units], 4 initial hidden state [batch, units], 5 INT32 activation, 6 INT32 time_major (0 or 1).
Outputs: 0 every step's state, in the input's layout; 1 (feature level 30, optional) the last state.

BIDIRECTIONAL_SEQUENCE_RNN: inputs 0 input, 1-4 the forward cell's weights, recurrent weights, bias
and initial state, 5-8 the backward cell's, 9 auxiliary input, 10-11 the forward and backward
auxiliary weights (9-11 optional), 12 INT32 activation, 13 BOOL time_major, 14 BOOL merge_outputs.
The auxiliary tensors select a linking mode: none of them (no linking); the auxiliary input alone
(parallel linking: it is the backward cell's input); all three (cross linking: both cells add the
auxiliary input times their auxiliary weights). Outputs: the forward and backward states of every step,
side by side in output 0 when merge_outputs, else outputs 0 and 1; then (feature level 30, optional)
the forward and backward final states (the backward cell's is its state after step 0).

Android checks types, counts and the level of the state outputs at addOperation, and the rest when
it runs: every input present but the auxiliary ones, no zero-sized input, the shapes. Here the shapes
are checked at Model_finish when known there, so a time dimension known only at execution (0 in the
declared shape) is checked, and the sequence computed, at each execution.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..operand_types import BOOL, INT32
from .common import ADD, F16, F32, RUN, Ctx, Deferred, OperationDef
from .rnn import activation_code, check_dims, optional_omitted, require_present, run_cell

TYPES = {F32: 29, F16: 29}
STATE_OUTPUTS_SINCE = 30

UNI_TENSORS = ("input", "weights", "recurrent weights", "bias", "hidden state")
BI_TENSORS = ("input", "forward weights", "forward recurrent weights", "forward bias", "forward hidden state",
              "backward weights", "backward recurrent weights", "backward bias", "backward hidden state",
              "auxiliary input", "forward auxiliary weights", "backward auxiliary weights")
AUX_INPUT, FW_AUX_WEIGHTS, BW_AUX_WEIGHTS = 9, 10, 11
NO_LINKING, PARALLEL_LINKING, CROSS_LINKING = "none", "parallel", "cross"


def _no_zero_sized(c: Ctx, indices) -> None:
    """Android's sequence RNNs refuse zero-sized inputs (a 0 dim is 'unknown' before execution)."""
    if c.stage != RUN:
        return
    for i in indices:
        d = c.dims(i)
        if 0 in d:
            c.fail(f"input {i} ({c.p.names[i]}) is zero-sized ({list(d)}); this operation needs non-empty inputs")


def _sequence_dims(c: Ctx, time_major: bool) -> tuple[int, int, int]:
    """(max_time, batch, input_size) of the rank-3 input 0."""
    t0, t1, size = check_dims(c, 0, "input", (None, None, None))
    return (t0, t1, size) if time_major else (t1, t0, size)


def _layout(time_major: bool, steps: int, batch: int, width: int) -> tuple[int, int, int]:
    return (steps, batch, width) if time_major else (batch, steps, width)


def _check_cell(c: Ctx, first: int, batch: int, in_size) -> int:
    """A cell's weights [units, in_size] (in_size None: any), recurrent weights, bias and initial
    state at inputs first..first+3; returns its units."""
    names = c.p.names
    units = check_dims(c, first, names[first], (None, in_size))[0]
    check_dims(c, first + 1, names[first + 1], (units, units))
    check_dims(c, first + 2, names[first + 2], (units,))
    check_dims(c, first + 3, names[first + 3], (batch, units))
    return units


def _time_major_value(c: Ctx, i: int) -> bool:
    v = c.value(i, "time major")
    if c.type(i) == INT32 and v not in (0, 1):
        c.fail(f"input {i} (time major) must be 0 or 1, got {v}")
    return bool(v)


# -- UNIDIRECTIONAL_SEQUENCE_RNN ----------------------------------------------------------------------
def validate_unidirectional(c: Ctx) -> None:
    """Counts and types at addOperation; presence, values and shapes when known."""
    c.counts((7,), (1, 2))
    c.tensor(0, TYPES, "input")
    for i in range(1, 5):
        c.same_type(i, 0, UNI_TENSORS[i])
    c.scalar(5, INT32, "activation")
    c.scalar(6, INT32, "time major")
    for j in range(c.n_out):
        c.out_like(j, 0)
    if c.n_out == 2:
        c.require_level(STATE_OUTPUTS_SINCE, "the final state output (output 1)")
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    c.p.names = UNI_TENSORS
    require_present(c, range(7), (*UNI_TENSORS, "activation", "time major"))
    c.p.act = activation_code(c, 5)
    c.p.time_major = _time_major_value(c, 6)
    _no_zero_sized(c, range(5))
    steps, batch, in_size = _sequence_dims(c, c.p.time_major)
    units = _check_cell(c, 1, batch, in_size)
    c.p.with_state = c.n_out == 2
    c.set_out(0, _layout(c.p.time_major, steps, batch, units))
    if c.p.with_state:
        c.set_out(1, (batch, units))


def _time_first(t: torch.Tensor, time_major: bool) -> torch.Tensor:
    """A [T, B, ...] view of a tensor in the operation's layout."""
    return t if time_major else t.transpose(0, 1)


def compute_unidirectional(ins, p):
    """Input terms of every step in one matmul, then the recurrence step by step."""
    x, w, r, b, h0 = ins[:5]
    pre = F.linear(x, w, b)
    out = torch.empty_like(pre)
    h = run_cell(_time_first(pre, p.time_major), r, h0, p.act, _time_first(out, p.time_major))
    return [out, h.clone()] if p.with_state else [out]


# -- BIDIRECTIONAL_SEQUENCE_RNN -----------------------------------------------------------------------
def _linking_mode(c: Ctx) -> str:
    present = tuple(not optional_omitted(c, i) for i in (AUX_INPUT, FW_AUX_WEIGHTS, BW_AUX_WEIGHTS))
    modes = {(False, False, False): NO_LINKING, (True, False, False): PARALLEL_LINKING,
             (True, True, True): CROSS_LINKING}
    if present not in modes:
        c.fail("inputs 9-11 (auxiliary input, forward and backward auxiliary weights) must be all omitted "
               "(no linking), only the auxiliary input given (parallel linking) or all three given "
               f"(cross linking); given: {[i for i, p in zip((9, 10, 11), present) if p]}")
    return modes[present]


def validate_bidirectional(c: Ctx) -> None:
    """Counts and types at addOperation; presence, linking mode, values and shapes when known."""
    c.counts((15,), (1, 2, 3, 4))
    c.tensor(0, TYPES, "input")
    for i in range(1, 12):
        c.same_type(i, 0, BI_TENSORS[i])
    c.scalar(12, INT32, "activation")
    c.scalar(13, BOOL, "time major")
    c.scalar(14, BOOL, "merge outputs")
    for j in range(c.n_out):
        c.out_like(j, 0)
    if c.n_out > 2:
        c.require_level(STATE_OUTPUTS_SINCE, "the final state outputs")
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    c.p.names = BI_TENSORS
    merge = bool(c.value(14, "merge outputs"))
    allowed = (1, 3) if merge else (2, 4)
    if c.n_out not in allowed:
        c.fail(f"with merge_outputs {str(merge).lower()} the operation has {allowed[0]} outputs "
               f"(or {allowed[1]} with the final states), got {c.n_out}")
    require_present(c, (*range(9), 12, 13, 14), (*BI_TENSORS[:9], "activation", "time major", "merge outputs"))
    mode = _linking_mode(c)
    c.p.act = activation_code(c, 12)
    c.p.time_major = _time_major_value(c, 13)
    _no_zero_sized(c, [i for i in range(12) if i < AUX_INPUT or mode == CROSS_LINKING or
                       (i == AUX_INPUT and mode == PARALLEL_LINKING)])
    steps, batch, in_size = _sequence_dims(c, c.p.time_major)
    fw_units = _check_cell(c, 1, batch, in_size)
    bw_units = _check_cell(c, 5, batch, None if mode == PARALLEL_LINKING else in_size)
    if mode != NO_LINKING:
        x = c.dims(0)
        aux = check_dims(c, AUX_INPUT, BI_TENSORS[AUX_INPUT], (x[0], x[1], None))
        if mode == PARALLEL_LINKING and aux[2] != c.dims(5)[1]:
            c.fail(f"input 9 (auxiliary input) has size {aux[2]} but the backward weights (input 5) take "
                   f"{c.dims(5)[1]} (parallel linking: it is the backward cell's input)")
        if mode == CROSS_LINKING:
            check_dims(c, FW_AUX_WEIGHTS, BI_TENSORS[FW_AUX_WEIGHTS], (fw_units, aux[2]))
            check_dims(c, BW_AUX_WEIGHTS, BI_TENSORS[BW_AUX_WEIGHTS], (bw_units, aux[2]))
    c.p.mode, c.p.merge, c.p.with_state = mode, merge, c.n_out in (3, 4)
    outs = [_layout(c.p.time_major, steps, batch, fw_units + bw_units if merge else fw_units)]
    if not merge:
        outs.append(_layout(c.p.time_major, steps, batch, bw_units))
    if c.p.with_state:
        outs += [(batch, fw_units), (batch, bw_units)]
    for j, dims in enumerate(outs):
        c.set_out(j, dims)


def compute_bidirectional(ins, p):
    """Each direction's input terms in one matmul (plus the auxiliary ones), then its recurrence."""
    x, aux = ins[0], ins[AUX_INPUT]
    fw_pre = F.linear(x, ins[1], ins[3])
    bw_pre = F.linear(aux if p.mode == PARALLEL_LINKING else x, ins[5], ins[7])
    if p.mode == CROSS_LINKING:
        fw_pre += F.linear(aux, ins[FW_AUX_WEIGHTS])
        bw_pre += F.linear(aux, ins[BW_AUX_WEIGHTS])
    fw_units, bw_units = fw_pre.shape[2], bw_pre.shape[2]
    if p.merge:
        merged = fw_pre.new_empty((*fw_pre.shape[:2], fw_units + bw_units))
        fw_out, bw_out = merged[..., :fw_units], merged[..., fw_units:]
        results = [merged]
    else:
        fw_out, bw_out = torch.empty_like(fw_pre), torch.empty_like(bw_pre)
        results = [fw_out, bw_out]
    tm = p.time_major
    fw_h = run_cell(_time_first(fw_pre, tm), ins[2], ins[4], p.act, _time_first(fw_out, tm))
    bw_h = run_cell(_time_first(bw_pre, tm), ins[6], ins[8], p.act, _time_first(bw_out, tm), reverse=True)
    if p.with_state:
        results += [fw_h.clone(), bw_h.clone()]
    return results


OPERATIONS: tuple[OperationDef, ...] = (
    OperationDef("BIDIRECTIONAL_SEQUENCE_RNN", 43, 29, validate_bidirectional, compute_bidirectional),
    OperationDef("UNIDIRECTIONAL_SEQUENCE_RNN", 93, 29, validate_unidirectional, compute_unidirectional),
)
