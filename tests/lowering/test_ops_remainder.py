"""Integer remainder by a positive number (builders/remainder.py: DIV on TENSOR_INT32 floors,
API 30) and residues taken first through sums and products by numbers
(passes/modular_arithmetic.py: CANINE's hash buckets), exact against eager for every int32 value,
the extremes included; float remainder refused."""

from __future__ import annotations

import torch

from op_harness import Lambda, check_delegated_and_matches, lower

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def _extremes(dtype: torch.dtype) -> torch.Tensor:
    values = [INT32_MIN, INT32_MIN + 1, INT32_MIN + 5, -7, -1, 0, 1, 6, 7, 1000003, INT32_MAX - 1, INT32_MAX]
    return torch.tensor([values], dtype=dtype)


def test_remainder_of_any_int32_value_is_exact():
    """Partition inputs are unbounded: the overflow-free form (MAXIMUM raises the quotient, SELECT
    adds the divisor back) is exact at INT32_MIN, where m * floor(x / m) leaves int32."""
    module = Lambda(lambda x, y: (x % 7, y % 3, y % 65536, x % 1))
    inputs = (_extremes(torch.int32), _extremes(torch.int64))
    random = (torch.randint(INT32_MIN, INT32_MAX, (1, 12), dtype=torch.int32, generator=torch.Generator().manual_seed(0)),
              torch.randint(-100, 100, (1, 12), generator=torch.Generator().manual_seed(1)))
    lowered = check_delegated_and_matches(module, inputs, run_inputs=[inputs, random],
                                          expect_operations=["DIV", "MAXIMUM", "SELECT"])
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1


class HashBuckets(torch.nn.Module):
    """CANINE's hash embedding: each id hashed by several primes into buckets, embedded, summed."""

    def __init__(self, buckets: int = 64, primes: tuple[int, ...] = (31, 43, 59)) -> None:
        super().__init__()
        self.buckets, self.primes = buckets, primes
        self.tables = torch.nn.ModuleList(torch.nn.Embedding(buckets, 4) for _ in primes)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        shards = [table(((ids + 1) * prime) % self.buckets) for table, prime in zip(self.tables, self.primes)]
        return torch.cat(shards, dim=-1) + (ids - 3).remainder(self.buckets).unsqueeze(-1)


def test_hash_buckets_take_residues_first_in_one_subgraph():
    """(ids + 1) * prime leaves int32 for large ids; residues first, every value stays below
    buckets^2, and the result is eager's for code points and for the int32 extremes alike."""
    ids = torch.tensor([[0, 65, 0x10FFFF, 97, 20013, 128512, 7, 8, 9, 10, 11, 12]])
    extremes = _extremes(torch.int64)
    lowered = check_delegated_and_matches(HashBuckets(), (ids,), run_inputs=[(ids,), (extremes,)], tolerance=1e-6)
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1


def test_float_remainder_and_api_29_are_refused():
    module = Lambda(lambda x, n: (x % 0.5, n % 3))
    inputs = (torch.randn(2, 3), torch.arange(6).view(2, 3))
    (reason,) = lower(module, inputs, feature_level=30).reasons["aten.remainder.Scalar"]
    assert "NNAPI has no floating-point remainder" in reason
    reasons = lower(module, inputs, feature_level=29).reasons["aten.remainder.Scalar"]
    assert all("needs API 30" in r for r in reasons) and len(reasons) == 2
