"""What the LSTM operations share: where a cell's tensors are among an operation's inputs, Android's
checks of them (CIFG, peephole, projection and layer normalization present or omitted together,
the shapes), and the float cell run over a sequence.

A cell's 17 tensors follow each other in every LSTM operation: input-to-{input, forget, cell,
output} weights [units, input_size], recurrent-to-{...} weights [units, output_size], cell-to-{input,
forget, output} (peephole) weights [units], {input, forget, cell, output} gate biases [units],
projection weights [output_size, units] and projection bias [output_size]. The states
([batch, output_size], [batch, units]) and the four layer-normalization weights [units] are
elsewhere, per operation (`CellLayout`).

Beyond Android's checks, `check_cell` refuses two models whose reference computation reads
memory the shapes do not describe: states of other shapes than [batch, output_size] and
[batch, units] (Android's LSTM and BIDIRECTIONAL_SEQUENCE_LSTM read them unchecked), and an
output size other than the number of units without projection (the reference then copies
batch * output_size values of the [batch, units] gate buffer).

The float cell is Android's reference step (LSTM.cpp's LSTMStep, TFLite's kernel): gates
``W x + R h`` (plus the auxiliary input's ``W_aux a``) plus the bias, or, with layer normalization,
the normalized sum times the layer-norm weights plus the bias; peepholes add ``p * c`` (the previous
cell state for the input and forget gates, the new one for the output gate); CIFG couples the input
gate to ``1 - forget``; ``c' = f c + i act(z)`` clipped to ``cell_clip`` when it is > 0; ``h = o act(c')``,
projected (and clipped to ``proj_clip`` when > 0) when projection weights are given.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import torch
import torch.nn.functional as F

from .common import Ctx
from .rnn import ACT_TANH, activate, check_dims, optional_omitted

GATES = ("input", "forget", "cell", "output")
PEEPHOLE_GATES = ("input", "forget", "output")
LAYER_NORM_EPSILON = 1e-8   # TFLite's MeanStddevNormalization


@dataclasses.dataclass(frozen=True)
class CellLayout:
    """Where one cell's tensors are: ``first`` is its input-to-input weights (the 17 tensors of the
    module docstring follow), ``states`` its output and cell state inputs, ``layer_norm`` its input
    layer-norm weights (the four follow; None when the operation has no such inputs)."""

    first: int
    states: tuple[int, int]
    layer_norm: Optional[int]
    prefix: str = ""

    @property
    def input_weights(self) -> tuple[int, ...]:
        return tuple(range(self.first, self.first + 4))

    @property
    def recurrent_weights(self) -> tuple[int, ...]:
        return tuple(range(self.first + 4, self.first + 8))

    @property
    def peephole(self) -> tuple[int, ...]:
        return tuple(range(self.first + 8, self.first + 11))

    @property
    def biases(self) -> tuple[int, ...]:
        return tuple(range(self.first + 11, self.first + 15))

    @property
    def projection(self) -> tuple[int, int]:
        return self.first + 15, self.first + 16

    @property
    def layer_norms(self) -> tuple[int, ...]:
        return () if self.layer_norm is None else tuple(range(self.layer_norm, self.layer_norm + 4))

    def names(self) -> dict[int, str]:
        """Input index -> Android's name of the tensor, for messages."""
        p = self.prefix
        out = {}
        for k, g in enumerate(GATES):
            out[self.input_weights[k]] = f"{p}input_to_{g}_weights"
            out[self.recurrent_weights[k]] = f"{p}recurrent_to_{g}_weights"
            out[self.biases[k]] = f"{p}{g}_gate_bias"
            if self.layer_norms:
                out[self.layer_norms[k]] = f"{p}{g}_layer_norm_weights"
        for k, g in enumerate(PEEPHOLE_GATES):
            out[self.peephole[k]] = f"{p}cell_to_{g}_weights"
        out[self.projection[0]], out[self.projection[1]] = f"{p}projection_weights", f"{p}projection_bias"
        out[self.states[0]], out[self.states[1]] = f"{p}output_state_in", f"{p}cell_state_in"
        return out

    def required(self) -> tuple[int, ...]:
        """The tensors Android requires (every other one may be omitted)."""
        return (*self.input_weights[1:], *self.recurrent_weights[1:], *self.biases[1:], *self.states)

    def tensors(self) -> tuple[int, ...]:
        return (self.first, *range(self.first + 1, self.first + 17), *self.states, *self.layer_norms)


@dataclasses.dataclass(frozen=True)
class CellConfig:
    """Which optional parts a cell has, and its sizes (from Android's checks)."""

    cifg: bool
    peephole: bool
    layer_norm: bool
    projection: bool
    projection_bias: bool
    units: int
    output_size: int


def check_cell(c: Ctx, layout: CellLayout, input_size: int, batch: int, cifg_for_aux: Optional[bool] = None,
               check_states: bool = True) -> CellConfig:
    """Android's shape and presence checks of one cell (LSTMCell::CheckInputTensorDimensions and the
    sequence operations' prepare); the operation has checked its required inputs are present.
    Returns the cell's configuration. Waits (Deferred) while a shape or an omission is unknown."""
    names = layout.names()
    has = {i: not optional_omitted(c, i) for i in layout.tensors() if i not in layout.required()}
    has.update({i: True for i in layout.required()})

    def dims(i: int, want) -> tuple[int, ...]:
        return check_dims(c, i, names[i], want)

    i2i, i2f, i2c, i2o = layout.input_weights
    r2i, r2f, r2c, r2o = layout.recurrent_weights
    units = dims(i2o, (None, input_size))[0]
    out_size = dims(r2o, (units, None))[1]
    for i in (i2i, i2f, i2c):
        if has[i]:
            dims(i, (units, input_size))
    for i in (r2i, r2f, r2c):
        if has[i]:
            dims(i, (units, out_size))
    if has[i2i] != has[r2i]:
        c.fail(f"{names[i2i]} (input {i2i}) and {names[r2i]} (input {r2i}) must be both given or both "
               "omitted (CIFG)")
    cifg = not has[i2i]
    for i in layout.peephole:
        if has[i]:
            dims(i, (units,))
    p_in, p_forget, p_out = (has[i] for i in layout.peephole)
    if not ((p_in or cifg) and p_forget and p_out) and (p_in or p_forget or p_out):
        c.fail(f"the peephole weights (inputs {list(layout.peephole)}) must be all given (the input gate's "
               "may be omitted with CIFG) or all omitted")
    b_in = layout.biases[0]
    if cifg and has[b_in]:
        c.fail(f"{names[b_in]} (input {b_in}) must be omitted with CIFG (input-to-input weights omitted)")
    if not cifg and not has[b_in]:
        c.fail(f"{names[b_in]} (input {b_in}) is required when the input gate is used (no CIFG)")
    for i in layout.biases:
        if has[i]:
            dims(i, (units,))
    proj_w, proj_b = layout.projection
    if has[proj_w]:
        dims(proj_w, (out_size, units))
    if has[proj_b]:
        dims(proj_b, (out_size,))
    if has[proj_b] and not has[proj_w]:
        c.fail(f"{names[proj_b]} (input {proj_b}) is given without {names[proj_w]} (input {proj_w})")
    if not has[proj_w] and out_size != units:
        c.fail(f"without projection the output size ({out_size}, from {names[r2o]}) must equal the number "
               f"of units ({units})")
    layer_norm = _check_layer_norm(c, layout, has, cifg, units)
    if check_states:
        dims(layout.states[0], (batch, out_size))
        dims(layout.states[1], (batch, units))
    return CellConfig(cifg, p_out, layer_norm, has[proj_w], has[proj_b], units, out_size)


def _check_layer_norm(c: Ctx, layout: CellLayout, has: dict[int, bool], cifg: bool, units: int) -> bool:
    if not layout.layer_norms:
        return False
    names = layout.names()
    for i in layout.layer_norms:
        if has[i]:
            check_dims(c, i, names[i], (units,))
    first, rest = layout.layer_norms[0], layout.layer_norms[1:]
    if cifg and has[first]:
        c.fail(f"{names[first]} (input {first}) must be omitted with CIFG")
    given = [has[i] for i in (rest if cifg else layout.layer_norms)]
    if any(given) and not all(given):
        c.fail(f"the layer normalization weights (inputs {list(layout.layer_norms)}) must be all given "
               "(the input gate's omitted with CIFG) or all omitted")
    return has[layout.layer_norms[3]]


def check_clip(c: Ctx, i: int, what: str) -> float:
    """A clipping threshold: Android's LSTM and BIDIRECTIONAL_SEQUENCE_LSTM refuse a negative one."""
    v = float(c.value(i, what))
    if not v >= 0:
        c.fail(f"input {i} ({what}) must be >= 0 (0: no clipping), got {v}")
    return v


# -- the float cell ----------------------------------------------------------------------------------
@dataclasses.dataclass
class FloatCell:
    """One cell's weights as the step uses them: the gates stacked in the order of GATES (without
    the input gate for CIFG)."""

    config: CellConfig
    input_weights: torch.Tensor                 # [G*units, input_size]
    recurrent_weights: torch.Tensor             # [G*units, output_size]
    bias: torch.Tensor                          # [G*units]
    aux_weights: Optional[torch.Tensor]         # [G*units, aux_size] (BIDIRECTIONAL's cross linking)
    peephole: Optional[tuple[Optional[torch.Tensor], torch.Tensor, torch.Tensor]]
    layer_norm: Optional[torch.Tensor]          # [G, units]
    projection: Optional[tuple[torch.Tensor, Optional[torch.Tensor]]]
    act: int
    cell_clip: float
    proj_clip: float

    @property
    def plain(self) -> bool:
        """torch.nn.LSTM's cell: torch.lstm computes it whole (a C++ loop over the steps)."""
        cfg = self.config
        return (not (cfg.cifg or cfg.peephole or cfg.layer_norm or cfg.projection) and self.act == ACT_TANH
                and not self.cell_clip > 0 and self.aux_weights is None)


def float_cell(ins: list, layout: CellLayout, config: CellConfig, act: int, cell_clip: float, proj_clip: float,
               aux_weights: Optional[tuple[int, ...]] = None) -> FloatCell:
    """Gather a cell's tensors from the operation's inputs (``aux_weights``: the auxiliary input's
    four weights' input indices)."""
    gates = slice(1, 4) if config.cifg else slice(0, 4)
    stack = lambda idx: torch.cat([ins[i] for i in idx[gates]])  # noqa: E731
    peep = None
    if config.peephole:
        peep = tuple(None if config.cifg and k == 0 else ins[i] for k, i in enumerate(layout.peephole))
    norm = torch.stack([ins[i] for i in layout.layer_norms[gates]]) if config.layer_norm else None
    proj = None
    if config.projection:
        pw, pb = layout.projection
        proj = (ins[pw], ins[pb] if config.projection_bias else None)
    return FloatCell(config, stack(layout.input_weights), stack(layout.recurrent_weights), stack(layout.biases),
                     None if aux_weights is None else stack(aux_weights), peep, norm, proj, act, cell_clip,
                     proj_clip)


def _normalize(x: torch.Tensor) -> torch.Tensor:
    """TFLite's MeanStddevNormalization over the last dim."""
    mean = x.mean(-1, keepdim=True)
    centered = x - mean
    variance = (centered * centered).mean(-1, keepdim=True)
    return centered * torch.rsqrt(variance + LAYER_NORM_EPSILON)


def run_sequence(cell: FloatCell, x: torch.Tensor, aux: Optional[torch.Tensor], h: torch.Tensor, c: torch.Tensor,
                 out: torch.Tensor, reverse: bool = False,
                 keep_scratch: bool = False) -> tuple[torch.Tensor, torch.Tensor, list]:
    """The cell over ``x`` [T, B, input_size] (steps backwards when ``reverse``), each step's output
    written to ``out`` [T, B, output_size] (a view, possibly strided). Returns the final output and
    cell states, and with ``keep_scratch`` the last step's gate values as Android's scratch buffer
    holds them (else possibly [])."""
    if cell.plain and not keep_scratch and x.numel() > 0 and h.numel() > 0:
        return _run_plain(cell, x, h, c, out, reverse)
    cfg = cell.config
    units = cfg.units
    pre = F.linear(x, cell.input_weights, None if cfg.layer_norm else cell.bias)
    if aux is not None and cell.aux_weights is not None:
        pre = pre + F.linear(aux, cell.aux_weights)
    rt = cell.recurrent_weights.t()
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    scratch: list = []
    gate_count = 3 if cfg.cifg else 4
    for s in steps:
        gates = torch.addmm(pre[s], h, rt).view(h.shape[0], gate_count, units)
        h, c, scratch = _step(cell, gates, c)
        out[s].copy_(h)
    return h, c, scratch


def _step(cell: FloatCell, gates: torch.Tensor, c_prev: torch.Tensor):
    """One step from the gates' input terms [B, G, units]."""
    cfg = cell.config
    g = list(gates.unbind(1))
    if cfg.cifg:
        g.insert(0, None)
    i, f, z, o = g
    peep = cell.peephole
    norm = cell.layer_norm
    bias = cell.bias.view(-1, cfg.units)
    k0 = 0 if cfg.cifg else 1   # row of the forget gate in the stacked norm / bias

    def finish(t: torch.Tensor, row: int) -> torch.Tensor:
        if norm is None:
            return t
        return _normalize(t) * norm[row] + bias[row]

    if not cfg.cifg:
        if peep is not None:
            i = i + peep[0] * c_prev
        i = torch.sigmoid(finish(i, 0))
    if peep is not None:
        f = f + peep[1] * c_prev
    f = torch.sigmoid(finish(f, k0))
    z = activate(finish(z, k0 + 1).clone(), cell.act)
    if cfg.cifg:
        i = 1.0 - f
    c_new = f * c_prev + z * i
    if cell.cell_clip > 0:
        c_new.clamp_(-cell.cell_clip, cell.cell_clip)
    if peep is not None:
        o = o + peep[2] * c_new
    o = torch.sigmoid(finish(o, k0 + 2))
    act_c = activate(c_new.clone(), cell.act)
    hidden = o * act_c
    h = hidden
    if cell.projection is not None:
        h = F.linear(hidden, *cell.projection)
        if cell.proj_clip > 0:
            h.clamp_(-cell.proj_clip, cell.proj_clip)
    # What Android's scratch buffer holds after the step (gate blocks of [B, units] one after the
    # other): the input gate, act(c'), the forget gate (1 - forget with CIFG), o * act(c').
    scratch = ([] if cfg.cifg else [i]) + [act_c, i if cfg.cifg else f, hidden]
    return h, c_new, scratch


def _run_plain(cell: FloatCell, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor, out: torch.Tensor,
               reverse: bool):
    """torch.nn.LSTM's cell over the sequence in one torch.lstm call (gates i, f, g, o as NNAPI's)."""
    xs = x.flip(0) if reverse else x
    params = [cell.input_weights, cell.recurrent_weights, cell.bias, torch.zeros_like(cell.bias)]
    y, h_n, c_n = torch.lstm(xs, (h.unsqueeze(0), c.unsqueeze(0)), params, True, 1, 0.0, False, False, False)
    out.copy_(y.flip(0) if reverse else y)
    return h_n[0], c_n[0], []


def scratch_buffer(scratch: list, batch: int, units: int, gates: int, like: torch.Tensor) -> torch.Tensor:
    """LSTM's scratch output [batch, gates*units] with Android's contents: the gate blocks one after
    the other, each [batch, units] (zeros when there was no step)."""
    if not scratch:
        return like.new_zeros((batch, gates * units))
    return torch.stack(scratch).reshape(batch, gates * units)
