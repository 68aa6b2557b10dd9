"""scaled_dot_product_attention on rank-5 operands (windowed attention: timm's NesT and Hiera,
``[B, heads, windows, N, d]``; issue 42's sweep): rewritten before partitioning as the same
attention with its batch dims merged into two (lowering/passes/composite_ops.py), so it
decomposes at rank 4 like a transformer's. Lowered, one NNAPI subgraph with no CPU op, run on the
host driver and compared with eager; with no mask, a broadcast bool mask, a full float mask, a
causal mask and an explicit scale. Operands whose batch dims differ are left as they were.

Tolerance 1e-5 of the result's max: the same products and softmax in float32, in other orders.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.export import export

from op_harness import check_delegated_and_matches
from executorch_nnapi.lowering.passes.composite_ops import decompose_composites

TOLERANCE = 1e-5
SDPA = torch.ops.aten.scaled_dot_product_attention.default


class WindowedAttention(torch.nn.Module):
    """NesT's attention: qkv from one linear layer, split per head and window by a rank-6 permute,
    attention over each window's tokens at rank 5, heads merged back, a projection; then the same
    q, k, v under a broadcast bool mask, a full float mask, a causal mask and a scale."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, float_mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
        b, windows, tokens, c = x.shape
        qkv = self.qkv(x).reshape(b, windows, tokens, 3, self.heads, c // self.heads).permute(3, 0, 4, 1, 2, 5)
        q, k, v = qkv.unbind(0)
        keep = torch.ones(tokens, tokens, dtype=torch.bool).tril(1)       # a constant, broadcast
        outputs = (F.scaled_dot_product_attention(q, k, v),
                   F.scaled_dot_product_attention(q, k, v, attn_mask=keep),
                   F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask),
                   F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3))
        return tuple(self.proj(o.permute(0, 2, 3, 1, 4).reshape(b, windows, tokens, c)) for o in outputs)


def test_rank5_attention_is_one_subgraph() -> None:
    torch.manual_seed(0)
    model = WindowedAttention().eval()
    shapes = [(2, 4, 9, 16), (2, 2, 4, 9, 9)]
    low = check_delegated_and_matches(model, tuple(torch.randn(*s) for s in shapes),
                                      run_inputs=[tuple(torch.randn(*s) * 2 for s in shapes)], tolerance=TOLERANCE)
    assert low.num_delegates == 1


class BroadcastKeys(torch.nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v)


def test_rank5_rewritten_only_when_batch_dims_agree() -> None:
    """Rank 5 with q, k, v of one batch shape: one rank-4 attention; k and v broadcast over the
    windows, or rank 4: left as they were."""
    same = export(BroadcastKeys(), (torch.randn(1, 2, 3, 5, 4), torch.randn(1, 2, 3, 5, 4), torch.randn(1, 2, 3, 5, 4)))
    assert decompose_composites(same) == 1
    (node,) = [n for n in same.graph.nodes if n.target == SDPA]
    assert tuple(node.meta["val"].shape) == (1, 6, 5, 4)
    broadcast = export(BroadcastKeys(), (torch.randn(1, 2, 3, 5, 4), torch.randn(1, 2, 1, 5, 4), torch.randn(1, 2, 1, 5, 4)))
    rank4 = export(BroadcastKeys(), (torch.randn(1, 2, 5, 4),) * 3)
    for program in (broadcast, rank4):
        assert decompose_composites(program) == 0
