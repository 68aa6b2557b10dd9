"""LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM, QUANTIZED_16BIT_LSTM and
QUANTIZED_LSTM in the host driver, driven through the C API.

The float forms are compared with torch.nn.LSTMCell / torch.nn.LSTM with their weights copied
(projection: torch's proj_size; the sequence operations with a time dimension known only at
execution, one compilation run on sequences of two lengths), and the cells torch has not (CIFG,
peepholes, layer normalization, clipping, a projection bias) with a float64 step written here. The
quantized forms are compared with the numbers of Android's spec examples. Each operation also gets
the operand types and values Android refuses.
"""

from __future__ import annotations

import ctypes
from typing import Optional, Sequence

import pytest
import torch

from nnapi_client import (BAD_DATA, BOOL, INT32, NO_ERROR, QA8, TF16, TF32, TI32, Execution, Model, OperandType,
                          last_error, u32_array)

FLOAT16 = 10
Q16S, QS8, QA8S = 7, 13, 14
TANH = 4
BATCH, IN, UNITS = 2, 3, 4


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _rand(*shape: int, seed: int, scale: float = 0.5) -> torch.Tensor:
    return (torch.rand(*shape, generator=_gen(seed)) * 2 - 1) * scale


def _float_scalar(m: Model, v: float, code: int) -> int:
    """A FLOAT32 constant for TENSOR_FLOAT32 operations, FLOAT16 for TENSOR_FLOAT16 ones."""
    if code == TF32:
        return m.f32(v)
    idx = m.operand(FLOAT16)
    m.set_value(idx, torch.tensor([v], dtype=torch.float16).numpy().tobytes())
    return idx


def _execute(lib, comp, inputs: Sequence[Optional[torch.Tensor]], out_shapes: Sequence[Sequence[int]],
             dtype: torch.dtype = torch.float32, expect: int = NO_ERROR) -> list[torch.Tensor]:
    """One execution of ``comp``: each input with a type giving its full shape; outputs into
    buffers of ``out_shapes``, whose reported dims must match."""
    ex = Execution(lib, comp)
    for j, x in enumerate(inputs):
        code = {torch.float16: TF16, torch.float32: TF32}.get(x.dtype)
        t = OperandType(code, x.dim(), u32_array(list(x.shape)), 0.0, 0) if code is not None else None
        ex.set_input(j, x, type_=None if t is None else ctypes.byref(t))
    outs = [torch.zeros(tuple(s), dtype=dtype) for s in out_shapes]
    for j, o in enumerate(outs):
        ex.set_output(j, o)
    assert ex.compute() == expect, last_error(lib)
    if expect == NO_ERROR:
        for j, s in enumerate(out_shapes):
            dims = u32_array([0] * len(s))
            assert lib.ANeuralNetworksExecution_getOutputOperandDimensions(ex.handle, j, dims) == NO_ERROR
            assert list(dims)[:len(s)] == list(s)
    return outs


def _close(actual: torch.Tensor, expected: torch.Tensor) -> None:
    if actual.dtype == torch.float16:
        torch.testing.assert_close(actual.float(), expected.float(), atol=2e-3, rtol=2e-3)
    else:
        torch.testing.assert_close(actual, expected.float(), atol=1e-5, rtol=1e-5)


# -- a cell's 17 tensors ------------------------------------------------------------------------------
class Cell:
    """NNAPI's tensors of one LSTM cell (None: omitted): input-to-{i, f, c, o} weights, recurrent-to-
    {i, f, c, o} weights, cell-to-{i, f, o} peepholes, {i, f, c, o} biases, projection weights and
    bias, and the four layer-norm weights."""

    def __init__(self, w_in: list, w_rec: list, bias: list, peephole: Optional[list] = None,
                 projection: tuple = (None, None), layer_norm: Optional[list] = None) -> None:
        self.w_in, self.w_rec, self.bias = w_in, w_rec, bias
        self.peephole = peephole or [None, None, None]
        self.projection = projection
        self.layer_norm = layer_norm or [None] * 4

    @classmethod
    def from_torch(cls, lstm: torch.nn.Module, suffix: str = "") -> "Cell":
        """A torch LSTM's weights (gates i, f, g, o, as NNAPI's), its two biases added."""
        g = lambda name: getattr(lstm, name + suffix).detach()  # noqa: E731
        proj = (g("weight_hr"), None) if getattr(lstm, "proj_size", 0) else (None, None)
        return cls(list(g("weight_ih").chunk(4)), list(g("weight_hh").chunk(4)),
                   list((g("bias_ih") + g("bias_hh")).chunk(4)), projection=proj)

    @classmethod
    def random(cls, units: int, in_size: int, out_size: int, seed: int, cifg=False, peephole=False,
               projection=False, layer_norm=False) -> "Cell":
        w_in = [_rand(units, in_size, seed=seed + k) for k in range(4)]
        w_rec = [_rand(units, out_size, seed=seed + 4 + k) for k in range(4)]
        bias = [_rand(units, seed=seed + 8 + k) for k in range(4)]
        peep = [_rand(units, seed=seed + 12 + k) for k in range(3)] if peephole else None
        norm = [1 + _rand(units, seed=seed + 15 + k, scale=0.2) for k in range(4)] if layer_norm else None
        proj = (_rand(out_size, units, seed=seed + 19), _rand(out_size, seed=seed + 20)) if projection else (None, None)
        if cifg:
            w_in[0] = w_rec[0] = bias[0] = None
            if peep:
                peep[0] = None
            if norm:
                norm[0] = None
        return cls(w_in, w_rec, bias, peep, proj, norm)

    def tensors(self) -> list:
        return [*self.w_in, *self.w_rec, *self.peephole, *self.bias, *self.projection]

    def add(self, m: Model, code: int, dtype: torch.dtype, layer_norm: bool = False) -> tuple[list[int], list[int]]:
        """The 17 tensors as constants or omitted operands, and the four layer-norm ones."""
        def operand(t):
            return m.omitted(code, [0]) if t is None else m.const(t.to(dtype), code)
        return [operand(t) for t in self.tensors()], [operand(t) for t in self.layer_norm] if layer_norm else []

    @property
    def units(self) -> int:
        return self.w_in[1].shape[0]

    @property
    def out_size(self) -> int:
        return self.w_rec[1].shape[1]


def _reference_step(cell: Cell, x, h, c, cell_clip: float = 0.0, proj_clip: float = 0.0):
    """One step of NNAPI's LSTM cell in float64 (tanh activation): returns (h', c', gates)."""
    d = lambda t: None if t is None else t.double()  # noqa: E731
    x, h, c = x.double(), h.double(), c.double()
    norm = cell.layer_norm

    def pre(k: int, peep_state=None, peep=None):
        acc = x @ d(cell.w_in[k]).T + h @ d(cell.w_rec[k]).T
        if peep is not None:
            acc = acc + d(peep) * peep_state
        if norm[1] is not None:   # layer normalization (the forget gate's weights are always given)
            mean = acc.mean(-1, keepdim=True)
            var = ((acc - mean) ** 2).mean(-1, keepdim=True)
            return (acc - mean) / torch.sqrt(var + 1e-8) * d(norm[k]) + d(cell.bias[k])
        return acc + d(cell.bias[k])

    cifg = cell.w_in[0] is None
    f = torch.sigmoid(pre(1, c, cell.peephole[1]))
    i = 1 - f if cifg else torch.sigmoid(pre(0, c, cell.peephole[0]))
    z = torch.tanh(pre(2))
    c_new = f * c + i * z
    if cell_clip > 0:
        c_new = c_new.clamp(-cell_clip, cell_clip)
    o = torch.sigmoid(pre(3, c_new, cell.peephole[2]))
    hidden = o * torch.tanh(c_new)
    w, b = cell.projection
    if w is not None:
        hidden_proj = hidden @ d(w).T + (0 if b is None else d(b))
        if proj_clip > 0:
            hidden_proj = hidden_proj.clamp(-proj_clip, proj_clip)
        return hidden_proj, c_new, (i, torch.tanh(c_new), f, hidden)
    return hidden, c_new, (i, torch.tanh(c_new), f, hidden)


# -- LSTM ------------------------------------------------------------------------------------------
def _lstm_model(lib, cell: Cell, code: int, dtype: torch.dtype, layer_norm: bool = False, cell_clip: float = 0.0,
                proj_clip: float = 0.0) -> Model:
    m = Model(lib)
    x = m.tensor([BATCH, IN], code)
    tensors, norms = cell.add(m, code, dtype, layer_norm)
    h0, c0 = m.tensor([BATCH, cell.out_size], code), m.tensor([BATCH, cell.units], code)
    gates = 3 if cell.w_in[0] is None else 4
    outs = [m.tensor([BATCH, cell.units * gates], code), m.tensor([BATCH, cell.out_size], code),
            m.tensor([BATCH, cell.units], code), m.tensor([BATCH, cell.out_size], code)]
    m.op("LSTM", [x, *tensors, h0, c0, m.i32(TANH), _float_scalar(m, cell_clip, code),
                  _float_scalar(m, proj_clip, code), *norms], outs)
    m.io([x, h0, c0], outs)
    m.finish()
    return m


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float32", "float16"])
def test_lstm_is_one_step_of_torchs_lstm_cell(lib, driver, dtype):
    torch_cell = torch.nn.LSTMCell(IN, UNITS)
    cell = Cell.from_torch(torch_cell)
    code = TF16 if dtype == torch.float16 else TF32
    x, h, c = _rand(BATCH, IN, seed=1, scale=2), _rand(BATCH, UNITS, seed=2), _rand(BATCH, UNITS, seed=3)
    x, h, c = x.to(dtype), h.to(dtype), c.to(dtype)
    m = _lstm_model(lib, cell, code, dtype)
    outs = _execute(lib, m.compile(), [x, h, c], [[BATCH, 4 * UNITS]] + [[BATCH, UNITS]] * 3, dtype)
    weights = {k: v.to(dtype).float() for k, v in torch_cell.state_dict().items()}
    torch_cell.load_state_dict(weights)
    with torch.no_grad():
        h_ref, c_ref = torch_cell(x.float(), (h.float(), c.float()))
    scratch, h_out, c_out, y = outs
    _close(h_out, h_ref)
    _close(c_out, c_ref)
    _close(y, h_ref)
    # The scratch buffer holds what Android's reference leaves there: input gate, tanh(c'), forget
    # gate and o * tanh(c'), each a [batch, units] block.
    gates = torch.nn.functional.linear(x.float(), torch_cell.weight_ih, torch_cell.bias_ih) + \
        torch.nn.functional.linear(h.float(), torch_cell.weight_hh, torch_cell.bias_hh)
    i, f, _, o = gates.detach().chunk(4, 1)
    expected = torch.stack([torch.sigmoid(i), torch.tanh(c_ref), torch.sigmoid(f),
                            torch.sigmoid(o) * torch.tanh(c_ref)])
    _close(scratch, expected.reshape(BATCH, 4 * UNITS))


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
def test_lstm_projection_is_torchs_lstm_with_proj_size(lib, driver):
    torch_lstm = torch.nn.LSTM(IN, UNITS, proj_size=2)
    cell = Cell.from_torch(torch_lstm, "_l0")
    x, h, c = _rand(BATCH, IN, seed=4, scale=2), _rand(BATCH, 2, seed=5), _rand(BATCH, UNITS, seed=6)
    m = _lstm_model(lib, cell, TF32, torch.float32)
    _, h_out, c_out, y = _execute(lib, m.compile(), [x, h, c], [[BATCH, 4 * UNITS], [BATCH, 2], [BATCH, UNITS],
                                                                [BATCH, 2]])
    with torch.no_grad():
        y_ref, (h_ref, c_ref) = torch_lstm(x[None], (h[None], c[None]))
    _close(y, y_ref[0])
    _close(h_out, h_ref[0])
    _close(c_out, c_ref[0])


@pytest.mark.parametrize("cifg", [False, True], ids=["input_gate", "cifg"])
def test_lstm_peephole_layer_norm_projection_and_clips_match_a_step_computed_here(lib, driver, cifg):
    cell = Cell.random(UNITS, IN, 3, seed=10, cifg=cifg, peephole=True, projection=True, layer_norm=True)
    x, h, c = _rand(BATCH, IN, seed=7, scale=3), _rand(BATCH, 3, seed=8), _rand(BATCH, UNITS, seed=9, scale=2)
    m = _lstm_model(lib, cell, TF32, torch.float32, layer_norm=True, cell_clip=0.8, proj_clip=0.3)
    gates = 3 if cifg else 4
    scratch, h_out, c_out, y = _execute(lib, m.compile(), [x, h, c], [[BATCH, gates * UNITS], [BATCH, 3],
                                                                      [BATCH, UNITS], [BATCH, 3]])
    h_ref, c_ref, (i, act_c, f, hidden) = _reference_step(cell, x, h, c, cell_clip=0.8, proj_clip=0.3)
    _close(c_out, c_ref)
    _close(h_out, h_ref)
    _close(y, h_ref)
    blocks = [act_c, i, hidden] if cifg else [i, act_c, f, hidden]
    _close(scratch, torch.stack(blocks).reshape(BATCH, gates * UNITS))


# -- UNIDIRECTIONAL_SEQUENCE_LSTM ----------------------------------------------------------------------
def _sequence_shape(time_major: bool, steps: int, batch: int, size: int) -> list[int]:
    return [steps, batch, size] if time_major else [batch, steps, size]


def _unidirectional_model(lib, cell: Cell, code: int, dtype: torch.dtype, time_major: bool, with_state: bool,
                          cell_clip: float = 0.0, proj_clip: float = 0.0) -> Model:
    """The input's and output's time dimension is 0 (known only at execution)."""
    m = Model(lib)
    x = m.tensor(_sequence_shape(time_major, 0, BATCH, IN), code)
    tensors, norms = cell.add(m, code, dtype, layer_norm=True)
    h0, c0 = m.tensor([BATCH, cell.out_size], code), m.tensor([BATCH, cell.units], code)
    outs = [m.tensor(_sequence_shape(time_major, 0, BATCH, cell.out_size), code)]
    if with_state:
        outs += [m.tensor([BATCH, cell.out_size], code), m.tensor([BATCH, cell.units], code)]
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", [x, *tensors, h0, c0, m.i32(TANH), _float_scalar(m, cell_clip, code),
                                          _float_scalar(m, proj_clip, code), m.bool(time_major), *norms], outs)
    m.io([x, h0, c0], outs)
    m.finish()
    return m


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float32", "float16"])
@pytest.mark.parametrize("time_major", [True, False], ids=["time_major", "batch_major"])
def test_unidirectional_sequence_lstm_is_torchs_lstm_over_any_length(lib, driver, time_major, dtype):
    torch_lstm = torch.nn.LSTM(IN, UNITS, batch_first=not time_major)
    code = TF16 if dtype == torch.float16 else TF32
    torch_lstm.load_state_dict({k: v.to(dtype).float() for k, v in torch_lstm.state_dict().items()})
    comp = _unidirectional_model(lib, Cell.from_torch(torch_lstm, "_l0"), code, dtype, time_major, True).compile()
    for steps, seed in ((5, 20), (2, 21)):   # one compilation, two sequence lengths
        x = _rand(*_sequence_shape(time_major, steps, BATCH, IN), seed=seed, scale=2).to(dtype)
        h, c = _rand(BATCH, UNITS, seed=seed + 1).to(dtype), _rand(BATCH, UNITS, seed=seed + 2).to(dtype)
        y, h_out, c_out = _execute(lib, comp, [x, h, c], [_sequence_shape(time_major, steps, BATCH, UNITS),
                                                          [BATCH, UNITS], [BATCH, UNITS]], dtype)
        with torch.no_grad():
            y_ref, (h_ref, c_ref) = torch_lstm(x.float(), (h.float()[None], c.float()[None]))
        _close(y, y_ref)
        _close(h_out, h_ref[0])
        _close(c_out, c_ref[0])


@pytest.mark.parametrize("cifg", [False, True], ids=["input_gate", "cifg"])
def test_unidirectional_sequence_lstm_general_cell_matches_steps_computed_here(lib, driver, cifg):
    cell = Cell.random(UNITS, IN, 3, seed=30, cifg=cifg, peephole=True, projection=True, layer_norm=True)
    comp = _unidirectional_model(lib, cell, TF32, torch.float32, False, True, cell_clip=0.9, proj_clip=0.4).compile()
    steps = 4
    x = _rand(BATCH, steps, IN, seed=31, scale=3)
    h, c = _rand(BATCH, 3, seed=32), _rand(BATCH, UNITS, seed=33)
    y, h_out, c_out = _execute(lib, comp, [x, h, c], [[BATCH, steps, 3], [BATCH, 3], [BATCH, UNITS]])
    ys = []
    for t in range(steps):
        h, c, _ = _reference_step(cell, x[:, t], h, c, cell_clip=0.9, proj_clip=0.4)
        ys.append(h)
    _close(y, torch.stack(ys, 1))
    _close(h_out, h)
    _close(c_out, c)


# -- BIDIRECTIONAL_SEQUENCE_LSTM -----------------------------------------------------------------------
def _bidirectional_model(lib, fw: Cell, bw: Cell, time_major: bool, merge: bool, aux_size: int = 0) -> Model:
    """Float32, time dimension 0 (known at execution), the four state outputs; ``aux_size`` > 0: an
    auxiliary input of that size as the backward cell's input (parallel linking)."""
    m = Model(lib)
    x = m.tensor(_sequence_shape(time_major, 0, BATCH, IN), TF32)
    fw_t, fw_norm = fw.add(m, TF32, torch.float32, layer_norm=True)
    bw_t, bw_norm = bw.add(m, TF32, torch.float32, layer_norm=True)
    states = [m.tensor([BATCH, fw.out_size]), m.tensor([BATCH, fw.units]), m.tensor([BATCH, bw.out_size]),
              m.tensor([BATCH, bw.units])]
    aux = m.tensor(_sequence_shape(time_major, 0, BATCH, aux_size)) if aux_size else m.omitted(TF32, [0])
    aux_weights = [m.omitted(TF32, [0]) for _ in range(8)]
    if merge:
        outs = [m.tensor(_sequence_shape(time_major, 0, BATCH, fw.out_size + bw.out_size))]
    else:
        outs = [m.tensor(_sequence_shape(time_major, 0, BATCH, fw.out_size)),
                m.tensor(_sequence_shape(time_major, 0, BATCH, bw.out_size))]
    outs += [m.tensor([BATCH, fw.out_size]), m.tensor([BATCH, fw.units]), m.tensor([BATCH, bw.out_size]),
             m.tensor([BATCH, bw.units])]
    m.op("BIDIRECTIONAL_SEQUENCE_LSTM", [x, *fw_t, *bw_t, *states, aux, *aux_weights, m.i32(TANH), m.f32(0.0),
                                         m.f32(0.0), m.bool(merge), m.bool(time_major), *fw_norm, *bw_norm], outs)
    m.io([x, *states] + ([aux] if aux_size else []), outs)
    m.finish()
    return m


@pytest.mark.parametrize("merge", [True, False], ids=["merged", "separate"])
@pytest.mark.parametrize("time_major", [True, False], ids=["time_major", "batch_major"])
def test_bidirectional_sequence_lstm_is_torchs_bidirectional_lstm_over_any_length(lib, driver, time_major, merge):
    torch_lstm = torch.nn.LSTM(IN, UNITS, bidirectional=True, batch_first=not time_major)
    fw, bw = Cell.from_torch(torch_lstm, "_l0"), Cell.from_torch(torch_lstm, "_l0_reverse")
    comp = _bidirectional_model(lib, fw, bw, time_major, merge).compile()
    for steps, seed in ((4, 40), (1, 41)):
        x = _rand(*_sequence_shape(time_major, steps, BATCH, IN), seed=seed, scale=2)
        states = [_rand(BATCH, UNITS, seed=seed + k) for k in range(1, 5)]
        seq = _sequence_shape(time_major, steps, BATCH, UNITS)
        out_shapes = ([_sequence_shape(time_major, steps, BATCH, 2 * UNITS)] if merge else [seq, seq]) + \
            [[BATCH, UNITS]] * 4
        outs = _execute(lib, comp, [x, *states], out_shapes)
        with torch.no_grad():
            y_ref, (h_ref, c_ref) = torch_lstm(x, (torch.stack(states[0::2]), torch.stack(states[1::2])))
        if merge:
            _close(outs[0], y_ref)
        else:
            _close(torch.cat(outs[:2], -1), y_ref)
        fw_h, fw_c, bw_h, bw_c = outs[-4:]
        _close(torch.stack([fw_h, bw_h]), h_ref)
        _close(torch.stack([fw_c, bw_c]), c_ref)


def test_bidirectional_parallel_linking_runs_the_backward_cell_on_the_auxiliary_input(lib, driver):
    forward, backward = torch.nn.LSTM(IN, UNITS), torch.nn.LSTM(5, UNITS)
    comp = _bidirectional_model(lib, Cell.from_torch(forward, "_l0"), Cell.from_torch(backward, "_l0"), True,
                                False, aux_size=5).compile()
    steps = 3
    x, aux = _rand(steps, BATCH, IN, seed=50), _rand(steps, BATCH, 5, seed=51)
    states = [_rand(BATCH, UNITS, seed=52 + k) for k in range(4)]
    outs = _execute(lib, comp, [x, *states, aux], [[steps, BATCH, UNITS]] * 2 + [[BATCH, UNITS]] * 4)
    with torch.no_grad():
        fw_ref, _ = forward(x, (states[0][None], states[1][None]))
        bw_ref, (bw_h, bw_c) = backward(aux.flip(0), (states[2][None], states[3][None]))
    _close(outs[0], fw_ref)
    _close(outs[1], bw_ref.flip(0))
    _close(outs[4], bw_h[0])
    _close(outs[5], bw_c[0])



def test_bidirectional_sequence_lstm_over_an_empty_sequence_gives_the_initial_states(lib, driver):
    """Android's reference checks no zero-sized input of BIDIRECTIONAL_SEQUENCE_LSTM (unlike
    UNIDIRECTIONAL's): a sequence of no step (here an empty SLICE) leaves the states as they were."""
    torch_lstm = torch.nn.LSTM(IN, UNITS, bidirectional=True)
    fw, bw = Cell.from_torch(torch_lstm, "_l0"), Cell.from_torch(torch_lstm, "_l0_reverse")
    m = Model(lib)
    x, empty = m.tensor([2, BATCH, IN]), m.tensor([0, BATCH, IN])
    m.op("SLICE", [x, m.const(torch.tensor([2, 0, 0], dtype=torch.int32)),
                   m.const(torch.tensor([0, BATCH, IN], dtype=torch.int32))], [empty])
    fw_t, fw_norm = fw.add(m, TF32, torch.float32, layer_norm=True)
    bw_t, bw_norm = bw.add(m, TF32, torch.float32, layer_norm=True)
    states = [m.tensor([BATCH, UNITS]) for _ in range(4)]
    outs = [m.tensor([0, BATCH, 2 * UNITS])] + [m.tensor([BATCH, UNITS]) for _ in range(4)]
    m.op("BIDIRECTIONAL_SEQUENCE_LSTM", [empty, *fw_t, *bw_t, *states, *[m.omitted(TF32, [0]) for _ in range(9)],
                                         m.i32(TANH), m.f32(0), m.f32(0), m.bool(True), m.bool(True), *fw_norm,
                                         *bw_norm], outs)
    m.io([x, *states], outs)
    m.finish()
    initial = [_rand(BATCH, UNITS, seed=70 + k) for k in range(4)]
    got = _execute(lib, m.compile(), [torch.zeros(2, BATCH, IN), *initial], [[0, BATCH, 2 * UNITS]] +
                   [[BATCH, UNITS]] * 4)
    for g, h in zip(got[1:], initial):
        assert torch.equal(g, h)


# -- refusals of the float forms -------------------------------------------------------------------------
def _float_lstm_inputs(m: Model, code: int = TF32, cell: Optional[Cell] = None) -> list[int]:
    """LSTM's 20 tensors (input, cell, states) for a torch cell, as operands of type ``code``."""
    cell = cell or Cell.from_torch(torch.nn.LSTMCell(IN, UNITS))
    kw = {"scale": 0.5} if code == QA8 else {}
    x = m.tensor([BATCH, IN], code, **kw)
    tensors = [m.tensor([UNITS] if t is None else list(t.shape), code, **kw) for t in cell.tensors()]
    return [x, *tensors, m.tensor([BATCH, UNITS], code, **kw), m.tensor([BATCH, UNITS], code, **kw)]


def test_lstm_refusals(lib, driver):
    m = Model(lib)
    ins = _float_lstm_inputs(m, QA8)
    outs = [m.tensor([BATCH, 4 * UNITS], QA8, scale=0.5)] + [m.tensor([BATCH, UNITS], QA8, scale=0.5)
                                                             for _ in range(3)]
    m.op("LSTM", [*ins, m.i32(TANH), m.f32(0), m.f32(0)], outs, expect=BAD_DATA)
    assert "input 0 (input) has type TENSOR_QUANT8_ASYMM; allowed: TENSOR_FLOAT32, TENSOR_FLOAT16" in last_error(lib)
    # The 27-input form (layer normalization) is of feature level 29.
    driver.feature_level = 28
    m = Model(lib)
    ins = _float_lstm_inputs(m)
    outs = [m.tensor([BATCH, 4 * UNITS])] + [m.tensor([BATCH, UNITS]) for _ in range(3)]
    norms = [m.omitted(TF32, [0]) for _ in range(4)]
    m.op("LSTM", [*ins, m.i32(TANH), m.f32(0), m.f32(0), *norms], outs, expect=BAD_DATA)
    assert "the 27-input form (layer normalization weights, inputs 23-26) needs feature level" in last_error(lib)
    driver.feature_level = 30
    # A negative clip is refused when the operation is checked (here at Model_finish).
    cell = Cell.from_torch(torch.nn.LSTMCell(IN, UNITS))
    m = Model(lib)
    x, h0, c0 = m.tensor([BATCH, IN]), m.tensor([BATCH, UNITS]), m.tensor([BATCH, UNITS])
    tensors, _ = cell.add(m, TF32, torch.float32)
    outs = [m.tensor([BATCH, 4 * UNITS])] + [m.tensor([BATCH, UNITS]) for _ in range(3)]
    m.op("LSTM", [x, *tensors, h0, c0, m.i32(TANH), m.f32(-1.0), m.f32(0)], outs)
    m.io([x, h0, c0], outs)
    m.finish(expect=BAD_DATA)
    assert "input 21 (cell clip) must be >= 0 (0: no clipping), got -1.0" in last_error(lib)


def test_lstm_refuses_half_a_cifg_or_a_projection_bias_without_weights(lib, driver):
    def finish(cell: Cell, message: str) -> None:
        m = Model(lib)
        x, h0, c0 = m.tensor([BATCH, IN]), m.tensor([BATCH, cell.out_size]), m.tensor([BATCH, UNITS])
        tensors, _ = cell.add(m, TF32, torch.float32)
        outs = [m.tensor([BATCH, 4 * UNITS])] + [m.tensor([BATCH, n]) for n in (cell.out_size, UNITS, cell.out_size)]
        m.op("LSTM", [x, *tensors, h0, c0, m.i32(TANH), m.f32(0), m.f32(0)], outs)
        m.io([x, h0, c0], outs)
        m.finish(expect=BAD_DATA)
        assert message in last_error(lib)

    cell = Cell.random(UNITS, IN, UNITS, seed=60)
    cell.w_rec[0] = None
    finish(cell, "input_to_input_weights (input 1) and recurrent_to_input_weights (input 5) must be both given")
    cell = Cell.random(UNITS, IN, UNITS, seed=60)
    cell.projection = (None, _rand(UNITS, seed=61))
    finish(cell, "projection_bias (input 17) is given without projection_weights (input 16)")


def test_sequence_lstm_refusals(lib, driver):
    m = Model(lib)
    ins = [m.tensor([2, BATCH, IN], TI32)] + _float_lstm_inputs(m, TI32)[1:]
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", [*ins, m.i32(TANH), m.f32(0), m.f32(0), m.bool(True),
                                          *[m.omitted(TI32, [0]) for _ in range(4)]],
         [m.tensor([2, BATCH, UNITS], TI32)], expect=BAD_DATA)
    assert "input 0 (input) has type TENSOR_INT32; allowed: TENSOR_FLOAT32, TENSOR_FLOAT16" in last_error(lib)
    # The final state outputs are of feature level 30.
    driver.feature_level = 29
    m = Model(lib)
    ins = [m.tensor([2, BATCH, IN])] + _float_lstm_inputs(m)[1:]
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", [*ins, m.i32(TANH), m.f32(0), m.f32(0), m.bool(True),
                                          *[m.omitted(TF32, [0]) for _ in range(4)]],
         [m.tensor([2, BATCH, UNITS]), m.tensor([BATCH, UNITS]), m.tensor([BATCH, UNITS])], expect=BAD_DATA)
    assert "the final state outputs (outputs 1 and 2) needs feature level 30" in last_error(lib)
    driver.feature_level = 30
    # Android's UNIDIRECTIONAL_SEQUENCE_LSTM refuses a zero-sized input (here an empty SLICE) when it runs.
    m = Model(lib)
    x, empty, h0, c0 = m.tensor([2, BATCH, IN]), m.tensor([0, BATCH, IN]), m.tensor([BATCH, UNITS]), \
        m.tensor([BATCH, UNITS])
    m.op("SLICE", [x, m.const(torch.tensor([2, 0, 0], dtype=torch.int32)),
                   m.const(torch.tensor([0, BATCH, IN], dtype=torch.int32))], [empty])
    tensors, norms = Cell.from_torch(torch.nn.LSTMCell(IN, UNITS)).add(m, TF32, torch.float32, layer_norm=True)
    out = m.tensor([0, BATCH, UNITS])
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", [empty, *tensors, h0, c0, m.i32(TANH), m.f32(0), m.f32(0), m.bool(True),
                                          *norms], [out])
    m.io([x, h0, c0], [out])
    m.finish()
    _execute(lib, m.compile(), [torch.zeros(2, BATCH, IN), torch.zeros(BATCH, UNITS), torch.zeros(BATCH, UNITS)],
             [[0, BATCH, UNITS]], expect=BAD_DATA)
    assert "input 0 (input) is zero-sized ([0, 2, 3])" in last_error(lib)


def test_bidirectional_sequence_lstm_refusals(lib, driver):
    m = Model(lib)
    ins = [m.tensor([2, BATCH, IN], QA8, scale=0.5)] + [m.tensor([UNITS, IN], QA8, scale=0.5) for _ in range(47)]
    m.op("BIDIRECTIONAL_SEQUENCE_LSTM", [*ins, m.i32(TANH), m.f32(0), m.f32(0), m.bool(True), m.bool(True),
                                         *[m.tensor([UNITS], QA8, scale=0.5) for _ in range(8)]],
         [m.tensor([2, BATCH, 2 * UNITS], QA8, scale=0.5)], expect=BAD_DATA)
    assert "input 0 (input) has type TENSOR_QUANT8_ASYMM; allowed: TENSOR_FLOAT32, TENSOR_FLOAT16" in last_error(lib)
    # merge_outputs decides the number of outputs.
    torch_lstm = torch.nn.LSTM(IN, UNITS, bidirectional=True)
    fw, bw = Cell.from_torch(torch_lstm, "_l0"), Cell.from_torch(torch_lstm, "_l0_reverse")
    m = Model(lib)
    x = m.tensor([2, BATCH, IN])
    fw_t, fw_norm = fw.add(m, TF32, torch.float32, layer_norm=True)
    bw_t, bw_norm = bw.add(m, TF32, torch.float32, layer_norm=True)
    states = [m.tensor([BATCH, UNITS]) for _ in range(4)]
    outs = [m.tensor([2, BATCH, UNITS]), m.tensor([2, BATCH, UNITS])]
    m.op("BIDIRECTIONAL_SEQUENCE_LSTM", [x, *fw_t, *bw_t, *states, *[m.omitted(TF32, [0]) for _ in range(9)],
                                         m.i32(TANH), m.f32(0), m.f32(0), m.bool(True), m.bool(True), *fw_norm,
                                         *bw_norm], outs)
    m.io([x, *states], outs)
    m.finish(expect=BAD_DATA)
    assert "with merge_outputs true the operation has 1 outputs (or 5 with the final states), got 2" in last_error(lib)


# -- QUANTIZED_16BIT_LSTM ---------------------------------------------------------------------------------
def _run_quantized(lib, m: Model, inputs: Sequence[torch.Tensor], outputs: Sequence[tuple[list[int], torch.dtype]],
                   expect: int = NO_ERROR) -> list[torch.Tensor]:
    """Compile the finished ``m`` and execute it once; outputs of the given shapes and dtypes."""
    ex = Execution(lib, m.compile())
    for j, x in enumerate(inputs):
        ex.set_input(j, x)
    outs = [torch.zeros(shape, dtype=dtype) for shape, dtype in outputs]
    for j, o in enumerate(outs):
        ex.set_output(j, o)
    assert ex.compute() == expect, last_error(lib)
    return outs


# V1_2/quantized_lstm.mod.py, example 1 (two batches).
Q16_WEIGHTS = {
    "input_to": [[146, 250, 235, 171, 10, 218, 171, 108], [24, 50, 132, 179, 158, 110, 3, 169],
                 [133, 34, 29, 49, 206, 109, 54, 183], [195, 187, 11, 99, 109, 10, 218, 48]],
    "recurrent_to": [[254, 206, 77, 168, 71, 20, 215, 6, 223, 7, 118, 225, 59, 130, 174, 26],
                     [137, 240, 103, 52, 68, 51, 237, 112, 0, 220, 89, 23, 69, 4, 207, 253],
                     [172, 60, 205, 65, 14, 0, 140, 168, 240, 223, 133, 56, 142, 64, 246, 216],
                     [106, 214, 67, 23, 59, 158, 45, 3, 119, 132, 49, 205, 129, 218, 11, 98]],
    "bias": [[-7876, 13488, -726, 32839], [9206, -46884, -11693, -38724], [39481, 48624, 48976, -21419],
             [-58999, -17050, -41852, -40538]],
}
Q16_WEIGHTS_SCALE, Q16_WEIGHTS_ZERO_POINT = 0.00408021, 100


def _quantized_16bit_lstm_model(lib, input_scale: float = 1 / 128) -> Model:
    m = Model(lib)
    x = m.tensor([2, 2], QA8, scale=input_scale, zp=128)
    weights = [m.const(torch.tensor(w, dtype=torch.uint8).reshape(4, -1), QA8, scale=Q16_WEIGHTS_SCALE,
                       zp=Q16_WEIGHTS_ZERO_POINT) for w in Q16_WEIGHTS["input_to"] + Q16_WEIGHTS["recurrent_to"]]
    biases = [m.const(torch.tensor(b, dtype=torch.int32), TI32, scale=Q16_WEIGHTS_SCALE / 128)
              for b in Q16_WEIGHTS["bias"]]
    cell, prev = m.tensor([2, 4], Q16S, scale=1 / 2048), m.tensor([2, 4], QA8, scale=1 / 128, zp=128)
    outs = [m.tensor([2, 4], Q16S, scale=1 / 2048), m.tensor([2, 4], QA8, scale=1 / 128, zp=128)]
    m.op("QUANTIZED_16BIT_LSTM", [x, *weights, *biases, cell, prev], outs)
    m.io([x, cell, prev], outs)
    return m


def test_quantized_16bit_lstm_gives_androids_example_exactly(lib, driver):
    m = _quantized_16bit_lstm_model(lib)
    m.finish()
    x = torch.tensor([[166, 179], [50, 150]], dtype=torch.uint8)
    cell = torch.tensor([[876, 1034, 955, -909], [761, 1029, 796, -1036]], dtype=torch.int16)
    prev = torch.tensor([[136, 150, 140, 115], [135, 152, 138, 112]], dtype=torch.uint8)
    cell_out, out = _run_quantized(lib, m, [x, cell, prev], [([2, 4], torch.int16), ([2, 4], torch.uint8)])
    assert cell_out.tolist() == [[1485, 1177, 1373, -1023], [1019, 1355, 1097, -1235]]
    assert out.tolist() == [[140, 151, 146, 112], [136, 156, 142, 112]]


def test_quantized_16bit_lstm_refusals(lib, driver):
    m = Model(lib)
    ins = [m.tensor([2, 2])] + [m.tensor([4, 2], QA8, scale=0.5) for _ in range(8)] + \
        [m.tensor([4], TI32) for _ in range(4)] + [m.tensor([2, 4], Q16S, scale=1 / 2048),
                                                   m.tensor([2, 4], QA8, scale=1 / 128, zp=128)]
    m.op("QUANTIZED_16BIT_LSTM", ins, [m.tensor([2, 4], Q16S, scale=1 / 2048),
                                       m.tensor([2, 4], QA8, scale=1 / 128, zp=128)], expect=BAD_DATA)
    assert "input 0 (input) has type TENSOR_FLOAT32; allowed: TENSOR_QUANT8_ASYMM" in last_error(lib)
    # The activations' quantization is fixed (checked here at Model_finish: every shape is known).
    m = _quantized_16bit_lstm_model(lib, input_scale=1 / 64)
    m.finish(expect=BAD_DATA)
    assert "input 0 (input) must have scale 0.0078125 and zeroPoint 128, got 0.015625 and 128" in last_error(lib)


# -- QUANTIZED_LSTM -----------------------------------------------------------------------------------------
# V1_3/qlstm_projection.mod.py example 1 (layer norm, projection) and V1_3/qlstm_noprojection.mod.py
# example 1 (CIFG, layer norm), the recurrent and projection weights per output size.
QLSTM_INPUT_TO = [
    [64, 77, 89, -102, -115, 13, 25, 38, -51, 64, -102, 89, -77, 64, -51, -64, -51, -38, -25, -13],
    [-77, -13, 38, 25, 115, -64, -25, -51, 38, -102, -51, 38, -64, -51, -77, 38, -51, -77, -64, -64],
    [-51, -38, -25, -13, -64, 64, -25, -38, -25, -77, 77, -13, -51, -38, -89, 89, -115, -64, 102, 77],
    [-102, -51, -25, -115, -13, -89, 38, -38, -102, -25, 77, -25, 51, -89, -38, -64, 13, 64, -77, -51]]
QLSTM_BIASES = [[644245, 3221226, 4724464, 8160438], [2147484, -6442451, -4294968, 2147484],
                [-1073742, 15461883, 5368709, 1717987], [1073742, -214748, 4294968, 2147484]]
QLSTM_LAYER_NORM = [[3277, 6553, 9830, 16384], [6553, 6553, 13107, 9830], [22937, 6553, 9830, 26214],
                    [19660, 6553, 6553, 16384]]
QLSTM_RECURRENT_TO = {
    3: [[-25, -38, 51, 13, -64, 115, -25, -38, -89, 6, -25, -77],
        [-64, -38, -64, -25, 77, 51, 115, 38, -13, 25, 64, 25],
        [-38, 25, 13, -38, 102, -10, -25, 38, 102, -77, -13, 25],
        [38, -13, 13, -25, -64, -89, -25, -77, -13, -51, -89, -25]],
    4: [None, [-64, -38, -64, -25, 77, 51, 115, 38, -13, 25, 64, 25, 25, 38, -13, 51],
        [-38, 25, 13, -38, 102, -10, -25, 38, 102, -77, -13, 25, 38, -13, 25, 64],
        [38, -13, 13, -25, -64, -89, -25, -77, -13, -51, -89, -25, 13, 64, 25, -38]],
}
QLSTM_PROJECTION = [-25, 51, 3, -51, 25, 127, 77, 20, 18, 51, -102, 51]
QLSTM_EXPECTED = {  # output size -> (output, cell state out)
    3: ([[127, 127, -108], [-67, 127, 127]], [[-14650, 8939, 5771, 6715], [-11843, 7847, 1508, 12939]]),
    4: ([[-15, 21, 14, 20], [-15, 15, 5, 27]], [[-11692, 9960, 5491, 8861], [-9422, 7726, 2056, 13149]]),
}
STATE_SCALE = 3.05176e-05


def _qlstm_model(lib, out_size: int, input_type: int = QA8S, cell_scale: float = STATE_SCALE,
                 add_result: int = NO_ERROR) -> Model:
    """Output size 3: every gate, projection; 4: CIFG, no projection; both with layer norm."""
    cifg = out_size == 4
    m = Model(lib)
    x = m.tensor([2, 5], input_type, scale=0.0078125)

    def const(values, dims, type_, **kw):
        if values is None:   # omitted: setOperandValue(NULL, 0)
            idx = m.operand(type_, [0], **kw)
            assert lib.ANeuralNetworksModel_setOperandValue(m.handle, idx, None, 0) == NO_ERROR
            return idx
        dtype = {QS8: torch.int8, Q16S: torch.int16, TI32: torch.int32}[type_]
        return m.const(torch.tensor(values, dtype=dtype).reshape(dims), type_, **kw)

    w_in = [const(None if cifg and k == 0 else w, [4, 5], QS8, scale=0.00784314) for k, w in enumerate(QLSTM_INPUT_TO)]
    w_rec = [const(w, [4, out_size], QS8, scale=0.00784314) for w in QLSTM_RECURRENT_TO[out_size]]
    peephole = [const(None, [4], Q16S, scale=1.0) for _ in range(3)]
    biases = [const(None if cifg and k == 0 else b, [4], TI32) for k, b in enumerate(QLSTM_BIASES)]
    projection = [const(None if cifg else QLSTM_PROJECTION, [3, 4], QS8, scale=0.00392157),
                  const(None if cifg else [0, 0, 0], [3], TI32)]
    prev_out, prev_cell = m.tensor([2, out_size], QA8S, scale=STATE_SCALE), m.tensor([2, 4], Q16S, scale=cell_scale)
    norms = [const(None if cifg and k == 0 else w, [4], Q16S, scale=3.05182e-05)
             for k, w in enumerate(QLSTM_LAYER_NORM)]
    scalars = [m.f32(v) for v in (0.0, 0.0, 0.007059, 0.007812, 0.007059, 0.007812)] + [m.i32(0), m.f32(0.007)]
    outs = [m.tensor([2, out_size], QA8S, scale=STATE_SCALE), m.tensor([2, 4], Q16S, scale=STATE_SCALE),
            m.tensor([2, out_size], QA8S, scale=STATE_SCALE)]
    m.op("QUANTIZED_LSTM", [x, *w_in, *w_rec, *peephole, *biases, *projection, prev_out, prev_cell, *norms,
                            *scalars], outs, expect=add_result)
    if add_result == NO_ERROR:
        m.io([x, prev_out, prev_cell], outs)
    return m


@pytest.mark.parametrize("out_size", [3, 4], ids=["projection", "cifg"])
def test_quantized_lstm_gives_androids_examples_exactly(lib, driver, out_size):
    m = _qlstm_model(lib, out_size)
    m.finish()
    x = torch.tensor([[90, 102, 13, 26, 38], [102, 13, 26, 51, 64]], dtype=torch.int8)
    prev_out, prev_cell = torch.zeros(2, out_size, dtype=torch.int8), torch.zeros(2, 4, dtype=torch.int16)
    state, cell, out = _run_quantized(lib, m, [x, prev_out, prev_cell], [([2, out_size], torch.int8),
                                                                       ([2, 4], torch.int16),
                                                                       ([2, out_size], torch.int8)])
    expected_out, expected_cell = QLSTM_EXPECTED[out_size]
    assert out.tolist() == expected_out
    assert state.tolist() == expected_out
    assert cell.tolist() == expected_cell


def test_quantized_lstm_refusals(lib, driver):
    # The input is signed 8-bit.
    _qlstm_model(lib, 3, input_type=QA8, add_result=BAD_DATA)
    assert "input 0 (input) has type TENSOR_QUANT8_ASYMM; allowed: TENSOR_QUANT8_ASYMM_SIGNED" in last_error(lib)
    # The cell state's scale is a power of two of at most 2^-9 (checked here at Model_finish).
    for scale in (3e-5, 2.0 ** -8):
        _qlstm_model(lib, 3, cell_scale=scale).finish(expect=BAD_DATA)
        assert "input 19 (cell_state_in) must have a power-of-two scale of at most 2^-9" in last_error(lib)
