"""A unary op on a rank-5 value that enters the NNAPI model as a merged 4-D view (a partition
input: NNAPI operands are rank <= 4), as in EfficientSAM's mask-decoder normalization
``x.view(N, 1, C, H, W)`` whose rank-5 subtractions stay on the CPU: pow runs on the merged
view and its result is the same view of the output (so do the unary ops of
elementwise_unary.py that take any rank). Host driver against eager."""

from __future__ import annotations

import pytest
import torch

from op_harness import Lambda, check_delegated_and_matches


@pytest.mark.parametrize("exponent, operation", [(2, "POW"), (3, "POW"), (0.5, "SQRT")])
def test_pow_of_a_rank5_input_runs_on_its_merged_view(exponent, operation):
    x = torch.rand(2, 3, 4, 5, 6) + 0.5
    lowered = check_delegated_and_matches(Lambda(lambda t: t.pow(exponent)), (x,), expect_operations=[operation])
    assert lowered.nnapi_operations == [operation]


@pytest.mark.parametrize("fn, operation", [(torch.exp, "EXP"), (torch.abs, "ABS"), (torch.sin, "SIN")],
                         ids=["exp", "abs", "sin"])
def test_elementwise_unary_of_a_rank5_input_runs_on_its_merged_view(fn, operation):
    x = torch.randn(1, 2, 3, 4, 5)
    lowered = check_delegated_and_matches(Lambda(fn), (x,), expect_operations=[operation])
    assert lowered.nnapi_operations == [operation]


class GroupStatisticsNorm(torch.nn.Module):
    """EfficientSAM's LayerNorm2d-like normalization over a rank-5 group view (G = 1)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, c, h, w = x.shape
        x = x.view(n, 1, c, h, w)
        mean = x.mean(dim=[2, 3, 4], keepdim=True)
        var = ((x - mean) ** 2).mean(dim=[2, 3, 4], keepdim=True)
        x = (x - mean) / (var + 1e-5).sqrt()
        return x.view(n, c, h, w)


def test_rank5_group_normalization_lowers_and_matches_eager():
    """The rank-5 statistics, subtractions and division are computed on merged dims
    (lowering/passes/high_rank_regions.py): one subgraph, nothing on the CPU."""
    x = torch.randn(1, 8, 6, 6) * 3 + 1
    lowered = check_delegated_and_matches(GroupStatisticsNorm(), (x,), tolerance=1e-5)
    assert lowered.num_delegates == 1 and "MEAN" in lowered.nnapi_operations
