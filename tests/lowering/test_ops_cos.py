"""aten.cos as 1 - 2·sin²(x/2) (NNAPI has SIN but no COS) through the C++ backend on the
host driver, against eager: small, large and special arguments, and refused before API 29."""

from __future__ import annotations

import math

import torch

from op_harness import Lambda, check_delegated_and_matches, lower, relative_max_error, run_pte


def cos_inputs() -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    specials = torch.tensor([0.0, -0.0, math.pi, -math.pi, math.pi / 2, 1e-20, 1000.0, -12345.678, 1e6,
                             math.inf, -math.inf, math.nan])
    return torch.cat([torch.randn(36, generator=g) * 10, specials]).reshape(3, 16)


def test_cos_matches_eager_to_a_few_roundings():
    x = cos_inputs()
    lowered = lower(Lambda(torch.cos), (x,))
    assert lowered.cpu_ops == [] and "SIN" in lowered.nnapi_operations
    (got,) = run_pte(lowered.pte, [x])
    torch.testing.assert_close(got, torch.cos(x), rtol=0, atol=5e-7, equal_nan=True)  # NaN where eager's is


def test_cos_beside_sin_in_a_rotary_table():
    """A positional encoding reads sin and cos of the same angles (EfficientSAM's prompt encoder)."""
    angles = torch.rand(2, 8, 16) * 6.0
    check_delegated_and_matches(Lambda(lambda t: torch.cat([torch.sin(t), torch.cos(t)], dim=-1)), (angles,),
                                expect_operations=["SIN", "SUB"])


def test_cos_below_api_29_is_refused():
    lowered = lower(Lambda(torch.cos), (torch.randn(4, 4),), feature_level=28)
    assert lowered.num_delegates == 0
    assert "needs API 29" in lowered.reasons["aten.cos.default"][0]


def test_cos_of_a_rank5_tensor_is_refused_with_the_reason():
    lowered = lower(Lambda(torch.cos), (torch.randn(1, 2, 3, 4, 5),))
    assert lowered.reasons["aten.cos.default"] == ["cos input of rank 5 (NNAPI allows at most 4)"]
    assert relative_max_error(run_pte(lowered.pte, [torch.ones(1, 2, 3, 4, 5)])[0],
                              torch.cos(torch.ones(1, 2, 3, 4, 5))) < 1e-6
