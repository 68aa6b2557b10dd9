"""Quantized views in transformer blocks (issue 21, item 2: swin_t in 8 bits).

swin's relative position bias is a view / permute / unsqueeze chain of a gathered parameter,
each op between convert_pt2e's quantize and dequantize. The whole chain is known at lowering
time; the quantize nodes in it must fold to their 8-bit codes like every other step, or a
DEQUANTIZE ends up reading the folded float value, which NNAPI refuses when the program loads
("DEQUANTIZE: input 0 has type TENSOR_FLOAT32")."""

from __future__ import annotations

import torch

from op_harness import lower, run_pte
from quantized_reference import output_step, quantize, within_one_step


class BiasFromTable(torch.nn.Module):
    """A linear layer plus a bias gathered from a table and rearranged (swin's
    ``relative_position_bias_table[index].view(...).permute(...).contiguous().unsqueeze(0)``)."""

    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(16, 2))
        self.register_buffer("index", torch.randperm(16))
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bias = self.table[self.index].view(4, 4, 2).permute(2, 0, 1).contiguous().unsqueeze(0)
        return self.linear(x) + bias


def test_quantized_constant_chain_folds_to_codes_and_loads():
    torch.manual_seed(0)
    model = BiasFromTable().eval()
    x = (torch.randn(1, 2, 4, 4),)
    gm = quantize(model, x, signed=False, feature_level=30)
    low = lower(gm, x, feature_level=30)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    (blob,) = low.blobs
    # The bias chain is computed at lowering time: an 8-bit constant of the ADD, no operation of its own
    # (the RESHAPE is the rank-4 input's, for FULLY_CONNECTED).
    assert blob.operation_types == ["QUANTIZE", "FULLY_CONNECTED", "RESHAPE", "ADD", "DEQUANTIZE"]
    (got,) = run_pte(low.pte, list(x), 30)  # loading it failed with a float DEQUANTIZE input
    with torch.no_grad():
        want = gm(*x)
    assert within_one_step(want, got, output_step(gm)) == 1.0, (got - want).abs().max().item()


class WindowPartition(torch.nn.Module):
    """conv -> Swin's window partition (rank-6 view, permute, view) -> linear: convert_pt2e puts a
    quantize / dequantize pair after each view op, which alone is rank 6."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 1)
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x).permute(0, 2, 3, 1)  # N, H, W, C
        windows = y.view(1, 2, 4, 2, 4, 8).permute(0, 1, 3, 2, 4, 5).contiguous().view(4, 16, 8)
        return self.linear(windows)


def test_rank_6_window_partition_between_8bit_ops_is_one_subgraph():
    torch.manual_seed(0)
    model = WindowPartition().eval()
    x = (torch.randn(1, 3, 8, 8),)
    gm = quantize(model, x, signed=False, feature_level=30)
    low = lower(gm, x, feature_level=30)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    (blob,) = low.blobs
    precisions = dict(zip(blob.operation_types, blob.operation_precisions))
    assert precisions["CONV_2D"] == "8-bit" and precisions["FULLY_CONNECTED"] == "8-bit", precisions
    (got,) = run_pte(low.pte, list(x), 30)
    with torch.no_grad():
        want = gm(*x)
    # The removed quantize / dequantize pairs changed no value: the output is convert_pt2e's.
    assert within_one_step(want, got, output_step(gm)) == 1.0, (got - want).abs().max().item()
