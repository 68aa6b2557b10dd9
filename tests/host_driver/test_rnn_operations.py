"""RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN and SVDF in the host driver, driven
through the C API: the recurrent operations against torch.nn.RNN / RNNCell with their weights copied
(the sequence operations with a time dimension known only at execution, one compilation run on
sequences of two lengths), SVDF against a step-by-step computation of its memory written here, and
the operand types and values Android refuses."""

from __future__ import annotations

import ctypes
from typing import Optional, Sequence

import pytest
import torch

from nnapi_client import (BAD_DATA, NO_ERROR, QA8, TF16, TF32, TI32, Execution, Model, OperandType, last_error,
                          u32_array)

TANH, RELU = 4, 1
NONLINEARITY = {TANH: "tanh", RELU: "relu"}
BATCH, IN, UNITS = 3, 5, 4


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _execute(lib, comp, inputs: Sequence[Optional[torch.Tensor]], out_shapes: Sequence[Sequence[int]],
             dtype: torch.dtype = torch.float32, expect: int = NO_ERROR) -> list[torch.Tensor]:
    """One execution of ``comp``: each input with a type giving its full shape (None: omitted, a
    NULL buffer); outputs into buffers of ``out_shapes``, whose reported dims must match."""
    ex = Execution(lib, comp)
    for j, x in enumerate(inputs):
        if x is None:
            assert lib.ANeuralNetworksExecution_setInput(ex.handle, j, None, None, 0) == NO_ERROR, last_error(lib)
            continue
        code = TF16 if x.dtype == torch.float16 else TF32
        t = OperandType(code, x.dim(), u32_array(list(x.shape)), 0.0, 0)
        ex.set_input(j, x, type_=ctypes.byref(t))
    outs = [torch.full(tuple(s), float("nan"), dtype=dtype) for s in out_shapes]
    for j, o in enumerate(outs):
        ex.set_output(j, o)
    assert ex.compute() == expect, last_error(lib)
    if expect == NO_ERROR:
        for j, s in enumerate(out_shapes):
            dims = u32_array([0] * len(s))
            assert lib.ANeuralNetworksExecution_getOutputOperandDimensions(ex.handle, j, dims) == NO_ERROR
            assert list(dims)[:len(s)] == list(s)
    return outs


def _cell_weights(rnn: torch.nn.Module, suffix: str = "_l0") -> list[torch.Tensor]:
    """NNAPI's weights, recurrent weights and bias (torch's two biases added) of one direction."""
    g = lambda name: getattr(rnn, name + suffix).detach()  # noqa: E731
    return [g("weight_ih"), g("weight_hh"), g("bias_ih") + g("bias_hh")]


def _close(actual: torch.Tensor, expected: torch.Tensor) -> None:
    if actual.dtype == torch.float16:
        torch.testing.assert_close(actual.float(), expected, atol=1e-2, rtol=1e-2)
    else:
        torch.testing.assert_close(actual, expected, atol=1e-5, rtol=1e-5)


# -- RNN --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float32", "float16"])
@pytest.mark.parametrize("act", [TANH, RELU], ids=["tanh", "relu"])
def test_rnn_is_one_step_of_torchs_rnn_cell(lib, driver, act, dtype):
    cell = torch.nn.RNNCell(IN, UNITS, nonlinearity=NONLINEARITY[act])
    torch.nn.init.uniform_(cell.weight_hh, -0.5, 0.5, generator=_gen(1))
    x, h = torch.randn(BATCH, IN, generator=_gen(2)), torch.randn(BATCH, UNITS, generator=_gen(3))
    code = TF16 if dtype == torch.float16 else TF32
    m = Model(lib)
    inp, state = m.tensor([BATCH, IN], code), m.tensor([BATCH, UNITS], code)
    weights = [m.const(w.to(dtype)) for w in _cell_weights(cell, "")]
    state_out, out = m.tensor([BATCH, UNITS], code), m.tensor([BATCH, UNITS], code)
    m.op("RNN", [inp, *weights, state, m.i32(act)], [state_out, out])
    m.io([inp, state], [state_out, out])
    m.finish()
    got_state, got = _execute(lib, m.compile(), [x.to(dtype), h.to(dtype)], [[BATCH, UNITS]] * 2, dtype)
    expected = cell(x.to(dtype).float(), h.to(dtype).float()).detach() if dtype == torch.float16 else \
        cell(x, h).detach()
    _close(got, expected)
    _close(got_state, expected)


def test_rnn_refusals(lib, driver):
    m = Model(lib)
    q = [m.tensor([2, 2], QA8, scale=0.1, zp=0) for _ in range(6)]
    m.op("RNN", [*q[:5], m.i32(0)], q[4:6], expect=BAD_DATA)
    assert "input 0 (input) has type TENSOR_QUANT8_ASYMM; allowed: TENSOR_FLOAT32, TENSOR_FLOAT16" in last_error(lib)
    # The activation is one Android's cell computes (5, TFLite's "sign bit", aborts it).
    m = Model(lib)
    f = [m.tensor([2, 2]) for _ in range(4)] + [m.tensor([2])]
    inp, w, r, state, bias = f
    outs = [m.tensor([2, 2]), m.tensor([2, 2])]
    m.op("RNN", [inp, w, r, bias, state, m.i32(5)], outs)
    m.io([inp, w, r, bias, state], outs)
    m.finish(expect=BAD_DATA)
    assert "input 5 (activation) must be one of 0 (NONE), 1 (RELU), 2 (RELU1), 3 (RELU6), 4 (TANH), " \
        "6 (SIGMOID); got 5" in last_error(lib)


# -- UNIDIRECTIONAL_SEQUENCE_RNN --------------------------------------------------------------------
def _unidirectional(lib, rnn: torch.nn.RNN, act: int, batch_first: bool, dtype: torch.dtype, with_state: bool):
    """A compiled UNIDIRECTIONAL_SEQUENCE_RNN of ``rnn``'s weights whose time dimension is unknown."""
    code = TF16 if dtype == torch.float16 else TF32
    m = Model(lib)
    layout = [BATCH, 0] if batch_first else [0, BATCH]
    inp, h0 = m.tensor([*layout, IN], code), m.tensor([BATCH, UNITS], code)
    weights = [m.const(w.to(dtype)) for w in _cell_weights(rnn)]
    outs = [m.tensor([*layout, UNITS], code)] + ([m.tensor([BATCH, UNITS], code)] if with_state else [])
    m.op("UNIDIRECTIONAL_SEQUENCE_RNN", [inp, *weights, h0, m.i32(act), m.i32(0 if batch_first else 1)], outs)
    m.io([inp, h0], outs)
    m.finish()
    return m, m.compile()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float32", "float16"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_major", "time_major"])
@pytest.mark.parametrize("act", [TANH, RELU], ids=["tanh", "relu"])
def test_unidirectional_sequence_rnn_is_torchs_rnn_over_any_length(lib, driver, act, batch_first, dtype):
    rnn = torch.nn.RNN(IN, UNITS, nonlinearity=NONLINEARITY[act], batch_first=batch_first)
    _, comp = _unidirectional(lib, rnn, act, batch_first, dtype, with_state=True)
    for steps in (6, 11):
        x = torch.randn(BATCH, steps, IN, generator=_gen(steps))
        x = x if batch_first else x.transpose(0, 1).contiguous()
        h0 = torch.randn(1, BATCH, UNITS, generator=_gen(steps + 1))
        shape = [BATCH, steps, UNITS] if batch_first else [steps, BATCH, UNITS]
        out, h_n = _execute(lib, comp, [x.to(dtype), h0[0].to(dtype)], [shape, [BATCH, UNITS]], dtype)
        expected, expected_h = rnn(x.to(dtype).float(), h0.to(dtype).float())
        _close(out, expected.detach())
        _close(h_n, expected_h[0].detach())


def test_unidirectional_sequence_rnn_refusals(lib, driver):
    m = Model(lib)
    i = [m.tensor([2, 2, 2], TI32)] + [m.tensor([2, 2], TI32) for _ in range(4)]
    m.op("UNIDIRECTIONAL_SEQUENCE_RNN", [*i, m.i32(0), m.i32(1)], [m.tensor([2, 2, 2], TI32)], expect=BAD_DATA)
    assert "input 0 (input) has type TENSOR_INT32; allowed: TENSOR_FLOAT32, TENSOR_FLOAT16" in last_error(lib)
    # The final state output is of feature level 30.
    driver.feature_level = 29
    m = Model(lib)
    f = [m.tensor([2, 2, 2])] + [m.tensor([2, 2]) for _ in range(4)]
    m.op("UNIDIRECTIONAL_SEQUENCE_RNN", [*f, m.i32(0), m.i32(1)], [m.tensor([2, 2, 2]), m.tensor([2, 2])],
         expect=BAD_DATA)
    assert "the final state output (output 1) needs feature level 30" in last_error(lib)
    driver.feature_level = 30
    # Android's sequence RNNs refuse a zero-sized input (here an empty SLICE) when they run.
    m = Model(lib)
    x, empty, h0 = m.tensor([BATCH, 2, IN]), m.tensor([BATCH, 0, IN]), m.tensor([BATCH, UNITS])
    m.op("SLICE", [x, m.const(torch.tensor([0, 2, 0], dtype=torch.int32)),
                   m.const(torch.tensor([BATCH, 0, IN], dtype=torch.int32))], [empty])
    weights = [m.const(w) for w in _cell_weights(torch.nn.RNN(IN, UNITS))]
    out = m.tensor([BATCH, 0, UNITS])
    m.op("UNIDIRECTIONAL_SEQUENCE_RNN", [empty, *weights, h0, m.i32(TANH), m.i32(0)], [out])
    m.io([x, h0], [out])
    m.finish()
    _execute(lib, m.compile(), [torch.zeros(BATCH, 2, IN), torch.zeros(BATCH, UNITS)], [[BATCH, 0, UNITS]],
             expect=BAD_DATA)
    assert "input 0 (input) is zero-sized ([3, 0, 5])" in last_error(lib)


def test_unidirectional_sequence_rnn_time_major_must_be_0_or_1(lib, driver):
    m = Model(lib)
    inp, h0, out = m.tensor([2, BATCH, IN]), m.tensor([BATCH, UNITS]), m.tensor([2, BATCH, UNITS])
    weights = [m.const(w) for w in _cell_weights(torch.nn.RNN(IN, UNITS))]
    m.op("UNIDIRECTIONAL_SEQUENCE_RNN", [inp, *weights, h0, m.i32(TANH), m.i32(2)], [out])
    m.io([inp, h0], [out])
    m.finish(expect=BAD_DATA)
    assert "input 6 (time major) must be 0 or 1, got 2" in last_error(lib)


# -- BIDIRECTIONAL_SEQUENCE_RNN ---------------------------------------------------------------------
def _bidirectional(lib, fw: list[torch.Tensor], bw: list[torch.Tensor], aux: list, act: int, batch_first: bool,
                   merge: bool, with_state: bool, aux_input_size: int = 0):
    """A compiled BIDIRECTIONAL_SEQUENCE_RNN whose time dimension is unknown; ``aux``: the auxiliary
    weights (fw, bw), or [] for none; ``aux_input_size`` > 0 makes the auxiliary input a model input."""
    m = Model(lib)
    layout = [BATCH, 0] if batch_first else [0, BATCH]
    in_size, fw_units, bw_units = fw[0].shape[1], fw[0].shape[0], bw[0].shape[0]
    inp, fw_h, bw_h = m.tensor([*layout, in_size]), m.tensor([BATCH, fw_units]), m.tensor([BATCH, bw_units])
    aux_in = m.tensor([*layout, aux_input_size]) if aux_input_size else m.omitted(TF32, [1])
    aux_w = [m.const(w) for w in aux] if aux else [m.omitted(TF32, [1]), m.omitted(TF32, [1])]
    if merge:
        outs = [m.tensor([*layout, fw_units + bw_units])]
    else:
        outs = [m.tensor([*layout, fw_units]), m.tensor([*layout, bw_units])]
    if with_state:
        outs += [m.tensor([BATCH, fw_units]), m.tensor([BATCH, bw_units])]
    ins = [inp, *[m.const(w) for w in fw[:3]], fw_h, *[m.const(w) for w in bw[:3]], bw_h, aux_in, *aux_w,
           m.i32(act), m.bool(not batch_first), m.bool(merge)]
    m.op("BIDIRECTIONAL_SEQUENCE_RNN", ins, outs)
    m.io([inp, fw_h, bw_h] + ([aux_in] if aux_input_size else []), outs)
    m.finish()
    return m.compile()


def _sequence(steps: int, size: int, batch_first: bool, seed: int) -> torch.Tensor:
    x = torch.randn(BATCH, steps, size, generator=_gen(seed))
    return x if batch_first else x.transpose(0, 1).contiguous()


@pytest.mark.parametrize("merge", [True, False], ids=["merged", "separate"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_major", "time_major"])
@pytest.mark.parametrize("act", [TANH, RELU], ids=["tanh", "relu"])
def test_bidirectional_sequence_rnn_is_torchs_bidirectional_rnn_over_any_length(lib, driver, act, batch_first,
                                                                                merge):
    rnn = torch.nn.RNN(IN, UNITS, nonlinearity=NONLINEARITY[act], batch_first=batch_first, bidirectional=True)
    comp = _bidirectional(lib, _cell_weights(rnn), _cell_weights(rnn, "_l0_reverse"), [], act, batch_first,
                          merge, with_state=True)
    for steps in (4, 9):
        x = _sequence(steps, IN, batch_first, steps)
        h0 = torch.randn(2, BATCH, UNITS, generator=_gen(steps + 1))
        layout = [BATCH, steps] if batch_first else [steps, BATCH]
        shapes = [[*layout, 2 * UNITS]] if merge else [[*layout, UNITS]] * 2
        got = _execute(lib, comp, [x, h0[0], h0[1]], [*shapes, [BATCH, UNITS], [BATCH, UNITS]])
        expected, expected_h = rnn(x, h0)
        expected = [expected.detach()] if merge else list(expected.detach().split(UNITS, dim=2))
        for g, e in zip(got, [*expected, expected_h[0].detach(), expected_h[1].detach()]):
            _close(g, e)


def test_bidirectional_cross_linking_adds_the_auxiliary_input_times_its_weights(lib, driver):
    """Cross linking is a cell over the input and the auxiliary input side by side, with their
    weights side by side: torch's RNN on the concatenated sequence."""
    aux_size = 3
    rnn = torch.nn.RNN(IN + aux_size, UNITS, batch_first=True, bidirectional=True)
    fw, bw = _cell_weights(rnn), _cell_weights(rnn, "_l0_reverse")
    split = lambda w: [w[:, :IN].contiguous(), w[:, IN:].contiguous()]  # noqa: E731
    (fw_w, fw_aux), (bw_w, bw_aux) = split(fw[0]), split(bw[0])
    comp = _bidirectional(lib, [fw_w, *fw[1:]], [bw_w, *bw[1:]], [fw_aux, bw_aux], TANH, True, True,
                          with_state=False, aux_input_size=aux_size)
    x, aux = _sequence(7, IN, True, 1), _sequence(7, aux_size, True, 2)
    h0 = torch.zeros(2, BATCH, UNITS)
    (got,) = _execute(lib, comp, [x, h0[0], h0[1], aux], [[BATCH, 7, 2 * UNITS]])
    _close(got, rnn(torch.cat([x, aux], dim=2), h0)[0].detach())


def test_bidirectional_parallel_linking_runs_the_backward_cell_on_the_auxiliary_input(lib, driver):
    rnn = torch.nn.RNN(IN, UNITS, batch_first=True, bidirectional=True)
    comp = _bidirectional(lib, _cell_weights(rnn), _cell_weights(rnn, "_l0_reverse"), [], TANH, True, False,
                          with_state=True, aux_input_size=IN)
    x, aux = _sequence(5, IN, True, 3), _sequence(5, IN, True, 4)
    h0 = torch.randn(2, BATCH, UNITS, generator=_gen(5))
    fw_out, bw_out, fw_h, bw_h = _execute(lib, comp, [x, h0[0], h0[1], aux], [[BATCH, 5, UNITS]] * 2 +
                                          [[BATCH, UNITS]] * 2)
    on_x, on_x_h = rnn(x, h0)
    on_aux, on_aux_h = rnn(aux, h0)
    _close(fw_out, on_x[..., :UNITS].detach())
    _close(bw_out, on_aux[..., UNITS:].detach())
    _close(fw_h, on_x_h[0].detach())
    _close(bw_h, on_aux_h[1].detach())


def test_bidirectional_sequence_rnn_refusals(lib, driver):
    m = Model(lib)
    i = [m.tensor([2, 2, 2], TI32)] + [m.tensor([2, 2], TI32) for _ in range(11)]
    m.op("BIDIRECTIONAL_SEQUENCE_RNN", [*i, m.i32(0), m.bool(True), m.bool(True)], [m.tensor([2, 2, 2], TI32)],
         expect=BAD_DATA)
    assert "input 0 (input) has type TENSOR_INT32; allowed: TENSOR_FLOAT32, TENSOR_FLOAT16" in last_error(lib)
    rnn = torch.nn.RNN(IN, UNITS, bidirectional=True)
    weights = _cell_weights(rnn) + _cell_weights(rnn, "_l0_reverse")

    def finish(merge: bool, n_out: int, aux: list) -> None:
        m = Model(lib)
        inp, hf, hb = m.tensor([2, BATCH, IN]), m.tensor([BATCH, UNITS]), m.tensor([BATCH, UNITS])
        w = [m.const(t) for t in weights]
        outs = [m.tensor([2, BATCH, UNITS]) for _ in range(n_out)]
        m.op("BIDIRECTIONAL_SEQUENCE_RNN", [inp, *w[:3], hf, *w[3:], hb, *aux(m), m.i32(TANH), m.bool(True),
                                            m.bool(merge)], outs)
        m.io([inp, hf, hb], outs)
        m.finish(expect=BAD_DATA)

    no_aux = lambda m: [m.omitted(TF32, [1])] * 3  # noqa: E731
    finish(True, 2, no_aux)
    assert "with merge_outputs true the operation has 1 outputs (or 3 with the final states), got 2" in last_error(lib)
    finish(False, 2, lambda m: [m.omitted(TF32, [1]), m.const(weights[0]), m.omitted(TF32, [1])])
    assert "inputs 9-11 (auxiliary input, forward and backward auxiliary weights) must be all omitted" in \
        last_error(lib)


# -- SVDF -------------------------------------------------------------------------------------------
FILTERS_PER_UNIT, MEMORY = 2, 4


def _svdf_reference(steps: list[torch.Tensor], wf: torch.Tensor, wt: torch.Tensor, bias: Optional[torch.Tensor],
                    rank: int) -> tuple[list[torch.Tensor], list[list[list[float]]]]:
    """Each step's ReLU output and the final memories, one filter and batch at a time in float64:
    a filter remembers its last MEMORY - 1 activations, weighs them and the new one by its
    weights_time row; a unit adds its ``rank`` filters and its bias."""
    filters = wf.shape[0]
    past = [[[0.0] * (MEMORY - 1) for _ in range(filters)] for _ in range(BATCH)]
    outputs = []
    for x in steps:
        out = torch.zeros(BATCH, filters // rank, dtype=torch.float64)
        for b in range(BATCH):
            for f in range(filters):
                window = past[b][f] + [float(wf[f].double() @ x[b].double())]
                out[b, f // rank] += sum(float(wt[f, k]) * window[k] for k in range(MEMORY))
                past[b][f] = window[1:]
        if bias is not None:
            out += bias.double()
        outputs.append(out.clamp(min=0).float())
    return outputs, past


@pytest.mark.parametrize("bias_given", ["constant", "omitted", "omitted_at_execution"])
def test_svdf_steps_match_a_filter_memory_computed_here(lib, driver, bias_given):
    rank, units = FILTERS_PER_UNIT, 3
    filters = rank * units
    wf, wt = torch.randn(filters, IN, generator=_gen(1)), torch.randn(filters, MEMORY, generator=_gen(2))
    bias = torch.randn(units, generator=_gen(3)) if bias_given == "constant" else None
    m = Model(lib)
    inp, state = m.tensor([BATCH, IN]), m.tensor([BATCH, MEMORY * filters])
    bias_operand = {"constant": lambda: m.const(bias), "omitted": lambda: m.omitted(TF32, [units]),
                    "omitted_at_execution": lambda: m.tensor([units])}[bias_given]()
    state_out, out = m.tensor([BATCH, MEMORY * filters]), m.tensor([BATCH, units])
    m.op("SVDF", [inp, m.const(wf), m.const(wt), bias_operand, state, m.i32(rank), m.i32(RELU)], [state_out, out])
    m.io([inp, state] + ([bias_operand] if bias_given == "omitted_at_execution" else []), [state_out, out])
    m.finish()
    comp = m.compile()
    steps = [torch.randn(BATCH, IN, generator=_gen(10 + k)) for k in range(MEMORY + 2)]
    expected, memories = _svdf_reference(steps, wf, wt, bias, rank)
    s = torch.zeros(BATCH, MEMORY * filters)
    for x, e in zip(steps, expected):
        extra = [None] if bias_given == "omitted_at_execution" else []
        s, got = _execute(lib, comp, [x, s, *extra], [[BATCH, MEMORY * filters], [BATCH, units]])
        _close(got, e)
    # The state holds each filter's memory oldest first, its newest slot zero.
    want = torch.tensor([[v for f in range(filters) for v in memories[b][f] + [0.0]] for b in range(BATCH)])
    _close(s, want)


def test_svdf_refusals(lib, driver):
    m = Model(lib)
    q = [m.tensor([2, 2], QA8, scale=0.1, zp=0) for _ in range(7)]
    m.op("SVDF", [*q[:5], m.i32(1), m.i32(0)], q[5:7], expect=BAD_DATA)
    assert "input 0 (input) has type TENSOR_QUANT8_ASYMM; allowed: TENSOR_FLOAT32, TENSOR_FLOAT16" in last_error(lib)
    m = Model(lib)
    inp, state = m.tensor([BATCH, IN]), m.tensor([BATCH, MEMORY * 3])
    wf, wt = m.const(torch.ones(3, IN)), m.const(torch.ones(3, MEMORY))
    outs = [m.tensor([BATCH, MEMORY * 3]), m.tensor([BATCH, 1])]
    m.op("SVDF", [inp, wf, wt, m.omitted(TF32, [1]), state, m.i32(2), m.i32(0)], outs)
    m.io([inp, state], outs)
    m.finish(expect=BAD_DATA)
    assert "input 1 (weights_feature) has 3 filters, which is not a multiple of the rank 2" in last_error(lib)
