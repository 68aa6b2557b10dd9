"""nn.LSTM and nn.RNN (issue 39, item 3): one NNAPI sequence operation per layer and direction,
UNIDIRECTIONAL_ / BIDIRECTIONAL_SEQUENCE_LSTM / _RNN (API 29), over a dynamic sequence length
(lowering/builders/lstm.py, rnn.py; the export shapes in builders/_recurrent_export.py).

Each case is exported with a ``torch.export.Dim`` on the time dimension (some also on the batch),
lowered, checked to be one NNAPI subgraph with no compute op on the CPU and exactly the expected
sequence operations (one per layer; a bidirectional layer is one BIDIRECTIONAL_* operation), run
through the C++ backend on the host driver at several lengths and compared with eager PyTorch
(relative error < 1e-5): 1-2 layers, bidirectional, batch_first, initial states given or not,
with and without biases, an LSTM with a projection, tanh and relu RNNs. At API 30 the final
states are the operations' state outputs; at API 29 h_n is sliced from the output and a program
reading c_n is refused (decomposed with a static length, an error with a dynamic one).
ExecuTorch's ``lstm`` example (a step-by-step ``torch.ao.nn.quantizable.LSTM``) is folded into one
LSTM per layer before partitioning (lowering/passes/unrolled_lstm.py).
"""

from __future__ import annotations

import collections

import pytest
import torch
from torch.export import Dim, export

from op_harness import lower, relative_max_error, run_pte
from executorch_nnapi.lowering.builders._recurrent_export import DynamicLengthDecompositionError
from executorch_nnapi.lowering.passes.composite_ops import decompose_composites
from executorch_nnapi.lowering.passes.unrolled_lstm import fold_unrolled_lstms

SEQUENCE_OPERATIONS = {"UNIDIRECTIONAL_SEQUENCE_LSTM", "BIDIRECTIONAL_SEQUENCE_LSTM", "UNIDIRECTIONAL_SEQUENCE_RNN",
                       "BIDIRECTIONAL_SEQUENCE_RNN"}
# What the lowering adds around them: initial states split per layer, final states gathered.
STATE_PLUMBING = {"RESHAPE", "SPLIT", "CONCATENATION", "SLICE"}
TOLERANCE = 1e-5
_GEN = torch.Generator().manual_seed(0)


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_GEN)


def seeded(module: torch.nn.Module) -> torch.nn.Module:
    """``module`` with weights from this file's generator (uniform in +-1, so every gate matters)."""
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.rand(p.shape, generator=_GEN) * 2 - 1)
    return module.eval()


class Recurrent(torch.nn.Module):
    """An nn.LSTM / nn.RNN returning the outputs a test names (output, h_n, c_n), with the initial
    states as inputs when ``with_states``."""

    def __init__(self, rnn: torch.nn.Module, outputs: tuple[str, ...], with_states: bool = False) -> None:
        super().__init__()
        self.rnn, self.outputs, self.with_states = seeded(rnn), outputs, with_states

    def forward(self, x, *states):
        if self.with_states:
            result = self.rnn(x, tuple(states) if len(states) > 1 else states[0])
        else:
            result = self.rnn(x)
        out, finals = result
        named = {"output": out, "h_n": finals[0] if isinstance(finals, tuple) else finals}
        if isinstance(finals, tuple):
            named["c_n"] = finals[1]
        return tuple(named[name] for name in self.outputs)


def inputs_for(model: Recurrent, length: int, batch: int) -> tuple[torch.Tensor, ...]:
    rnn = model.rnn
    x = randn(batch, length, rnn.input_size) if rnn.batch_first else randn(length, batch, rnn.input_size)
    if not model.with_states:
        return (x,)
    count = rnn.num_layers * (2 if rnn.bidirectional else 1)
    h_width = getattr(rnn, "proj_size", 0) or rnn.hidden_size
    h0 = randn(count, batch, h_width)
    if isinstance(rnn, torch.nn.LSTM):
        return x, h0, randn(count, batch, rnn.hidden_size)
    return x, h0


def dynamic(model: Recurrent, batch_too: bool = False) -> tuple[dict, ...]:
    """A Dim on the time dimension of x (and the batch of x and the states, when ``batch_too``)."""
    time = Dim("T", min=1, max=64)
    time_dim, batch_dim = (1, 0) if model.rnn.batch_first else (0, 1)
    x = {time_dim: time}
    states: dict = {}
    if batch_too:
        batch = Dim("B", min=1, max=16)
        x[batch_dim] = batch
        states = {1: batch}
    if not model.with_states:
        return (x,)
    count = 2 if isinstance(model.rnn, torch.nn.LSTM) else 1
    return (x, tuple([states or None] * count))  # forward(x, *states)


def check(model: Recurrent, expected: dict[str, int], *, feature_level: int = 30, lengths=(1, 3, 8, 21),
          batch: int = 2, batch_too: bool = False, plumbing: set[str] = STATE_PLUMBING):
    """Lowers ``model`` over a dynamic length, asserts one subgraph, no CPU op, exactly the
    ``expected`` sequence operations and otherwise only ``plumbing``; runs every length (and, with
    ``batch_too``, another batch) and compares with eager."""
    lowered = lower(model, inputs_for(model, 5, batch), dynamic_shapes=dynamic(model, batch_too),
                    feature_level=feature_level)
    reasons = {d.node: d.reason for d in lowered.partitioner.decisions if not d.supported}
    assert (lowered.num_delegates, lowered.cpu_ops) == (1, []), reasons
    counts = collections.Counter(lowered.nnapi_operations)
    assert {op: n for op, n in counts.items() if op in SEQUENCE_OPERATIONS} == expected, counts
    assert set(counts) - SEQUENCE_OPERATIONS <= plumbing, counts
    sizes = [(length, batch) for length in lengths] + ([(4, 5)] if batch_too else [])
    for length, b in sizes:
        inputs = inputs_for(model, length, b)
        got = run_pte(lowered.pte, inputs, feature_level)
        with torch.no_grad():
            want = model(*inputs)
        assert len(got) == len(want)
        for name, g, w in zip(model.outputs, got, want):
            assert g.shape == w.shape, (name, length, g.shape, w.shape)
            assert relative_max_error(g, w) < TOLERANCE, (name, length, b, relative_max_error(g, w))
    return lowered


# ------------------------------------------------------------------------------------- LSTM
def test_bidirectional_two_layer_lstm_over_a_dynamic_length():
    """The issue's case: batch first, no initial states, output, h_n and c_n: two
    BIDIRECTIONAL_SEQUENCE_LSTM, the final states from their state outputs (API 30)."""
    model = Recurrent(torch.nn.LSTM(6, 8, num_layers=2, bidirectional=True, batch_first=True),
                      ("output", "h_n", "c_n"))
    check(model, {"BIDIRECTIONAL_SEQUENCE_LSTM": 2})


def test_one_layer_lstm_with_initial_states_and_dynamic_batch():
    """Time major, h0 / c0 given as inputs (RESHAPE to [B, H]), dynamic length and batch."""
    model = Recurrent(torch.nn.LSTM(5, 7), ("output", "h_n", "c_n"), with_states=True)
    check(model, {"UNIDIRECTIONAL_SEQUENCE_LSTM": 1}, batch_too=True)


def test_two_layer_lstm_without_bias_with_projection_and_states():
    """proj_size (NNAPI's projection weights), no biases (zero gate biases), h0 / c0 split per
    layer (one SPLIT each), batch first."""
    model = Recurrent(torch.nn.LSTM(4, 9, num_layers=2, bias=False, proj_size=3, batch_first=True),
                      ("output", "h_n", "c_n"), with_states=True)
    check(model, {"UNIDIRECTIONAL_SEQUENCE_LSTM": 2})


def test_bidirectional_lstm_with_initial_states():
    model = Recurrent(torch.nn.LSTM(3, 5, num_layers=2, bidirectional=True), ("output", "h_n", "c_n"),
                      with_states=True)
    check(model, {"BIDIRECTIONAL_SEQUENCE_LSTM": 2})


@pytest.mark.parametrize("batch_first", [False, True])
def test_api_29_reads_h_n_from_the_output(batch_first):
    """API 29 has no state outputs: h_n is the forward output at the last step and the backward
    output at step 0, one SLICE per layer and direction (batch first: produced in dim order
    (1, 0, 2), no TRANSPOSE)."""
    model = Recurrent(torch.nn.LSTM(6, 4, num_layers=2, bidirectional=True, batch_first=batch_first),
                      ("output", "h_n"))
    lowered = check(model, {"BIDIRECTIONAL_SEQUENCE_LSTM": 2}, feature_level=29)
    assert collections.Counter(lowered.nnapi_operations)["SLICE"] == 4


def test_api_29_refuses_c_n_and_decomposes_a_static_length():
    """c_n is no output of NNAPI's sequence LSTM at API 29: the LSTM is left to torch's
    decomposition, with the reason, and the program still matches eager."""
    model = Recurrent(torch.nn.LSTM(4, 6), ("output", "h_n", "c_n"))
    x = randn(5, 2, 4)
    lowered = lower(model, (x,), feature_level=29)
    reasons = [d.reason for d in lowered.partitioner.decomposed if d.op == "aten.lstm.input"]
    assert len(reasons) == 1 and "c_n" in reasons[0] and "needs API 30" in reasons[0], reasons
    assert not SEQUENCE_OPERATIONS & set(lowered.nnapi_operations)
    with torch.no_grad():
        for got, want in zip(run_pte(lowered.pte, [x], 29), model(x)):
            assert relative_max_error(got, want) < TOLERANCE


def test_api_29_c_n_over_a_dynamic_length_is_an_error_not_a_fixed_length():
    """Decomposing an LSTM unrolls its steps, which would fix a dynamic length to the example's:
    lowering says so instead."""
    model = Recurrent(torch.nn.LSTM(4, 6), ("output", "h_n", "c_n"))
    with pytest.raises(DynamicLengthDecompositionError, match="dynamic sequence length"):
        lower(model, inputs_for(model, 5, 2), dynamic_shapes=dynamic(model), feature_level=29)


# -------------------------------------------------------------------------------------- RNN
def test_bidirectional_two_layer_tanh_rnn_over_a_dynamic_length():
    model = Recurrent(torch.nn.RNN(6, 8, num_layers=2, bidirectional=True, batch_first=True), ("output", "h_n"))
    check(model, {"BIDIRECTIONAL_SEQUENCE_RNN": 2})


def test_relu_rnn_without_bias_with_initial_state_and_dynamic_batch():
    model = Recurrent(torch.nn.RNN(5, 7, nonlinearity="relu", bias=False), ("output", "h_n"), with_states=True)
    check(model, {"UNIDIRECTIONAL_SEQUENCE_RNN": 1}, batch_too=True)


def test_two_layer_relu_rnn_with_states():
    model = Recurrent(torch.nn.RNN(3, 4, num_layers=2, nonlinearity="relu", batch_first=True),
                      ("output", "h_n"), with_states=True)
    check(model, {"UNIDIRECTIONAL_SEQUENCE_RNN": 2})


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_api_29_rnn_reads_h_n_from_the_output(nonlinearity):
    model = Recurrent(torch.nn.RNN(4, 6, num_layers=2, nonlinearity=nonlinearity, bidirectional=True),
                      ("output", "h_n"))
    check(model, {"BIDIRECTIONAL_SEQUENCE_RNN": 2}, feature_level=29)


# ------------------------------------------------------------------ export and ExecuTorch's example
def test_export_keeps_the_time_dimension_dynamic_and_eager_unchanged():
    """With the shape rules, export keeps the Dim on the time dimension (torch alone specializes
    it); the exported program and eager PyTorch still compute with torch's own kernels."""
    rnn = seeded(torch.nn.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True))
    program = export(rnn, (randn(2, 5, 4),), dynamic_shapes=({1: Dim("T", min=1, max=64)},))
    assert len(program.range_constraints) == 1
    x = randn(2, 11, 4)
    with torch.no_grad():
        for got, want in zip(torch.utils._pytree.tree_leaves(program.module()(x)),
                             torch.utils._pytree.tree_leaves(rnn(x))):
            assert torch.equal(got, want)
    with pytest.raises(DynamicLengthDecompositionError):
        program.run_decompositions()


def _executorch_lstm_example():
    from executorch.examples.models.lstm import LSTMModel

    example = LSTMModel()
    return seeded(example.get_eager_model()), example.get_example_inputs()


def test_unrolled_lstm_is_folded_into_one_lstm_per_layer():
    """The pass alone: ExecuTorch's example (2 layers, 5 steps) becomes two aten.lstm.input nodes
    and no gate op, and computes what eager does."""
    model, inputs = _executorch_lstm_example()
    program = export(model, inputs)
    decompose_composites(program)
    assert fold_unrolled_lstms(program) == 2
    targets = collections.Counter(str(n.target) for n in program.graph.nodes if n.op == "call_function")
    assert targets["aten.lstm.input"] == 2 and targets["aten.sigmoid.default"] == 0, targets
    with torch.no_grad():
        for got, want in zip(torch.utils._pytree.tree_leaves(program.module()(*inputs)),
                             torch.utils._pytree.tree_leaves(model(*inputs))):
            assert relative_max_error(got, want) < TOLERANCE


@pytest.mark.parametrize("feature_level, expected", [(30, {"UNIDIRECTIONAL_SEQUENCE_LSTM": 2}), (29, {})])
def test_executorch_lstm_example(feature_level, expected):
    """ExecuTorch's ``lstm`` example: one subgraph, no CPU op, one UNIDIRECTIONAL_SEQUENCE_LSTM per
    layer at API 30. It returns c_n, so at API 29 its LSTMs are decomposed back into the steps,
    which NNAPI runs op by op as before. The example loops over the steps in Python: its export
    fixes the length (5)."""
    model, inputs = _executorch_lstm_example()
    lowered = lower(model, inputs, feature_level=feature_level)
    assert (lowered.num_delegates, lowered.cpu_ops) == (1, [])
    counts = collections.Counter(lowered.nnapi_operations)
    assert {op: n for op, n in counts.items() if op in SEQUENCE_OPERATIONS} == expected, counts
    flat = torch.utils._pytree.tree_leaves(inputs)
    with torch.no_grad():
        want = torch.utils._pytree.tree_leaves(model(*inputs))
    for got, w in zip(run_pte(lowered.pte, flat, feature_level), want):
        assert relative_max_error(got, w) < TOLERANCE
