"""Bidirectional LSTMs over the rows and the columns of a feature map (timm's Sequencer2d, issue
42): one BIDIRECTIONAL_SEQUENCE_LSTM per direction pair, one NNAPI subgraph, equal to eager; and
lowering never unrolls the LSTMs' steps to learn their shapes.

ExecuTorch re-runs every node on fake tensors in each pass and verifier; torch's LSTM
decomposition there builds every step of every layer (sequencer2d_s: minutes and over 19 GB
before the shape rule of builders/_recurrent_export.py covered static lengths too). The rule
gives the outputs' shapes and torch's strides (batch first: a transposed time-major output),
checked here against the decomposition's own results.
"""

from __future__ import annotations

import pytest
import torch
import torch._decomp.decompositions as decompositions
from torch._subclasses.fake_tensor import FakeTensorMode

from op_harness import check_delegated_and_matches
from executorch_nnapi.lowering.builders._recurrent_export import lstm_shapes, rnn_shapes

TOLERANCE = 1e-5
_GEN = torch.Generator().manual_seed(0)


class RowsAndColumns(torch.nn.Module):
    """Sequencer2d's LSTM2d: a bidirectional LSTM along H (over columns) and one along W (over
    rows), both batch first, their outputs side by side, then a linear layer (channels last)."""

    def __init__(self, channels: int, hidden: int) -> None:
        super().__init__()
        self.vertical = torch.nn.LSTM(channels, hidden, batch_first=True, bidirectional=True)
        self.horizontal = torch.nn.LSTM(channels, hidden, batch_first=True, bidirectional=True)
        self.fc = torch.nn.Linear(4 * hidden, channels)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.rand(p.shape, generator=_GEN) - 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape
        v, _ = self.vertical(x.permute(0, 2, 1, 3).reshape(-1, h, c))
        v = v.reshape(b, w, h, -1).permute(0, 2, 1, 3)
        r, _ = self.horizontal(x.reshape(-1, w, c))
        r = r.reshape(b, h, w, -1)
        return self.fc(torch.cat([v, r], dim=-1))


def test_rows_and_columns_lower_whole_without_unrolling(monkeypatch) -> None:
    calls = []
    unrolled = decompositions.one_layer_lstm
    monkeypatch.setattr(decompositions, "one_layer_lstm", lambda *a, **k: calls.append(1) or unrolled(*a, **k))
    model = RowsAndColumns(6, 5).eval()
    x = torch.randn(1, 7, 9, 6, generator=_GEN)
    low = check_delegated_and_matches(model, (x,), run_inputs=[(x,), (torch.randn(1, 7, 9, 6, generator=_GEN) * 2,)],
                                      tolerance=TOLERANCE)
    assert low.num_delegates == 1 and low.nnapi_operations.count("BIDIRECTIONAL_SEQUENCE_LSTM") == 2
    assert not calls, f"torch's step-by-step LSTM decomposition ran {len(calls)} times while lowering"


@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_first", "time_major"])
@pytest.mark.parametrize("kind", ["lstm", "rnn"])
@pytest.mark.parametrize("bidirectional", [True, False], ids=["bidirectional", "one_direction"])
def test_shape_rule_is_the_decompositions_metadata(kind, bidirectional, batch_first) -> None:
    """Shapes and strides (and dtype) of every output, on fake tensors, as torch's decomposition gives them."""
    directions, layers, batch, length, features, hidden = (2 if bidirectional else 1), 2, 3, 5, 4, 6
    with FakeTensorMode():
        x = torch.empty((batch, length, features) if batch_first else (length, batch, features))
        module = (torch.nn.LSTM if kind == "lstm" else torch.nn.RNN)(
            features, hidden, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
        state = torch.zeros(layers * directions, batch, hidden)
        hx = [state, state.clone()] if kind == "lstm" else state
        args = (x, hx, list(module._flat_weights), True, layers, 0.0, False, bidirectional, batch_first)
        decomposed = (decompositions.lstm_impl(*args) if kind == "lstm" else decompositions.rnn_tanh_input(*args))
        ruled = (lstm_shapes if kind == "lstm" else rnn_shapes)(*args)
    assert len(ruled) == len(decomposed)
    for got, want in zip(ruled, decomposed):
        assert (got.shape, got.stride(), got.dtype) == (want.shape, want.stride(), want.dtype)
