"""The host driver's vectorized fixed-point primitives (SaturatingRoundingDoublingHighMul,
RoundingDivideByPOT, MultiplyByQuantizedMultiplier) against the scalar C rules of
tests/nnapi_rules.py, element by element: on the values where rounding and saturation
change (ties, signs, INT32_MIN / INT32_MAX, every shift) and on random int32 values."""

from __future__ import annotations

import pytest
import torch

import nnapi_rules as rules
from executorch_nnapi.host_driver.operations import _qmath as qm

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
EDGES = [0, 1, -1, 2, -2, 3, -3, INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 1 << 30, -(1 << 30),
         (1 << 30) + 1, -(1 << 30) - 1, (1 << 15) - 1, -(1 << 15)]


def values(seed: int, n: int = 4000) -> list[int]:
    g = torch.Generator().manual_seed(seed)
    wide = torch.randint(INT32_MIN, INT32_MAX, (n,), generator=g, dtype=torch.int64)
    narrow = torch.randint(-70000, 70000, (n,), generator=g, dtype=torch.int64)
    return EDGES + wide.tolist() + narrow.tolist()


@pytest.mark.parametrize("b", [INT32_MIN, INT32_MAX, 1 << 30, 1518500250, 1, -1, -1010580540, 0])
def test_srdhm_matches_the_c_rule(b):
    a = values(1)
    got = qm.srdhm(torch.tensor(a), b).tolist()
    assert got == [rules.srdhm(x, b) for x in a]


def test_srdhm_per_channel_multipliers():
    a = torch.tensor(values(2)[:3000]).view(3, 1000)
    m = torch.tensor([INT32_MIN, 1 << 30, 2000000000]).view(3, 1)
    got = qm.srdhm(a, m)
    assert got.tolist() == [[rules.srdhm(x, int(mi)) for x in row] for row, mi in zip(a.tolist(), m.view(-1))]


@pytest.mark.parametrize("e", [0, 1, 2, 7, 16, 30, 31])
def test_rdbp_matches_the_c_rule(e):
    x = values(3)
    # Exact ties (x = ±(k + 1/2)·2^e) as well.
    ties = [s * ((2 * k + 1) << e) // 2 for k in range(5) for s in (1, -1)] if e else []
    x = x + [t for t in ties if INT32_MIN <= t <= INT32_MAX]
    assert qm.rdbp(torch.tensor(x), e).tolist() == [rules.rdbp(v, e) for v in x]


def test_rdbp_per_channel_shifts():
    e = torch.arange(32).view(32, 1)
    x = torch.tensor(values(4)[:200])
    got = qm.rdbp(x.view(1, -1), e)
    assert got.tolist() == [[rules.rdbp(v, int(k)) for v in x.tolist()] for k in range(32)]


@pytest.mark.parametrize("multiplier", [0.5, 0.0123, 3.7e-5, 1.0 - 1e-7, 2.5, 37.0])
def test_mbqm_matches_the_c_rule(multiplier):
    m, shift = rules.quantize_multiplier(multiplier)
    x = values(5)
    got = qm.mbqm(torch.tensor(x), m, shift).tolist()
    assert got == [rules.mbqm(v, m, shift) for v in x]


def test_mbqm_per_channel_with_left_and_right_shifts():
    pairs = [rules.quantize_multiplier(s) for s in (0.7, 0.003, 1.9, 12.0)]
    m = torch.tensor([p[0] for p in pairs]).view(4, 1)
    shift = torch.tensor([p[1] for p in pairs]).view(4, 1)
    x = torch.tensor(values(6)[:1000])
    got = qm.mbqm(x.view(1, -1), m, shift)
    assert got.tolist() == [[rules.mbqm(v, mi, si) for v in x.tolist()] for mi, si in pairs]
