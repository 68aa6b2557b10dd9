"""Float ops NNAPI expresses through a composition: mean with an explicit dtype, index_put in its
SELECT / CONCATENATION forms; and the precise refusals of the forms NNAPI cannot express."""

from __future__ import annotations

import pytest
import torch

from op_harness import Lambda, check_delegated_and_matches, lower


def _values(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0))


# ------------------------------------------------------------------ mean(dtype=)

@pytest.mark.parametrize("level", [28, 29, 30])
def test_mean_with_dtype_float32_of_float32(level):
    module = Lambda(lambda t: (t.mean(1, dtype=torch.float32), t.mean((0, 2), keepdim=True, dtype=torch.float32)))
    check_delegated_and_matches(module, (_values(3, 4, 5),), feature_level=level, expect_operations=["MEAN"])


@pytest.mark.parametrize("level", [29, 30])
def test_mean_of_integers_with_dtype_float32_is_cast_then_mean(level):
    i32 = torch.randint(-1000, 1000, (3, 4, 5), generator=torch.Generator().manual_seed(0), dtype=torch.int32)
    i64 = i32.to(torch.int64) * 7
    module = Lambda(lambda a, b: (a.mean(-1, dtype=torch.float32), b.mean((0, 1), keepdim=True, dtype=torch.float32)))
    check_delegated_and_matches(module, (i32, i64), feature_level=level, tolerance=1e-6,
                                expect_operations=["CAST", "MEAN"])


def test_mean_of_integers_below_api_29_and_float16_results_are_refused():
    i32 = torch.ones(3, 4, dtype=torch.int32)
    lowered = lower(Lambda(lambda a: a.mean(1, dtype=torch.float32)), (i32,), feature_level=28)
    assert "mean of a int32 tensor with dtype=float32 (CAST) needs API 29" in lowered.reasons["aten.mean.dim"][0]
    lowered = lower(Lambda(lambda a: a.mean(1, dtype=torch.float16)), (_values(3, 4),), feature_level=30)
    assert "mean with dtype=float16 (the float path computes float32" in lowered.reasons["aten.mean.dim"][0]
