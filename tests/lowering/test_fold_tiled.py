"""F.fold (aten.col2im) whose windows tile the output (stride = kernel: MobileViTv2 folds its
patches back this way; issue 42's sweep): a view, a permute and a view before partitioning
(lowering/passes/composite_ops.py) instead of torch's scatter with accumulation (index_put,
which NNAPI has no operation for). Lowered, one NNAPI subgraph with no CPU op, run on the host
driver and compared with eager (exactly: values are only moved); overlapping windows are left
to torch's decomposition.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.export import export

from op_harness import Lambda, check_delegated_and_matches
from executorch_nnapi.lowering.passes.composite_ops import decompose_composites

COL2IM = torch.ops.aten.col2im.default


class Patches(torch.nn.Module):
    """MobileViTv2's unfolding / folding: image -> non-overlapping 2x2 patches -> per-patch
    computation -> patches folded back; then a batched and an unbatched fold of other windows."""

    def __init__(self) -> None:
        super().__init__()
        self.mix = torch.nn.Conv1d(12, 12, 1)

    def forward(self, x: torch.Tensor, columns: torch.Tensor, unbatched: torch.Tensor) -> tuple[torch.Tensor, ...]:
        patches = F.unfold(x, kernel_size=2, stride=2)                          # [B, C*4, L]
        folded = F.fold(self.mix(patches), output_size=x.shape[-2:], kernel_size=2, stride=2)
        return (folded, F.fold(columns, output_size=(6, 9), kernel_size=(2, 3), stride=(2, 3)),
                F.fold(unbatched, output_size=(4, 4), kernel_size=(1, 2), stride=(1, 2)))


def test_tiled_folds_are_one_subgraph() -> None:
    torch.manual_seed(0)
    shapes = [(2, 3, 8, 6), (2, 5 * 6, 9), (3 * 2, 8)]
    low = check_delegated_and_matches(Patches(), tuple(torch.randn(*s) for s in shapes), tolerance=1e-6)
    assert low.num_delegates == 1


def test_overlapping_windows_are_left_to_torch() -> None:
    fold = Lambda(lambda p: F.fold(p, output_size=(5, 5), kernel_size=3, stride=2))
    program = export(fold, (torch.randn(1, 2 * 9, 4),))
    assert decompose_composites(program) == 0
    assert [n for n in program.graph.nodes if n.target == COL2IM]
