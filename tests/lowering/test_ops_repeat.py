"""aten.repeat -> TILE (API 29), with a RESHAPE first for new leading dims, through the C++
backend on the host driver against eager: same rank, new leading dims, after a convolution
(NHWC input), all counts 1, and refused below API 29 and for a rank-5 result."""

from __future__ import annotations

import torch

from op_harness import Lambda, check_delegated_and_matches, lower


def test_repeat_at_the_same_rank_is_one_tile():
    lowered = check_delegated_and_matches(Lambda(lambda x: x.repeat(2, 1, 3)), (torch.randn(2, 3, 4),),
                                          expect_operations=["TILE"], tolerance=1e-7)  # data movement: exact
    assert lowered.nnapi_operations == ["TILE"]


def test_repeat_with_new_leading_dims_reshapes_then_tiles():
    lowered = check_delegated_and_matches(Lambda(lambda x: x.repeat(2, 2, 1)), (torch.randn(3, 4),),
                                          expect_operations=["RESHAPE", "TILE"], tolerance=1e-7)  # data movement: exact
    assert lowered.nnapi_operations == ["RESHAPE", "TILE"]


class ConvThenRepeat(torch.nn.Module):
    """The repeat reads an NHWC value: its counts are permuted, no TRANSPOSE is added for it."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x).repeat(1, 2, 3, 1)


def test_repeat_of_an_nhwc_value_tiles_in_its_order():
    lowered = check_delegated_and_matches(ConvThenRepeat().eval(), (torch.randn(1, 3, 5, 6),),
                                          expect_operations=["CONV_2D", "TILE"], tolerance=1e-5)
    assert lowered.nnapi_operations.count("TILE") == 1


def test_repeat_of_ones_is_a_relabel():
    lowered = check_delegated_and_matches(Lambda(lambda x: x.repeat(1, 1) * 2.0), (torch.randn(3, 4),),
                                          expect_operations=["MUL"], tolerance=1e-7)  # data movement: exact
    assert "TILE" not in lowered.nnapi_operations


def test_repeat_below_api_29_and_at_rank_5_is_refused():
    below = lower(Lambda(lambda x: x.repeat(2, 1)), (torch.randn(3, 4),), feature_level=28)
    assert "needs API 29" in below.reasons["aten.repeat.default"][0]
    rank5 = lower(Lambda(lambda x: x.repeat(2, 1, 1, 1, 1)), (torch.randn(1, 2, 3, 4),))
    assert "rank 5" in rank5.reasons["aten.repeat.default"][0]
