"""Floor division: int32 -> DIV on TENSOR_INT32 (API 30, floors like PyTorch), exact against
eager for every sign combination; float floor division refused with the precise reason."""

from __future__ import annotations

import pytest
import torch

from op_harness import Lambda, check_delegated_and_matches, lower


def _int32(*shape: int, low: int = -50, high: int = 50) -> torch.Tensor:
    return torch.randint(low, high, shape, generator=torch.Generator().manual_seed(0), dtype=torch.int32)


def _divisors(*shape: int) -> torch.Tensor:
    d = _int32(*shape, low=-7, high=8)
    return torch.where(d == 0, torch.ones_like(d), d)


def test_int32_floor_divide_is_div_at_api_30():
    a = torch.tensor([[5, -5, 5, -5, 0, 7, -7, 2147483647]], dtype=torch.int32)
    b = torch.tensor([[2, 2, -2, -2, 3, 7, 3, -2]], dtype=torch.int32)
    module = Lambda(lambda x, y, z, w: (x // y, torch.floor_divide(z, w), z // 3, -7 // y))
    z, w = _int32(4, 1), torch.tensor([-3], dtype=torch.int32)
    lowered = check_delegated_and_matches(module, (a, b, z, w), feature_level=30, expect_operations=["DIV"],
                                          run_inputs=[(a, b, z, w), (_int32(1, 8), _divisors(1, 8), _int32(4, 1),
                                                                     torch.tensor([4], dtype=torch.int32))])
    assert lowered.cpu_ops == [] and lowered.nnapi_operations.count("DIV") == 4


@pytest.mark.parametrize("level", [27, 28, 29])
def test_int32_floor_divide_below_api_30_is_refused(level):
    lowered = lower(Lambda(lambda x, y: x // y), (_int32(3, 4), _divisors(3, 4)), feature_level=level)
    assert f"needs API {28 if level == 27 else 30}" in lowered.reasons["aten.div.Tensor_mode"][0]


@pytest.mark.parametrize("level", [28, 29, 30])
def test_float_trunc_division_is_div_then_exact_trunc(level):
    a = torch.tensor([[7.0, -7.0, 7.0, -7.0, 0.5, -0.5, 1.0, 3e9, -1e-30, 6.0]])
    b = torch.tensor([[2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.1, 7.0, 1.0, 3.0]])
    conv = torch.nn.Conv2d(2, 3, 1)
    module = Lambda(lambda x, y, img: (torch.div(x, y, rounding_mode="trunc"), torch.div(x, 0.3, rounding_mode="trunc"),
                                       torch.div(conv(img), 0.25, rounding_mode="trunc")))
    img = torch.randn(1, 2, 4, 5, generator=torch.Generator().manual_seed(0)) * 4
    lowered = check_delegated_and_matches(module, (a, b, img), feature_level=level, tolerance=1e-12,
                                          expect_operations=["DIV", "FLOOR"])
    assert "TRANSPOSE" not in lowered.nnapi_operations  # the NHWC conv output is divided in place


def test_float_floor_divide_is_refused_as_not_exact():
    x = torch.tensor([1.0, 7.5, -3.0])
    assert (torch.tensor([1.0]) // 0.1).item() == 9.0 and torch.floor(torch.tensor(1.0) / 0.1).item() == 10.0
    lowered = lower(Lambda(lambda t: t // 0.1 + t), (x,), feature_level=30)
    (reason,) = lowered.reasons["aten.div.Tensor_mode"]
    assert "NNAPI has no floating-point remainder (fmod) at any feature level" in reason
    assert "1 // 0.1 is 9.0 in PyTorch, floor(1 / 0.1) is 10.0" in reason


def test_int64_floor_divide_and_trunc_division_are_refused():
    a, b = torch.tensor([5, -5]), torch.tensor([2, 2])
    lowered = lower(Lambda(lambda x, y: (x // y, torch.div(x.int(), y.int(), rounding_mode="trunc"))), (a, b))
    reasons = lowered.reasons["aten.div.Tensor_mode"]
    assert any("int64 operand (DIV takes TENSOR_INT32; NNAPI has no 64-bit integers)" in r for r in reasons)
    assert any("rounding_mode='trunc' on int32" in r for r in reasons)
