"""Comparisons, logical ops, where and any: each lowered, checked delegated, run through the C++
backend on the host driver and compared exactly with eager; bool tensors as partition inputs and
outputs; below API 29 they stay on the CPU with the reason "needs API 29"."""

from __future__ import annotations

import operator

import pytest
import torch
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower, run_pte


def ints(*shape, seed=0, low=-2, high=3):
    """Small integer-valued floats, so that comparisons meet ties."""
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randint(low, high, shape, generator=g).float()


def mask(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + 7 * sum(shape))
    return torch.rand(*shape, generator=g) > 0.5


COMPARISONS = [
    (operator.eq, "EQUAL"), (operator.ne, "NOT_EQUAL"), (operator.gt, "GREATER"),
    (operator.ge, "GREATER_EQUAL"), (operator.lt, "LESS"), (operator.le, "LESS_EQUAL"),
]
_IDS = [c[1] for c in COMPARISONS]


@pytest.mark.parametrize("compare, operation", COMPARISONS, ids=_IDS)
def test_comparison_of_tensors_broadcasts(compare, operation):
    check_delegated_and_matches(Lambda(compare), (ints(2, 3, 4), ints(3, 1)), expect_operations=[operation])


@pytest.mark.parametrize("compare, operation", COMPARISONS, ids=_IDS)
def test_comparison_with_a_number(compare, operation):
    module = Lambda(lambda x: (compare(x, 1), compare(x, -0.5)))
    check_delegated_and_matches(module, (ints(2, 5),), expect_operations=[operation])


def test_comparison_of_int32_and_bool_tensors():
    a = torch.randint(-3, 4, (2, 5), dtype=torch.int32)
    b = torch.randint(-3, 4, (5,), dtype=torch.int32)
    module = Lambda(lambda a, b, m, n: (a > b, a == 3, a <= -1, m == n, m > n))
    lowered = check_delegated_and_matches(module, (a, b, mask(2, 5), mask(1, 5, seed=1)))
    assert lowered.nnapi_operations.count("GREATER") == 2


def test_comparison_with_a_constant_tensor():
    threshold = torch.tensor([[0.0], [1.0], [-1.0]])

    class Module(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("threshold", threshold)

        def forward(self, x):
            return x >= self.threshold

    check_delegated_and_matches(Module(), (ints(2, 3, 4),), expect_operations=["GREATER_EQUAL"])


def test_masked_fill_with_a_bool_mask_compared_with_0_and_1():
    # PyTorch compares a bool tensor with a number in int64; NNAPI compares it with False / True.
    module = Lambda(lambda x, m: (x.masked_fill(m == 0, -1e4), m != 1, m > 0, m <= 0))
    check_delegated_and_matches(module, (ints(2, 3, 4), mask(3, 4)), expect_operations=["EQUAL", "SELECT"])


LOGICAL = [
    (torch.logical_and, "LOGICAL_AND"), (torch.logical_or, "LOGICAL_OR"), (torch.logical_xor, "NOT_EQUAL"),
    (operator.and_, "LOGICAL_AND"), (operator.or_, "LOGICAL_OR"), (operator.xor, "NOT_EQUAL"),
]


@pytest.mark.parametrize("fn, operation", LOGICAL, ids=[f"{f.__name__}-{o}" for f, o in LOGICAL])
def test_logical_binary_on_bool_inputs(fn, operation):
    check_delegated_and_matches(Lambda(fn), (mask(2, 3, 4), mask(3, 1, seed=1)), expect_operations=[operation])


@pytest.mark.parametrize("fn", [torch.logical_not, operator.invert], ids=["logical_not", "invert"])
def test_logical_not(fn):
    check_delegated_and_matches(Lambda(fn), (mask(3, 4),), expect_operations=["LOGICAL_NOT"])


def test_logical_ops_of_float_use_nonzero_as_true():
    module = Lambda(lambda x, y: (torch.logical_and(x, y), torch.logical_not(x), torch.logical_or(x > 0, y)))
    x, y = ints(3, 4), ints(3, 4, seed=1)
    x[0, 0] = float("nan")  # nonzero: true
    lowered = check_delegated_and_matches(module, (x, y))
    assert "LOGICAL_AND" in lowered.nnapi_operations and "NOT_EQUAL" in lowered.nnapi_operations


def test_where_of_same_shapes_is_one_select():
    module = Lambda(lambda c, x, y: torch.where(c, x, y))
    lowered = check_delegated_and_matches(module, (mask(2, 3, 4), ints(2, 3, 4), ints(2, 3, 4, seed=1)))
    assert lowered.nnapi_operations == ["SELECT"]


def test_where_broadcasts_condition_values_and_numbers():
    def fn(c, x, y):
        return torch.where(c, x, y), torch.where(x > 0, 0.5, y), torch.where(c, -1.0, 2.0 * x)

    # c [4, 5], x [3, 4, 5], y [5]: everything is brought to [3, 4, 5].
    lowered = check_delegated_and_matches(Lambda(fn), (mask(4, 5), ints(3, 4, 5), ints(5, seed=1)),
                                          expect_operations=["SELECT", "TILE", "LOGICAL_OR", "EXPAND_DIMS"])
    assert lowered.nnapi_operations.count("SELECT") == 3


def test_where_with_a_dynamic_batch():
    def fn(c, x, y):
        return torch.where(c, x, y) * 2, (x > y).any(-1)

    n = Dim("n", min=1, max=8)
    runs = [(mask(4, 5), ints(b, 4, 5), ints(5, seed=1)) for b in (3, 1, 8)]
    check_delegated_and_matches(Lambda(fn), runs[0], run_inputs=runs, dynamic_shapes=((None, {0: n}, None),),
                                expect_operations=["SELECT", "TILE", "REDUCE_ANY"])


def test_where_of_int32_values():
    a = torch.randint(-3, 4, (2, 5), dtype=torch.int32)
    b = torch.randint(-3, 4, (5,), dtype=torch.int32)
    check_delegated_and_matches(Lambda(lambda a, b: torch.where(a > b, a, b)), (a, b),
                                expect_operations=["GREATER", "TILE", "SELECT"])


def test_where_after_a_convolution_transposes_the_float_side_only():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1).eval()
    module = Lambda(lambda x: torch.where(conv(x) > 0, conv(x), -conv(x)))
    lowered = check_delegated_and_matches(module, (torch.randn(1, 3, 6, 5),))
    assert "SELECT" in lowered.nnapi_operations and "TRANSPOSE" in lowered.nnapi_operations


@pytest.mark.parametrize("fn", [
    lambda m: m.any(1),
    lambda m: m.any(-1, keepdim=True),
    lambda m: torch.any(m, dim=(0, 2)),
    lambda m: m.any(),
    lambda m: m.all(1),
    lambda m: (m.all(), m.all(0, keepdim=True)),
], ids=["dim", "dim_keepdim", "dims", "all_dims", "all", "all_keepdim"])
def test_any_and_all(fn):
    check_delegated_and_matches(Lambda(fn), (mask(2, 3, 4),), expect_operations=["REDUCE_ANY"])


def test_zero_dim_values():
    def fn(s, x):
        total = x.sum()
        return s > 0, torch.where(total > s, total, s), (x > s).all(), torch.logical_not(s < total)

    check_delegated_and_matches(Lambda(fn), (torch.tensor(0.5), ints(3, 4)), expect_operations=["REDUCE_ANY"])


def test_any_of_float_input():
    check_delegated_and_matches(Lambda(lambda x: x.any(1)), (ints(3, 4),), expect_operations=["NOT_EQUAL", "REDUCE_ANY"])


def test_bool_values_cross_partition_boundaries():
    # flip stays on the CPU: a mask leaves one partition and its flipped copy enters the next.
    def fn(x, m):
        a = (x > 0).logical_and(m)
        return a.flip(1) | m.logical_not(), a

    lowered = lower(Lambda(fn), (ints(2, 6), mask(2, 6)))
    assert lowered.num_delegates == 2 and lowered.cpu_ops == ["aten.flip.default"]
    x, m = ints(2, 6, seed=3), mask(2, 6, seed=3)
    got = run_pte(lowered.pte, [x, m])
    want = fn(x, m)
    assert all(g.dtype == torch.bool and torch.equal(g, w) for g, w in zip(got, want))


BELOW_29 = [
    (lambda x, m: x > 0, "aten.gt.Scalar"),
    (lambda x, m: x == x.flip(1), "aten.eq.Tensor"),
    (lambda x, m: torch.logical_and(m, m.flip(0)), "aten.logical_and.default"),
    (lambda x, m: ~m, "aten.bitwise_not.default"),
    (lambda x, m: torch.where(m, x, -x), "aten.where.self"),
    (lambda x, m: m.any(1), "aten.any.dim"),
]


@pytest.mark.parametrize("fn, op", BELOW_29, ids=[c[1] for c in BELOW_29])
@pytest.mark.parametrize("level", [27, 28])
def test_below_api_29_they_stay_on_the_cpu(fn, op, level):
    x, m = ints(2, 3), mask(2, 3)
    lowered = lower(Lambda(fn), (x, m), feature_level=level)
    assert op in lowered.cpu_ops
    assert any("needs API 29" in r for r in lowered.reasons[op]), lowered.reasons
    (got,) = run_pte(lowered.pte, [x, m], feature_level=level)
    assert torch.equal(got, fn(x, m))


def test_refusals_name_the_dtype():
    def fn(i, x, j):
        return i.to(torch.int16) > 0, torch.where(x > 0, x.double(), 0.0), j & j

    lowered = lower(Lambda(fn), (torch.arange(6), ints(6), torch.arange(6, dtype=torch.int32)))
    got = lowered.reasons
    # (int64 is compared as the TENSOR_INT32 holding it: tests/lowering/test_ops_cumsum.py.)
    assert "computes in int16" in got["aten.gt.Scalar"][0]
    assert "computes in float64" in got["aten.where.self"][0]
    assert "computes in int32 (NNAPI takes bool here)" in got["aten.bitwise_and.Tensor"][0]
