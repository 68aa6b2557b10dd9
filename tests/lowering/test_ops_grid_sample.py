"""aten.grid_sampler_2d (F.grid_sample, as deformable attention samples its values) as the four
neighbours' GATHERs and bilinear weights: bilinear with zeros and border padding, with and without
align_corners, grid points inside and outside the image, two batches, through the C++ backend on
the host driver against eager; nearest mode and reflection padding stay on the CPU with a reason."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from op_harness import Lambda, check_delegated_and_matches, lower


def _grid(n: int, ho: int, wo: int, seed: int) -> torch.Tensor:
    # Beyond [-1, 1]: neighbours outside the image (zero padding) and clipped coordinates (border).
    return (torch.rand(n, ho, wo, 2, generator=torch.Generator().manual_seed(seed)) * 2.6 - 1.3)


@pytest.mark.parametrize("padding", ["zeros", "border"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_bilinear_grid_sample_is_delegated_and_matches_eager(padding, align_corners):
    x = torch.randn(2, 5, 7, 9, generator=torch.Generator().manual_seed(1))
    grid = _grid(2, 4, 6, 2)
    grid[0, 0, :3] = torch.tensor([[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]])   # corners and the centre

    def sample(v: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return F.grid_sample(v, g, mode="bilinear", padding_mode=padding, align_corners=align_corners)

    lowered = check_delegated_and_matches(Lambda(sample), (x, grid), expect_operations=["GATHER", "FLOOR", "CAST"],
                                          tolerance=1e-5)
    assert lowered.num_delegates == 1 and not lowered.cpu_ops


def test_grid_sample_feeding_other_operations_stays_one_subgraph():
    """Deformable attention's shape: values sampled per head, then weighted and summed."""
    def attend(v: torch.Tensor, g: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        sampled = F.grid_sample(torch.relu(v), g, mode="bilinear", padding_mode="zeros", align_corners=False)
        return (sampled * w.softmax(-1).unsqueeze(1)).sum(-1)

    gen = torch.Generator().manual_seed(3)
    inputs = (torch.randn(3, 8, 6, 6, generator=gen), _grid(3, 5, 4, 4), torch.randn(3, 5, 4, generator=gen))
    lowered = check_delegated_and_matches(Lambda(attend), inputs, tolerance=1e-5)
    assert lowered.num_delegates == 1 and not lowered.cpu_ops


def test_nearest_mode_and_reflection_padding_stay_on_the_cpu():
    x, grid = torch.randn(1, 2, 5, 5), _grid(1, 3, 3, 5)
    nearest = lower(Lambda(lambda v, g: F.grid_sample(v, g, mode="nearest", align_corners=False)), (x, grid))
    assert any("bilinear only" in r for r in nearest.reasons["aten.grid_sampler_2d.default"])
    reflect = lower(Lambda(lambda v, g: F.grid_sample(v, g, padding_mode="reflection", align_corners=False)), (x, grid))
    assert any("reflection" in r for r in reflect.reasons["aten.grid_sampler_2d.default"])
