"""UNIDIRECTIONAL_SEQUENCE_LSTM (92) and BIDIRECTIONAL_SEQUENCE_LSTM (42): LSTM's cell
(_lstm_cell.py) run over the time steps of a sequence, both since feature level 29 on TENSOR_FLOAT32
and TENSOR_FLOAT16.

UNIDIRECTIONAL_SEQUENCE_LSTM: inputs 0 input ([max_time, batch, input_size] when time major, else
[batch, max_time, input_size]); 1-19 the cell's tensors and states as LSTM's; 20 INT32 activation;
21 cell clip and 22 projection clip (FLOAT32, FLOAT16 for TENSOR_FLOAT16; > 0 clips); 23 BOOL
time_major; 24-27 the optional layer-normalization weights. Outputs: 0 every step's output, in the
input's layout; 1 and 2 (feature level 30, optional) the final output and cell states.

BIDIRECTIONAL_SEQUENCE_LSTM: inputs 0 input; 1-17 the forward cell's weights, peepholes, biases and
projection, 18-34 the backward cell's; 35-36 the forward output and cell states, 37-38 the backward
ones; 39 auxiliary input, 40-43 the forward cell's auxiliary input-to-{input, forget, cell, output}
weights, 44-47 the backward cell's (39-47 optional); 48 INT32 activation; 49 cell clip and 50
projection clip (>= 0); 51 BOOL merge_outputs; 52 BOOL time_major; 53-56 the forward layer-norm
weights, 57-60 the backward ones. The auxiliary tensors select a linking mode: none of them (no
linking); the auxiliary input alone (parallel linking: it is the backward cell's input); the
auxiliary input and weights (cross linking: each cell adds the auxiliary input times its auxiliary
weights). Outputs: the forward and backward outputs of every step, side by side in output 0 when
merge_outputs, else outputs 0 and 1; then (feature level 30, optional) the forward output and cell
states and the backward ones (the backward cell's after step 0).

Android checks types, counts and the level of the state outputs at addOperation, and the rest when
it runs (UNIDIRECTIONAL refuses zero-sized inputs then). Here the shapes are checked at Model_finish
when known there, so a time dimension known only at execution (0 in the declared shape) is checked,
and the sequence computed, at each execution.

Where Android's reference differs from its own checks, the driver follows the checks: both
directions of BIDIRECTIONAL keep their own CIFG / peephole / layer-norm / projection configuration
(Android's reference evaluates both with the backward cell's), and the auxiliary input of cross
linking must have the input's size (Android reads it with that size).
"""

from __future__ import annotations

import torch

from ..operand_types import BOOL, INT32
from .common import ADD, F16, F32, RUN, Ctx, Deferred, OperationDef
from ._lstm_cell import CellConfig, CellLayout, check_cell, check_clip, float_cell, run_sequence
from .rnn import activation_code, check_dims, optional_omitted, require_present

TYPES = {F32: 29, F16: 29}
STATE_OUTPUTS_SINCE = 30

# -- UNIDIRECTIONAL_SEQUENCE_LSTM ---------------------------------------------------------------------
UNI_LAYOUT = CellLayout(first=1, states=(18, 19), layer_norm=24)
UNI_ACTIVATION, UNI_CELL_CLIP, UNI_PROJ_CLIP, UNI_TIME_MAJOR = 20, 21, 22, 23
UNI_SCALARS = {0: "input", UNI_ACTIVATION: "activation", UNI_CELL_CLIP: "cell clip", UNI_PROJ_CLIP: "projection clip",
               UNI_TIME_MAJOR: "time major"}


def _time_first(t: torch.Tensor, time_major: bool) -> torch.Tensor:
    """A [T, B, ...] view of a tensor in the operation's layout."""
    return t if time_major else t.transpose(0, 1)


def _layout_dims(time_major: bool, steps: int, batch: int, width: int) -> tuple[int, int, int]:
    return (steps, batch, width) if time_major else (batch, steps, width)


def _sequence_dims(c: Ctx, i: int, what: str, time_major: bool) -> tuple[int, int, int]:
    """(max_time, batch, size) of a rank-3 sequence input."""
    t0, t1, size = check_dims(c, i, what, (None, None, None))
    return (t0, t1, size) if time_major else (t1, t0, size)


def _no_zero_sized(c: Ctx, indices, names: dict[int, str]) -> None:
    """Android's OperationResolver refuses zero-sized inputs (a 0 dim is 'unknown' before execution)."""
    if c.stage != RUN:
        return
    for i in indices:
        if not c.omitted(i) and 0 in c.dims(i):
            c.fail(f"input {i} ({names.get(i, '')}) is zero-sized ({list(c.dims(i))}); this operation needs "
                   "non-empty inputs")


def validate_unidirectional(c: Ctx) -> None:
    """Counts, types and levels at addOperation; presence, values and shapes when known."""
    c.counts((28,), (1, 3))
    c.tensor(0, TYPES, "input")
    names = {**UNI_LAYOUT.names(), **UNI_SCALARS}
    for i in UNI_LAYOUT.tensors():
        c.same_type(i, 0, names[i])
    c.scalar(UNI_ACTIVATION, INT32, "activation")
    c.float_scalar_for(UNI_CELL_CLIP, 0, "cell clip")
    c.float_scalar_for(UNI_PROJ_CLIP, 0, "projection clip")
    c.scalar(UNI_TIME_MAJOR, BOOL, "time major")
    for j in range(c.n_out):
        c.out_like(j, 0)
    if c.n_out == 3:
        c.require_level(STATE_OUTPUTS_SINCE, "the final state outputs (outputs 1 and 2)")
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    required = (0, *UNI_LAYOUT.required(), *range(UNI_ACTIVATION, UNI_TIME_MAJOR + 1))
    require_present(c, required, [names[i] for i in required])
    c.p.act = activation_code(c, UNI_ACTIVATION)
    # No sign check here (Android's has none): a clip <= 0 does not clip.
    c.p.cell_clip = float(c.value(UNI_CELL_CLIP, "cell clip"))
    c.p.proj_clip = float(c.value(UNI_PROJ_CLIP, "projection clip"))
    c.p.time_major = bool(c.value(UNI_TIME_MAJOR, "time major"))
    _no_zero_sized(c, (0, *UNI_LAYOUT.tensors()), names)
    steps, batch, input_size = _sequence_dims(c, 0, "input", c.p.time_major)
    cfg = check_cell(c, UNI_LAYOUT, input_size, batch)
    c.p.config, c.p.with_state = cfg, c.n_out == 3
    c.set_out(0, _layout_dims(c.p.time_major, steps, batch, cfg.output_size))
    if c.p.with_state:
        c.set_out(1, (batch, cfg.output_size))
        c.set_out(2, (batch, cfg.units))


def compute_unidirectional(ins, p):
    """The cell over the time steps (torch.lstm's loop for torch.nn.LSTM's cell)."""
    cfg: CellConfig = p.config
    x = ins[0]
    cell = float_cell(ins, UNI_LAYOUT, cfg, p.act, p.cell_clip, p.proj_clip)
    xt = _time_first(x, p.time_major)
    out = x.new_empty(_layout_dims(p.time_major, xt.shape[0], xt.shape[1], cfg.output_size))
    h, c, _ = run_sequence(cell, xt, None, ins[UNI_LAYOUT.states[0]], ins[UNI_LAYOUT.states[1]],
                           _time_first(out, p.time_major))
    return [out, h.clone(), c.clone()] if p.with_state else [out]


# -- BIDIRECTIONAL_SEQUENCE_LSTM ----------------------------------------------------------------------
FW_LAYOUT = CellLayout(first=1, states=(35, 36), layer_norm=53, prefix="fw_")
BW_LAYOUT = CellLayout(first=18, states=(37, 38), layer_norm=57, prefix="bw_")
AUX_INPUT = 39
FW_AUX_WEIGHTS, BW_AUX_WEIGHTS = tuple(range(40, 44)), tuple(range(44, 48))
BI_ACTIVATION, BI_CELL_CLIP, BI_PROJ_CLIP, BI_MERGE, BI_TIME_MAJOR = 48, 49, 50, 51, 52
BI_SCALARS = {0: "input", AUX_INPUT: "aux_input", BI_ACTIVATION: "activation", BI_CELL_CLIP: "cell clip",
              BI_PROJ_CLIP: "projection clip", BI_MERGE: "merge outputs", BI_TIME_MAJOR: "time major"}
NO_LINKING, PARALLEL_LINKING, CROSS_LINKING = "none", "parallel", "cross"


def _bi_names() -> dict[int, str]:
    names = {**FW_LAYOUT.names(), **BW_LAYOUT.names(), **BI_SCALARS}
    for prefix, idx in (("fw", FW_AUX_WEIGHTS), ("bw", BW_AUX_WEIGHTS)):
        for i, gate in zip(idx, ("input", "forget", "cell", "output")):
            names[i] = f"{prefix}_aux_input_to_{gate}_weights"
    return names


def _linking_mode(c: Ctx, fw_cifg: bool) -> str:
    """Android's rules for the auxiliary tensors (with the forward cell's CIFG for both directions'
    auxiliary input-to-input weights, as its reference checks them)."""
    names = _bi_names()
    has = {i: not optional_omitted(c, i) for i in (AUX_INPUT, *FW_AUX_WEIGHTS, *BW_AUX_WEIGHTS)}
    if fw_cifg and (has[FW_AUX_WEIGHTS[0]] or has[BW_AUX_WEIGHTS[0]]):
        c.fail("the auxiliary input-to-input weights (inputs 40 and 44) must be omitted with CIFG")
    for idx in (FW_AUX_WEIGHTS, BW_AUX_WEIGHTS):
        given = [has[i] for i in (idx[1:] if fw_cifg else idx)]
        if any(given) and not all(given):
            c.fail(f"the auxiliary weights (inputs {list(idx)}) must be all given (the input gate's omitted "
                   "with CIFG) or all omitted")
    fw_aux, bw_aux = has[FW_AUX_WEIGHTS[1]], has[BW_AUX_WEIGHTS[1]]
    if fw_aux != bw_aux:
        c.fail("the forward and backward auxiliary weights (inputs 40-43, 44-47) must be both given or both omitted")
    if fw_aux and not has[AUX_INPUT]:
        c.fail(f"the auxiliary weights are given without the auxiliary input (input {AUX_INPUT}, "
               f"{names[AUX_INPUT]})")
    if not has[AUX_INPUT]:
        return NO_LINKING
    return CROSS_LINKING if fw_aux else PARALLEL_LINKING


def _check_aux(c: Ctx, mode: str, x_dims: tuple[int, ...], input_size: int, fw: CellConfig) -> int:
    """The auxiliary input's and (cross linking) forward auxiliary weights' shapes; returns the
    backward cell's input size."""
    names = _bi_names()
    if mode == NO_LINKING:
        return input_size
    aux = check_dims(c, AUX_INPUT, names[AUX_INPUT], (x_dims[0], x_dims[1], None))
    if mode == PARALLEL_LINKING:
        return aux[2]
    if aux[2] != input_size:
        c.fail(f"input {AUX_INPUT} ({names[AUX_INPUT]}) has size {aux[2]}; with auxiliary weights (cross "
               f"linking) it must have the input's size {input_size}")
    for i in FW_AUX_WEIGHTS:
        if not c.omitted(i):
            check_dims(c, i, names[i], (fw.units, input_size))
    return input_size


def validate_bidirectional(c: Ctx) -> None:
    """Counts, types and levels at addOperation; presence, linking mode, values and shapes when known."""
    c.counts((61,), (1, 2, 5, 6))
    c.tensor(0, TYPES, "input")
    names = _bi_names()
    for i in (*range(1, 48), *range(53, 61)):
        c.same_type(i, 0, names[i])
    c.scalar(BI_ACTIVATION, INT32, "activation")
    c.float_scalar_for(BI_CELL_CLIP, 0, "cell clip")
    c.float_scalar_for(BI_PROJ_CLIP, 0, "projection clip")
    c.scalar(BI_MERGE, BOOL, "merge outputs")
    c.scalar(BI_TIME_MAJOR, BOOL, "time major")
    for j in range(c.n_out):
        c.out_like(j, 0)
    if c.n_out > 2:
        c.require_level(STATE_OUTPUTS_SINCE, "the final state outputs")
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    merge = bool(c.value(BI_MERGE, "merge outputs"))
    allowed = (1, 5) if merge else (2, 6)
    if c.n_out not in allowed:
        c.fail(f"with merge_outputs {str(merge).lower()} the operation has {allowed[0]} outputs "
               f"(or {allowed[1]} with the final states), got {c.n_out}")
    required = (0, *FW_LAYOUT.required(), *BW_LAYOUT.required(), *range(BI_ACTIVATION, BI_TIME_MAJOR + 1))
    require_present(c, required, [names[i] for i in required])
    c.p.act = activation_code(c, BI_ACTIVATION)
    c.p.cell_clip = check_clip(c, BI_CELL_CLIP, "cell clip")
    c.p.proj_clip = check_clip(c, BI_PROJ_CLIP, "projection clip")
    c.p.time_major = tm = bool(c.value(BI_TIME_MAJOR, "time major"))
    steps, batch, input_size = _sequence_dims(c, 0, "input", tm)
    fw = check_cell(c, FW_LAYOUT, input_size, batch)
    mode = _linking_mode(c, fw.cifg)
    bw_input_size = _check_aux(c, mode, c.dims(0), input_size, fw)
    bw = check_cell(c, BW_LAYOUT, bw_input_size, batch)
    if mode == CROSS_LINKING:
        for i in BW_AUX_WEIGHTS:
            if not c.omitted(i):
                check_dims(c, i, names[i], (bw.units, input_size))
    c.p.fw, c.p.bw, c.p.mode, c.p.merge, c.p.with_state = fw, bw, mode, merge, c.n_out > 2
    outs = [_layout_dims(tm, steps, batch, fw.output_size + bw.output_size if merge else fw.output_size)]
    if not merge:
        outs.append(_layout_dims(tm, steps, batch, bw.output_size))
    if c.p.with_state:
        outs += [(batch, fw.output_size), (batch, fw.units), (batch, bw.output_size), (batch, bw.units)]
    for j, dims in enumerate(outs):
        c.set_out(j, dims)


def compute_bidirectional(ins, p):
    """The forward cell over the steps, then the backward cell from the last step to the first."""
    tm, cross = p.time_major, p.mode == CROSS_LINKING
    x, aux = ins[0], ins[AUX_INPUT]
    clips = (p.act, p.cell_clip, p.proj_clip)
    fw_cell = float_cell(ins, FW_LAYOUT, p.fw, *clips, FW_AUX_WEIGHTS if cross else None)
    bw_cell = float_cell(ins, BW_LAYOUT, p.bw, *clips, BW_AUX_WEIGHTS if cross else None)
    xt = _time_first(x, tm)
    auxt = None if aux is None else _time_first(aux, tm)
    steps, batch = xt.shape[0], xt.shape[1]
    fw_size, bw_size = p.fw.output_size, p.bw.output_size
    if p.merge:
        merged = x.new_empty(_layout_dims(tm, steps, batch, fw_size + bw_size))
        fw_out, bw_out = merged[..., :fw_size], merged[..., fw_size:]
        results = [merged]
    else:
        fw_out = x.new_empty(_layout_dims(tm, steps, batch, fw_size))
        bw_out = x.new_empty(_layout_dims(tm, steps, batch, bw_size))
        results = [fw_out, bw_out]
    fw_h, fw_c, _ = run_sequence(fw_cell, xt, auxt if cross else None, ins[FW_LAYOUT.states[0]],
                                 ins[FW_LAYOUT.states[1]], _time_first(fw_out, tm))
    bw_in = auxt if p.mode == PARALLEL_LINKING else xt
    bw_h, bw_c, _ = run_sequence(bw_cell, bw_in, auxt if cross else None, ins[BW_LAYOUT.states[0]],
                                 ins[BW_LAYOUT.states[1]], _time_first(bw_out, tm), reverse=True)
    if p.with_state:
        results += [fw_h.clone(), fw_c.clone(), bw_h.clone(), bw_c.clone()]
    return results


OPERATIONS: tuple[OperationDef, ...] = (
    OperationDef("BIDIRECTIONAL_SEQUENCE_LSTM", 42, 29, validate_bidirectional, compute_bidirectional),
    OperationDef("UNIDIRECTIONAL_SEQUENCE_LSTM", 92, 29, validate_unidirectional, compute_unidirectional),
)
