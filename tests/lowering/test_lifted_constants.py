"""A tensor constant created in ``forward`` and read in two NNAPI partitions (split by an op
NNAPI lacks) lowers, serializes and equals eager (lowering/passes/lifted_constants.py): with the
placeholder shared, ExecuTorch's per-partition copies of it failed ``to_executorch`` ("`lifted_tensor_0`
is not a buffer"), which SEW-D's log buckets met once their gathers were delegated."""

from __future__ import annotations

import torch

from op_harness import lower, relative_max_error, run_pte


class ConstantOnBothSides(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = torch.tensor(3)
        y = torch.erf(x * c + c)  # erf: NNAPI has none, so two partitions read c
        return y * c - c


def test_a_lifted_constant_read_by_two_partitions_serializes_and_matches_eager():
    x = torch.randn(2, 5, generator=torch.Generator().manual_seed(0))
    lowered = lower(ConstantOnBothSides(), (x,))
    assert lowered.num_delegates == 2 and lowered.cpu_ops == ["aten.erf.default"]
    (got,) = run_pte(lowered.pte, [x])
    assert relative_max_error(got, ConstantOnBothSides()(x)) < 1e-6


def _float64_position_table(x: torch.Tensor) -> torch.Tensor:
    """DETR-style sine position embedding computed in float64 from arange (shapes only) and
    converted to float32 at its end, added to the features; one float64 constant also read outside
    a constant computation (the comparison) stays unfolded and on the CPU."""
    pos = torch.arange(x.shape[1], dtype=torch.float64)[:, None]
    freq = torch.pow(10000.0, torch.arange(0, x.shape[2], 2, dtype=torch.float64) / x.shape[2])
    table = torch.cat([torch.sin(pos / freq), torch.cos(pos / freq)], dim=1).to(torch.float32)
    return x + table


def test_a_float64_table_of_the_shapes_is_folded_into_the_subgraph():
    from op_harness import Lambda, check_delegated_and_matches

    lowered = check_delegated_and_matches(Lambda(_float64_position_table), (torch.randn(2, 7, 8),), tolerance=1e-6)
    assert lowered.num_delegates == 1 and not lowered.cpu_ops


def test_a_float64_value_read_outside_a_constant_computation_stays_on_the_cpu():
    from op_harness import Lambda, lower, run_pte

    def compare(x: torch.Tensor) -> torch.Tensor:
        limits = torch.arange(x.shape[1], dtype=torch.float64) * 0.25
        return (x.double() > limits).float() + x

    x = torch.randn(3, 6)
    lowered = lower(Lambda(compare), (x,))
    assert any(op.startswith("aten.gt") for op in lowered.cpu_ops), lowered.cpu_ops
    assert torch.equal(run_pte(lowered.pte, [x])[0], compare(x))


class TokenTypeMask(torch.nn.Module):
    """GIT's mask preparation (transformers): int ids made by ``zeros_like`` of the embeddings (only
    their static shape matters), compared and turned into an int64 group mask, viewed, then added
    to float scores. Every int node depends on the embeddings' shape only."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        token_type_ids = torch.zeros_like(x, dtype=torch.int)[..., 0]          # [B, T] int32
        group_ids = torch.where(token_type_ids == 1, 0, -1)                      # int64
        pairs = (group_ids.view(x.shape[0], -1, 1) == group_ids.view(x.shape[0], 1, -1))
        ones = torch.ones_like(x[..., :1]).new_ones((x.shape[0], x.shape[1]), dtype=torch.int64)
        scores = x @ x.transpose(1, 2)
        return scores.masked_fill(~pairs, -1e4) + ones.unsqueeze(-1)


def test_shape_only_int_computations_fold_into_the_subgraph():
    x = torch.randn(2, 6, 8, generator=torch.Generator().manual_seed(0))
    lowered = lower(TokenTypeMask(), (x,))
    reasons = {d.op: d.reason for d in lowered.partitioner.decisions if not d.supported}
    assert lowered.num_delegates == 1 and lowered.cpu_ops == [], reasons
    (got,) = run_pte(lowered.pte, [x])
    assert relative_max_error(got, TokenTypeMask()(x)) < 1e-6
