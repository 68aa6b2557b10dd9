"""Weight-only int8 linears (and embeddings): torchao's ``quantize_(model, Int8WeightOnlyConfig())``, the form
language models are shipped in on phones (int8 weights with one scale per output feature,
float activations).

Each model is quantized with torchao, exported, lowered with NnapiPartitioner and checked:
one subgraph and no tensor op on the CPU (before this lowering the int8 weights were permuted
and cast to float on the CPU at every call), the weights held in the NNAPI model as 8-bit
constants (TENSOR_QUANT8_SYMM_PER_CHANNEL, or TENSOR_QUANT8_SYMM for one scale) read by a
DEQUANTIZE, the .pte at most 0.35x the float model's, and the host driver's output within
1e-3 (relative to the largest output) of the weight-only eager model.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim
from torchao.quantization import Int8WeightOnlyConfig, PerTensor, quantize_

from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.blob import Blob as fb_blob
from executorch_nnapi.lowering.nnapi_codes import OperandCode, OperationCode
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.tools.report import delegation_report
from op_harness import lower, relative_max_error, run_pte

_GEN = torch.Generator().manual_seed(21)
TOLERANCE = 1e-3
MAX_SIZE_RATIO = 0.35


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_GEN)


class Mlp(torch.nn.Module):
    """Three linears (512 -> 1024 -> 1024 -> 512) with ReLU between: its size is its linears."""

    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.Linear(512, 1024)
        self.mid = torch.nn.Linear(1024, 1024)
        self.down = torch.nn.Linear(1024, 512, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.relu(self.mid(torch.relu(self.up(x)))))


class TransformerBlock(torch.nn.Module):
    """A pre-norm decoder block: causal self-attention (q, k, v, output projections) and a
    GELU MLP, on [batch, tokens, 256]."""

    def __init__(self, dim: int = 256, heads: int = 4, hidden: int = 1024) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)
        self.q, self.k, self.v = (torch.nn.Linear(dim, dim) for _ in range(3))
        self.o = torch.nn.Linear(dim, dim)
        self.fc1, self.fc2 = torch.nn.Linear(dim, hidden), torch.nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        h = self.norm1(x)
        q, k, v = (p(h).view(b, t, self.heads, d // self.heads).transpose(1, 2) for p in (self.q, self.k, self.v))
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        attn = torch.softmax(scores + mask, dim=-1) @ v
        x = x + self.o(attn.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


def _randomized(module: torch.nn.Module) -> torch.nn.Module:
    """Random parameters of a linear layer's usual magnitude (and not all-equal layer norms)."""
    with torch.no_grad():
        for p in module.parameters():
            fan_in = p.shape[-1] if p.dim() > 1 else 16
            p.copy_(randn(*p.shape) / fan_in ** 0.5)
    return module.eval()


def _weight_only(model: torch.nn.Module, **config) -> torch.nn.Module:
    quantized = copy.deepcopy(model)
    quantize_(quantized, Int8WeightOnlyConfig(**config))
    return quantized.eval()


def _float_pte_size(model: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> int:
    return len(lower(model, inputs).pte)


def _operand_types(raw_blob: bytes, operation: str) -> list[int]:
    """The NNAPI types of the first input of every ``operation`` in a delegate blob."""
    blob = fb_blob.Blob.GetRootAs(raw_blob, 0)
    code = int(OperationCode[operation])
    found = []
    for i in range(blob.OperationsLength()):
        op = blob.Operations(i)
        if op.Type() == code:
            found.append(blob.Operands(op.Inputs(0)).Type())
    return found


def _check_lowered(quantized: torch.nn.Module, inputs: tuple[torch.Tensor, ...], linears: int,
                   weight_type: OperandCode, feature_level: int = 30, dynamic_shapes=None):
    lowered = lower(quantized, inputs, feature_level=feature_level, dynamic_shapes=dynamic_shapes)
    reasons = {d.node: d.reason for d in lowered.partitioner.decisions if not d.supported}
    assert lowered.cpu_ops == [], f"left on the CPU: {lowered.cpu_ops}; reasons: {reasons}"
    assert lowered.num_delegates == 1
    assert lowered.blobs[0].count("DEQUANTIZE") == linears
    assert lowered.blobs[0].count("FULLY_CONNECTED") == linears
    assert lowered.blobs[0].min_feature_level == 29
    assert _operand_types(lowered.raw_blobs[0], "DEQUANTIZE") == [int(weight_type)] * linears
    return lowered


def _check_matches(lowered, quantized: torch.nn.Module, runs: list[tuple[torch.Tensor, ...]],
                   feature_level: int = 30) -> float:
    worst = 0.0
    for inputs in runs:
        (got,) = run_pte(lowered.pte, inputs, feature_level)
        with torch.no_grad():
            want = quantized(*inputs)
        assert got.shape == want.shape
        worst = max(worst, relative_max_error(got, want))
    assert worst < TOLERANCE, f"relative max error {worst:.3g} against the weight-only eager model"
    return worst


def test_mlp_lowers_whole_with_8bit_weights():
    model = _randomized(Mlp())
    x = randn(4, 512)
    quantized = _weight_only(model)
    lowered = _check_lowered(quantized, (x,), 3, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL)
    _check_matches(lowered, quantized, [(x,), (randn(4, 512) * 3,)])
    ratio = len(lowered.pte) / _float_pte_size(model, (x,))
    assert ratio <= MAX_SIZE_RATIO, f".pte {ratio:.3f}x the float model's"


def test_mlp_with_dynamic_batch_at_api_29():
    """The lowest level with per-channel int8 tensors; rows of the product known only at run time."""
    quantized = _weight_only(_randomized(Mlp()))
    x = randn(3, 512)
    lowered = _check_lowered(quantized, (x,), 3, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL, feature_level=29,
                             dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}})
    _check_matches(lowered, quantized, [(x,), (randn(1, 512),), (randn(64, 512),)], feature_level=29)


def test_transformer_block_lowers_whole_with_8bit_weights():
    model = _randomized(TransformerBlock())
    x = randn(1, 16, 256)
    quantized = _weight_only(model)
    lowered = _check_lowered(quantized, (x,), 6, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL)
    _check_matches(lowered, quantized, [(x,), (randn(1, 16, 256) * 2,)])
    ratio = len(lowered.pte) / _float_pte_size(model, (x,))
    assert ratio <= MAX_SIZE_RATIO, f".pte {ratio:.3f}x the float model's"


def test_per_tensor_scale_is_a_symmetric_int8_tensor():
    quantized = _weight_only(_randomized(Mlp()), granularity=PerTensor())
    x = randn(2, 512)
    lowered = _check_lowered(quantized, (x,), 3, OperandCode.TENSOR_QUANT8_SYMM)
    _check_matches(lowered, quantized, [(x,)])


def test_report_names_the_8bit_weights():
    quantized = _weight_only(_randomized(Mlp()))
    x = randn(2, 512)
    partitioner = NnapiPartitioner()
    edge = to_edge_transform_and_lower(torch.export.export(quantized, (x,)), partitioner=[partitioner])
    text = delegation_report(edge, partitioner.decisions).format()
    assert "0 compute node(s) on the CPU" in text
    assert "8-bit weights: DEQUANTIZE x3 of int8 constants (weight-only int8)" in text
    # The weights' DEQUANTIZEs are not counted among the operations computing in float.
    # (the model's same-shape views are relabelings: no RESHAPE)
    assert "    nnapi: ADD x2, FULLY_CONNECTED x3, RELU x2\n" in text, text
    assert "DEQUANTIZE" not in text.split("    nnapi: ")[1].splitlines()[0]


@pytest.mark.parametrize("feature_level", [27, 28])
def test_below_api_29_the_linears_stay_on_cpu_with_the_level_reason(feature_level):
    quantized = _weight_only(_randomized(Mlp()))
    x = randn(2, 512)
    lowered = lower(quantized, (x,), feature_level=feature_level)
    reasons = {d.op: d.reason for d in lowered.partitioner.decisions if not d.supported}
    level = {27: "API 27", 28: "API 28"}[feature_level]
    assert reasons["aten.mm.default"].startswith(
        "a weight-only int8 linear (int8 weight constants dequantized inside NNAPI) needs API 29"), reasons
    assert level in reasons["aten.mm.default"], reasons
    # The int8 weight's permute and cast are computed from constants only (8-bit results fold
    # since the quantized constant chains of issue 21), and stay on the CPU with that reason.
    for op in ("aten.permute_copy.default", "dim_order_ops._to_dim_order_copy.default"):
        assert op in reasons, reasons
    assert "aten.mm.default" in lowered.cpu_ops
    _check_matches(lowered, quantized, [(x,)], feature_level=feature_level)


def test_scales_nnapi_cannot_hold_keep_the_values():
    """NNAPI's int8 weight scales must be > 0. A row scaled by 0 is all zeros (codes 0, scale 1,
    still 8-bit); a negative scale has no 8-bit form, so that one weight is stored in float."""
    quantized = _weight_only(_randomized(Mlp()))
    with torch.no_grad():
        quantized.mid.weight.scale[5] = 0.0
        quantized.down.weight.scale[7] = -quantized.down.weight.scale[7]
    x = randn(2, 512)
    lowered = lower(quantized, (x,))
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1
    assert _operand_types(lowered.raw_blobs[0], "DEQUANTIZE") == [int(OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL)] * 2
    assert lowered.blobs[0].count("FULLY_CONNECTED") == 3
    _check_matches(lowered, quantized, [(x,)])


class TokenEmbedding(torch.nn.Module):
    """A token embedding (int64 ids, a dynamic count) followed by a linear, both weight-only int8."""

    def __init__(self, vocab: int = 256, dim: int = 32) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, dim)
        self.linear = torch.nn.Linear(dim, dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.linear(self.embedding(ids))


def test_embedding_table_stays_8bit_and_rows_match_exactly():
    model = _randomized(TokenEmbedding())
    quantized = copy.deepcopy(model)
    quantize_(quantized, Int8WeightOnlyConfig(),
              filter_fn=lambda m, _: isinstance(m, (torch.nn.Embedding, torch.nn.Linear)))
    ids = torch.tensor([[3, 0, 255, 17]])
    lowered = lower(quantized.eval(), (ids,), dynamic_shapes=({1: Dim("tokens", min=1, max=16)},))
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1
    # The table's rows are gathered as 8-bit codes, then dequantized: no float table in the .pte.
    assert _operand_types(lowered.raw_blobs[0], "GATHER")[0] == int(OperandCode.TENSOR_QUANT8_ASYMM)
    assert len(lowered.pte) <= MAX_SIZE_RATIO * _float_pte_size(model, (ids,)) + 4096
    report = delegation_report(lowered.edge, lowered.partitioner.decisions).format()
    assert "8-bit weights: DEQUANTIZE x2, GATHER x1 of int8 constants" in report, report
    for run in ((ids,), (torch.tensor([[9]]),), (torch.tensor([[1, 2, 3, 4, 5, 6, 255, 0]]),)):
        with torch.no_grad():
            want = quantized(run[0])
        assert relative_max_error(run_pte(lowered.pte, run)[0], want) < TOLERANCE
    # The lookup alone is exact: one float32 multiply of each code by its row's scale, as torchao's.
    every_row = torch.arange(256).reshape(1, -1)
    with torch.no_grad():
        rows = quantized.embedding(every_row)
    assert torch.equal(run_pte(lower(_EmbeddingOnly(quantized.embedding), (every_row,)).pte, (every_row,))[0], rows)


class _EmbeddingOnly(torch.nn.Module):
    def __init__(self, embedding: torch.nn.Module) -> None:
        super().__init__()
        self.embedding = embedding

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.embedding(ids)
