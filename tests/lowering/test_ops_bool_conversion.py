"""A bool tensor turned into float32 (``mask.float()``), unsqueezed (``mask.unsqueeze(-1)``),
viewed and indexed by integer tensors (a padding mask read at computed key positions, as
``transformers``' masks index it):
NNAPI's CAST and RESHAPE take no BOOL8, so the conversion is SELECT between constant ones and
zeros (API 29) and a bool reshape goes through float32 (SELECT, RESHAPE, NOT_EQUAL 0). As
EfficientSAM's prompt encoder writes it, through the C++ backend on the host driver, against
eager; refused below API 29 and for dynamic sizes."""

from __future__ import annotations

import torch
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower


def _labels() -> torch.Tensor:
    return torch.tensor([[1.0, -1.0, 0.0, -1.0, 1.0, 2.0]])


def _padding_weights(labels: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Where a label is -1 (padding), the point's embedding is replaced: SAM's prompt encoder."""
    padding = (labels == -1).unsqueeze(-1)
    return x * (1.0 - padding.float()) + padding.float() * 0.5


def test_bool_unsqueezed_and_converted_to_float_matches_eager():
    lowered = check_delegated_and_matches(Lambda(_padding_weights), (_labels(), torch.randn(1, 6, 4)),
                                          expect_operations=["EQUAL", "SELECT", "RESHAPE", "NOT_EQUAL"],
                                          tolerance=1e-7)  # exact: 0/1 weights
    assert lowered.num_delegates == 1


def test_bool_to_float_alone_is_one_select():
    lowered = check_delegated_and_matches(Lambda(lambda x: (x > 0).float() * 3.0), (torch.randn(2, 5),),
                                          expect_operations=["GREATER", "SELECT"], tolerance=1e-7)
    assert "RESHAPE" not in lowered.nnapi_operations


def test_bool_conversion_below_api_29_or_of_dynamic_size_is_refused():
    below = lower(Lambda(_padding_weights), (_labels(), torch.randn(1, 6, 4)), feature_level=28)
    assert any("needs API 29" in r for r in below.reasons["aten.unsqueeze_copy.default"])
    dynamic = lower(Lambda(lambda x: (x > 0).float() * 3.0), (torch.randn(2, 5),),
                    dynamic_shapes=(({0: Dim("rows", min=1, max=8)},),))
    reasons = dynamic.reasons["dim_order_ops._to_dim_order_copy.default"]
    assert any("bool -> float32 conversion of dynamic size" in r for r in reasons), reasons


def _mask_at_positions(mask: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """A [batch, keys] bool padding mask read at computed key positions by batch and key index
    tensors, as transformers' padding mask function reads it (aten.index.Tensor), one row picked
    by index_select, and viewed: the bool GATHER and RESHAPE forms."""
    batch = torch.arange(2)[:, None]
    keys = (torch.arange(6) + 1).clamp(max=5)[None, :]
    picked = mask[batch, keys]                                         # [2, 6]
    first = picked.index_select(1, torch.tensor([0, 2, 4, 1, 3, 5]))
    return torch.where(first.view(2, 3, 2), x, -1.0)


def test_a_bool_mask_indexed_and_viewed_is_delegated_and_matches_eager():
    mask = torch.tensor([[1, 1, 0, 1, 0, 1], [0, 1, 1, 1, 1, 0]]).bool()
    lowered = check_delegated_and_matches(Lambda(_mask_at_positions), (mask, torch.randn(2, 3, 2)),
                                          expect_operations=["SELECT", "GATHER", "NOT_EQUAL", "RESHAPE"],
                                          tolerance=1e-12)   # exact: a selection
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
