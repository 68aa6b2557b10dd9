"""einsum whose decomposition makes rank > 4 values (MViTv2's relative positions, issue 42's sweep:
``einsum("byhwc,hkc->byhwk", q, rel_h)`` added to the attention viewed at rank 6): decomposed in
the first pass before partitioning (lowering/passes/composite_ops.py), so that high_rank_regions
rewrites it at rank 4 with the rest of its region. Lowered, one NNAPI subgraph with no CPU op, run
on the host driver and compared with eager; a transformer's rank-4 einsum too.

Tolerance 1e-5 of the result's max: the same products in float32, in other orders.
"""

from __future__ import annotations

import torch
from torch.export import export

from op_harness import check_delegated_and_matches
from executorch_nnapi.lowering.passes.composite_ops import decompose_composites

TOLERANCE = 1e-5


class DecomposedRelativePositions(torch.nn.Module):
    """Attention logits plus relative positions per query row and column, MViTv2's way: the
    positions' embeddings (a constant table gathered by a constant index) contracted with the
    queries by einsum, added to the logits viewed as [B, heads, qh, qw, kh, kw]."""

    def __init__(self, q_size=(4, 4), k_size=(2, 2), dim: int = 8) -> None:
        super().__init__()
        self.q_size, self.k_size = q_size, k_size
        gen = torch.Generator().manual_seed(0)
        self.rel_h = torch.nn.Parameter(torch.randn(q_size[0], k_size[0], dim, generator=gen))
        self.rel_w = torch.nn.Parameter(torch.randn(q_size[1], k_size[1], dim, generator=gen))

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        (qh, qw), (kh, kw) = self.q_size, self.k_size
        b, heads, _, dim = q.shape
        attn = (q * dim ** -0.5) @ k.transpose(-2, -1)
        r_q = q.reshape(b, heads, qh, qw, dim)
        rel_h = torch.einsum("byhwc,hkc->byhwk", r_q, self.rel_h)
        rel_w = torch.einsum("byhwc,wkc->byhwk", r_q, self.rel_w)
        attn = (attn.view(b, heads, qh, qw, kh, kw) + rel_h.unsqueeze(-1) + rel_w.unsqueeze(-2))
        return attn.view(b, heads, qh * qw, kh * kw).softmax(-1)


class RankFourEinsum(torch.nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bhqd,bhkd->bhqk", q, k).softmax(-1)


def test_relative_positions_by_einsum_are_one_subgraph() -> None:
    torch.manual_seed(0)
    shapes = [(2, 2, 16, 8), (2, 2, 4, 8)]
    check_delegated_and_matches(DecomposedRelativePositions(), tuple(torch.randn(*s) for s in shapes),
                                run_inputs=[tuple(torch.randn(*s) * 2 for s in shapes)], tolerance=TOLERANCE)


def test_rank4_einsum_is_decomposed_first_and_delegated() -> None:
    torch.manual_seed(0)
    inputs = (torch.randn(1, 2, 5, 4), torch.randn(1, 2, 6, 4))
    program = export(RankFourEinsum(), inputs)
    assert decompose_composites(program) == 1
    assert not [n for n in program.graph.nodes if n.target == torch.ops.aten.einsum.default]
    low = check_delegated_and_matches(RankFourEinsum(), inputs, tolerance=TOLERANCE)
    assert low.num_delegates == 1
