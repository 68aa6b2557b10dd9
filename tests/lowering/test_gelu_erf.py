"""Exact GELU (approximate='none') through the C++ backend on the host driver: erfc
is composed from ABS / MINIMUM / EXP / DIV / MUL / ADD (lowering/builders/gelu.py).

The bound documented there is checked over every float32 magnitude, both signs,
against gelu computed in float64: |error| <= 1e-7·max(1, |x|), below float32's
epsilon (1.19e-7); the specials (±inf, NaN, ±0, subnormals, ±FLT_MAX) behave as
documented.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from op_harness import Lambda, check_delegated_and_matches, lower, run_pte

FLT_MAX = float(torch.finfo(torch.float32).max)
BOUND = 1e-7


def exact_gelu(x: torch.Tensor) -> torch.Tensor:
    """gelu(x) = x·erfc(-x/√2)/2 in float64 (no cancellation in the negative tail)."""
    xd = x.double()
    return 0.5 * xd * torch.special.erfc(-xd / math.sqrt(2.0))


def float32_sweep() -> torch.Tensor:
    """Magnitudes from the smallest subnormal to FLT_MAX (log-spaced) and a dense [-16, 16], both signs."""
    magnitudes = torch.logspace(-45, math.log10(FLT_MAX), 200_001, dtype=torch.float64).float()
    dense = torch.linspace(-16, 16, 400_001, dtype=torch.float32)
    return torch.cat([magnitudes, -magnitudes, dense])


def run_gelu(x: torch.Tensor, feature_level: int = 29) -> torch.Tensor:
    lowered = lower(Lambda(F.gelu), (x,), feature_level=feature_level)
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1, lowered.reasons
    assert "EXP" in lowered.nnapi_operations and "TANH" not in lowered.nnapi_operations
    (out,) = run_pte(lowered.pte, [x], feature_level)
    return out


def test_exact_gelu_error_below_float32_epsilon_over_the_whole_range():
    x = float32_sweep()
    x = x[torch.isfinite(x)]
    got = run_gelu(x)
    err = (got.double() - exact_gelu(x)).abs() / x.double().abs().clamp(min=1.0)
    worst = int(err.argmax())
    assert err.max().item() <= BOUND, f"error {err.max().item():.3g} at x = {x[worst].item()!r}"
    # Far in the negative tail the result is exactly 0 (float32 underflow), as in float64.
    assert torch.all(got[x < -20] == 0)
    # Large positive x: gelu(x) = x exactly (no overflow at FLT_MAX).
    big = x > 20
    assert torch.equal(got[big], x[big])


def test_exact_gelu_specials():
    x = torch.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0, 1e-45, -1e-45, FLT_MAX, -FLT_MAX, 1.0, -1.0])
    got = run_gelu(x)
    # The mathematical limits at ±inf (eager torch on the CPU returns NaN for both).
    assert got[0].item() == math.inf and got[1].item() == 0.0
    assert math.isnan(got[2].item())
    assert got[3].item() == 0.0 and got[4].item() == 0.0
    tiny = x[5].item()  # the smallest subnormal: gelu(±tiny) is ±tiny/2, which rounds to tiny or 0
    assert abs(got[5].item()) <= tiny and abs(got[6].item()) <= tiny
    assert got[7].item() == FLT_MAX and got[8].item() == 0.0
    want = exact_gelu(x[9:])
    assert torch.allclose(got[9:].double(), want, rtol=0, atol=BOUND)


def test_exact_gelu_matches_eager_in_a_conv_net():
    conv = torch.nn.Conv2d(3, 8, 3, padding=1)
    module = Lambda(lambda t: F.gelu(conv(t)) * 2.0)
    x = torch.randn(2, 3, 9, 7, generator=torch.Generator().manual_seed(0)) * 3
    lowered = check_delegated_and_matches(module, (x,), feature_level=29, expect_operations=["EXP", "ABS", "CONV_2D"])
    assert lowered.num_delegates == 1 and lowered.nnapi_operations.count("TRANSPOSE") == 0


def test_exact_gelu_below_api_29_is_refused_with_its_level():
    lowered = lower(Lambda(F.gelu), (torch.randn(4, 7),), feature_level=28)
    assert lowered.reasons["aten.gelu.default"] == [
        "exact gelu (erf from ABS / MINIMUM / EXP) needs API 29 (Android 10); the target is API 28 (Android 9)"]
