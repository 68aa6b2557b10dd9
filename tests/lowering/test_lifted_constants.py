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
