"""Rounding (floor / ceil / trunc / round), logarithms (log / log2 / log10 / log1p), expm1 and
amin through the C++ backend on the host driver, at every feature level where each exists,
against eager; the roundings bit-exactly, including ties, ±0, ±inf, NaN and |x| >= 2^23."""

from __future__ import annotations

import math

import pytest
import torch

from op_harness import Lambda, check_delegated_and_matches, lower, run_pte


def rounding_inputs() -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    ties = torch.arange(-6, 6, dtype=torch.float32) + 0.5
    edges = torch.tensor([0.49999997, -0.49999997, 0.0, -0.0, 2.0 ** 23 + 1, -(2.0 ** 23) - 1, 1e30, -1e30,
                          math.inf, -math.inf, math.nan, 1.0 - 2 ** -24])
    noise = torch.randn(40, generator=g) * 10
    return torch.cat([ties, edges, noise]).reshape(4, 16)


ROUNDINGS = [("floor", torch.floor, "FLOOR", 27), ("ceil", torch.ceil, "FLOOR", 27),
             ("trunc", torch.trunc, "FLOOR", 27), ("round", torch.round, "SELECT", 29)]


@pytest.mark.parametrize("level", [27, 28, 29, 30])
@pytest.mark.parametrize("name, fn, operation, since", ROUNDINGS, ids=[r[0] for r in ROUNDINGS])
def test_rounding_is_exact(name, fn, operation, since, level):
    x = rounding_inputs()
    lowered = lower(Lambda(fn), (x,), feature_level=level)
    if level < since:
        assert lowered.num_delegates == 0
        assert f"needs API {since}" in lowered.reasons[f"aten.{name}.default"][0]
        return
    assert lowered.cpu_ops == [] and operation in lowered.nnapi_operations
    (got,) = run_pte(lowered.pte, [x], level)
    torch.testing.assert_close(got, fn(x), rtol=0, atol=0, equal_nan=True)  # bit-exact, NaN where eager's is


LOGS = [("log", torch.log), ("log2", torch.log2), ("log10", torch.log10), ("log1p", torch.log1p)]


@pytest.mark.parametrize("level", [29, 30])
@pytest.mark.parametrize("name, fn", LOGS, ids=[r[0] for r in LOGS])
def test_logarithms_match_eager(name, fn, level):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(3, 5, 7, generator=g) * 100 + 1e-3
    check_delegated_and_matches(Lambda(fn), (x,), feature_level=level, expect_operations=["LOG"])


def test_log1p_keeps_tiny_arguments_and_specials():
    x = torch.tensor([1e-10, -1e-10, 3e-8, 1e-4, -0.5, 0.0, -1.0, math.inf, 1e30, -2.0]).reshape(2, 5)
    lowered = lower(Lambda(torch.log1p), (x,), feature_level=29)
    assert lowered.cpu_ops == []
    (got,) = run_pte(lowered.pte, [x], 29)
    want = torch.log1p(x.double())
    finite = torch.isfinite(want)
    assert torch.all(((got.double() - want).abs() <= 2.5e-7 * want.abs())[finite])
    assert got.flatten()[6].item() == -math.inf and got.flatten()[7].item() == math.inf
    assert math.isnan(got.flatten()[9].item())


def test_expm1_keeps_tiny_arguments_and_specials():
    """expm1 by Kahan's form below |x| = 0.5: tiny arguments keep their digits (EXP - 1 would
    give 0 for 1e-10), within a few float32 ulps of float64's everywhere; inf, -inf, NaN as eager."""
    g = torch.Generator().manual_seed(0)
    special = torch.tensor([1e-10, -1e-10, 3e-8, -2e-6, 1e-4, 0.4999, -0.4999, 0.5, -0.5, 0.0, 20.0, -30.0, 88.0,
                            100.0, math.inf, -math.inf, math.nan, -1e-30, 1e-38, -3.0])
    x = torch.cat([special, torch.randn(60, generator=g) * 3, (torch.rand(40, generator=g) - 0.5) * 1e-3]).reshape(
        4, 30)
    lowered = lower(Lambda(torch.expm1), (x,), feature_level=29)
    assert lowered.cpu_ops == [] and "EXP" in lowered.nnapi_operations
    (got,) = run_pte(lowered.pte, [x], 29)
    want = torch.expm1(x.double())
    finite = torch.isfinite(want) & (want.abs() < 3e38)
    assert torch.all(((got.double() - want).abs() <= 4 * 1.2e-7 * want.abs() + 1e-45)[finite])
    torch.testing.assert_close(got[~finite], torch.expm1(x)[~finite], equal_nan=True)


def test_an_xielu_style_activation_is_one_subgraph():
    """Apertus' xIELU: alpha_p·x² + beta·x for x > 0, alpha_n·(expm1(min(x, eps)) - x) + beta·x
    otherwise; one NNAPI subgraph against eager."""
    def xielu(x: torch.Tensor) -> torch.Tensor:
        alpha_p, alpha_n, beta, eps = 0.8, 0.8 + 0.5, 0.5, -1e-6
        return torch.where(x > 0, alpha_p * x * x + beta * x, alpha_n * (torch.expm1(torch.clamp(x, max=eps)) - x)
                           + beta * x)

    x = torch.randn(2, 8, 16, generator=torch.Generator().manual_seed(1)) * 2
    check_delegated_and_matches(Lambda(xielu), (x,), feature_level=30)


def test_log_below_api_29_is_refused():
    lowered = lower(Lambda(torch.log), (torch.rand(3, 4) + 1,), feature_level=28)
    assert "needs API 29" in lowered.reasons["aten.log.default"][0]


@pytest.mark.parametrize("level", [29, 30])
def test_amin_is_reduce_min(level):
    x = torch.randn(2, 5, 6, 3, generator=torch.Generator().manual_seed(0))
    module = Lambda(lambda t: (t.amin(1), t.amin((2, 3), keepdim=True), t.amin(-1)))
    check_delegated_and_matches(module, (x,), feature_level=level, expect_operations=["REDUCE_MIN"])


class _ClampByBuffers(torch.nn.Module):
    """Gemma 4's clipping: torch.clamp with tensor bounds (aten.clamp.Tensor), both, one, and a
    per-channel bound broadcast."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("low", torch.tensor(-0.5))
        self.register_buffer("high", torch.tensor(0.75))
        self.per_channel = torch.nn.Parameter(torch.linspace(0.1, 1.0, 6))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        both = torch.clamp(x, self.low, self.high)
        upper = torch.clamp(x, max=self.per_channel)
        return both + upper + torch.clamp(x, min=-self.per_channel)


def test_clamp_with_tensor_bounds_is_delegated_and_matches_eager():
    x = torch.randn(2, 5, 6, generator=torch.Generator().manual_seed(3)) * 2
    lowered = check_delegated_and_matches(_ClampByBuffers().eval(), (x,), tolerance=1e-6,
                                          expect_operations=["MAXIMUM", "MINIMUM"])
    assert lowered.num_delegates == 1 and not lowered.cpu_ops
