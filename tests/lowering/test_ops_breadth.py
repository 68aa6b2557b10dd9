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


# ------------------------------------------------------------------ index_put

class MaskedFill(torch.nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        y[mask] = 0.5
        z = x.clone()
        z[x > 1.0] = x[0, 0, 0]
        return y * 2, z


class ConstantIndexPut(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("rows", torch.tensor([2, 0]))
        self.register_buffer("last", torch.tensor([-1]))

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        y[:, self.rows] = -3.0
        y[:, :, self.last] = v
        return y


@pytest.mark.parametrize("level", [29, 30])
def test_index_put_with_a_mask_and_one_value_is_select(level):
    x = _values(2, 3, 4)
    mask = _values(2, 3, 4) > 0
    lowered = check_delegated_and_matches(MaskedFill(), (x, mask), feature_level=level, expect_operations=["SELECT"],
                                          allow_cpu_ops=["select_copy"])
    assert "aten.index_put.default" not in lowered.cpu_ops


@pytest.mark.parametrize("level", [29, 30])
def test_index_put_at_constant_indices_on_one_dim_is_select(level):
    x, v = _values(2, 3, 4), _values(2, 3, 1)
    lowered = check_delegated_and_matches(ConstantIndexPut(), (x, v), feature_level=level,
                                          expect_operations=["SELECT"])
    assert lowered.nnapi_operations.count("SELECT") == 2


def test_index_put_below_api_29_is_refused():
    lowered = lower(MaskedFill(), (_values(2, 3, 4), _values(2, 3, 4) > 0), feature_level=28)
    assert "needs API 29" in lowered.reasons["aten.index_put.default"][0]


SCATTERS = [
    ("values_matched_to_mask", lambda x, m: x.index_put((m,), x[m] * 2), "matched in order to the True positions"),
    ("accumulate", lambda x, m: x.index_put((m,), torch.tensor(1.0), accumulate=True), "accumulate=True"),
    ("run_time_indices", lambda x, m: x.index_put((m.long().sum(0),), torch.tensor(1.0)),
     "indices computed at run time"),
]


@pytest.mark.parametrize("name, fn, what", SCATTERS, ids=[s[0] for s in SCATTERS])
def test_scattering_index_put_is_refused_for_want_of_scatter(name, fn, what):
    lowered = lower(Lambda(fn), (_values(3, 4), _values(3, 4) > 0), feature_level=30)
    (reason,) = lowered.reasons["aten.index_put.default"]
    assert what in reason and "NNAPI has no SCATTER at any feature level" in reason
