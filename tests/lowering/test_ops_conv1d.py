"""1-D convolutions (conv1d, conv_transpose1d, grouped / depthwise) as the 2-D NNAPI operations on
an H=1 view: the value is channels-last [N, L, C] (the runtime permutes at the boundary), a RESHAPE
on each side, no TRANSPOSE; at every feature level where each operation exists."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from op_harness import check_delegated_and_matches, lower

CONVS = [
    # (id, module, NNAPI operation, first level)
    ("plain", lambda: torch.nn.Conv1d(4, 6, 3), "CONV_2D", 27),
    ("padded_strided_no_bias", lambda: torch.nn.Conv1d(4, 6, 5, stride=2, padding=2, bias=False), "CONV_2D", 27),
    ("depthwise", lambda: torch.nn.Conv1d(4, 8, 3, padding=1, groups=4), "DEPTHWISE_CONV_2D", 27),
    # Below API 29 (no dilation operand): SPACE_TO_BATCH_ND + CONV_2D + BATCH_TO_SPACE_ND (API 28),
    # a one-hot DEPTHWISE_CONV_2D + CONV_2D (API 27; builders/dilated_conv.py).
    ("dilated", lambda: torch.nn.Conv1d(4, 6, 3, padding=2, dilation=2), "CONV_2D", 27),
    ("grouped", lambda: torch.nn.Conv1d(4, 6, 3, groups=2), "GROUPED_CONV_2D", 29),
    ("transposed", lambda: torch.nn.ConvTranspose1d(4, 3, 4, stride=2, padding=1), "TRANSPOSE_CONV_2D", 29),
    ("transposed_output_padding_no_bias",
     lambda: torch.nn.ConvTranspose1d(4, 3, 3, stride=2, padding=1, output_padding=1, bias=False),
     "TRANSPOSE_CONV_2D", 29),
]


class ConvReluConv(torch.nn.Module):
    def __init__(self, conv: torch.nn.Module) -> None:
        super().__init__()
        self.conv = conv
        self.head = torch.nn.Conv1d(conv.out_channels, 2, 1)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)) + 0.5)


@pytest.mark.parametrize("level", [27, 28, 29, 30])
@pytest.mark.parametrize("name, make, operation, since", CONVS, ids=[c[0] for c in CONVS])
def test_conv1d_runs_on_an_h1_view_without_transpose(name, make, operation, since, level):
    torch.manual_seed(0)
    module = ConvReluConv(make())
    x = torch.randn(2, 4, 11)
    if level < since:
        lowered = lower(module, (x,), feature_level=level)
        assert any(f"needs API {since}" in r for r in lowered.reasons["aten.convolution.default"])
        return
    lowered = check_delegated_and_matches(module, (x,), feature_level=level, expect_operations=[operation, "RESHAPE"])
    assert lowered.num_delegates == 1
    assert "TRANSPOSE" not in lowered.nnapi_operations, lowered.nnapi_operations
    assert lowered.blobs[0].input_dim_orders == [(0, 2, 1)]  # permuted while copied in


def test_conv1d_with_a_dynamic_length():
    torch.manual_seed(0)
    module = ConvReluConv(torch.nn.Conv1d(4, 6, 3, padding=1))
    length = Dim("length", min=4, max=64)
    check_delegated_and_matches(module, (torch.randn(1, 4, 16),), dynamic_shapes={"x": {2: length}},
                                run_inputs=[(torch.randn(1, 4, 16),), (torch.randn(1, 4, 37),)],
                                expect_operations=["CONV_2D"])
