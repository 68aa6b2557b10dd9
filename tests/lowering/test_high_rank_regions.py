"""Computations on rank > 4 values rewritten on merged dims (lowering/passes/high_rank_regions.py):
each idiom lowers into one NNAPI subgraph with no CPU op, runs on the host driver and equals
eager. The modules reproduce the models': split attention (ResNeSt, SKNet: a softmax over the
radix of a rank-5 view and the weighted sum over it), relative position logits as two permuted,
expanded rank-5 values added (BoTNet, HaloNet), a gate summed over a split dim (WavLM). Batch 2,
so that no dim is of size 1 and the dims must be merged, not dropped."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from op_harness import check_delegated_and_matches, lower, relative_max_error, run_pte
from op_harness import seeded_randn as _randn
from executorch_nnapi.lowering.passes.high_rank_axes import AxisMismatch, Axes


class SplitAttention(torch.nn.Module):
    """ResNeSt's split attention over ``radix`` groups of a convolution's channels."""

    def __init__(self, channels: int = 8, radix: int = 2) -> None:
        super().__init__()
        self.radix, self.channels = radix, channels
        self.conv = torch.nn.Conv2d(4, channels * radix, 3, padding=1)
        self.fc1 = torch.nn.Conv2d(channels, 6, 1)
        self.fc2 = torch.nn.Conv2d(6, channels * radix, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]
        x = torch.relu(self.conv(x))
        groups = x.view(b, self.radix, self.channels, *x.shape[2:])
        pooled = groups.sum(1).mean((2, 3), keepdim=True)
        logits = self.fc2(torch.relu(self.fc1(pooled))).view(b, self.radix, self.channels, 1, 1)
        attention = torch.softmax(logits, dim=1)
        return (groups * attention).sum(1)


def test_softmax_over_the_radix_and_the_weighted_sum_in_one_subgraph():
    lowered = check_delegated_and_matches(SplitAttention(), (_randn(2, 4, 6, 6),))
    assert lowered.num_delegates == 1 and "SOFTMAX" in lowered.nnapi_operations


class SelectiveKernel(torch.nn.Module):
    """SKNet's selective kernel: two paths stacked on dim 1 (rank 5), softmax over the paths."""

    def __init__(self, channels: int = 6) -> None:
        super().__init__()
        self.paths = torch.nn.ModuleList(torch.nn.Conv2d(channels, channels, k, padding=k // 2) for k in (1, 3))
        self.select = torch.nn.Conv2d(channels, 2 * channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        stacked = torch.stack([p(x) for p in self.paths], dim=1)
        b, paths, c = stacked.shape[:3]
        summary = stacked.sum(1).mean((2, 3), keepdim=True)
        weights = torch.softmax(self.select(summary).view(b, paths, c, 1, 1), dim=1)
        return torch.sum(stacked * weights, dim=1)


def test_stacked_paths_weighted_by_a_softmax_in_one_subgraph():
    lowered = check_delegated_and_matches(SelectiveKernel(), (_randn(2, 6, 5, 5),))
    assert lowered.num_delegates == 1


def relative_logits_1d(q: torch.Tensor, rel_k: torch.Tensor, permute_mask: tuple[int, ...]) -> torch.Tensor:
    """Relative logits along one axis, padded and reshaped to absolute positions, then tiled."""
    b, h, w, _ = q.shape
    rel_size = rel_k.shape[0]
    window = (rel_size + 1) // 2
    x = (q @ rel_k.transpose(-1, -2)).reshape(-1, w, rel_size)
    x = F.pad(F.pad(x, [0, 1]).flatten(1), [0, rel_size - w]).reshape(-1, w + 1, rel_size)
    x = x[:, :w, window - 1:].reshape(b, h, 1, w, window).expand(-1, -1, window, -1, -1)
    return x.permute(permute_mask)


class RelativePositionLogits(torch.nn.Module):
    """BoTNet's 2-D relative position logits: height and width logits, each a permuted expand of a
    rank-5 view, added and flattened to [B, HW, HW]."""

    def __init__(self, size: int = 4, dim: int = 8) -> None:
        super().__init__()
        self.size, self.dim = size, dim
        self.height = torch.nn.Parameter(_randn(2 * size - 1, dim, seed=1))
        self.width = torch.nn.Parameter(_randn(2 * size - 1, dim, seed=2))

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        b = q.shape[0]
        q = torch.tanh(q).reshape(-1, self.size, self.size, self.dim)
        logits_w = relative_logits_1d(q, self.width, (0, 1, 3, 2, 4))
        logits_h = relative_logits_1d(q.transpose(1, 2), self.height, (0, 3, 1, 4, 2))
        return (logits_h + logits_w).reshape(b, self.size ** 2, self.size ** 2)


def test_permuted_expanded_rank5_operands_added_in_one_subgraph():
    lowered = check_delegated_and_matches(RelativePositionLogits(), (_randn(3, 16, 8),))
    assert lowered.num_delegates == 1


class GatedBias(torch.nn.Module):
    """WavLM's gate: a projection viewed as [B, h, T, 2, 4], summed over the last dim."""

    def __init__(self) -> None:
        super().__init__()
        self.project = torch.nn.Linear(6, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, t, _ = x.shape
        gate_a, gate_b = torch.sigmoid(self.project(x).view(b, h, t, 2, 4).sum(-1)).chunk(2, dim=-1)
        return gate_a * gate_b


def test_a_sum_over_a_split_dim_in_one_subgraph():
    lowered = check_delegated_and_matches(GatedBias(), (_randn(2, 3, 5, 6),))
    assert lowered.num_delegates == 1


class OutlookAttention(torch.nn.Module):
    """VOLO's outlook attention core: per position, a softmax over a k*k window's weights and their
    product with the window's values, all at rank 5 ([B, heads, positions, k*k, ...])."""

    def __init__(self, channels: int = 8, heads: int = 2, window: int = 4) -> None:
        super().__init__()
        self.heads, self.window = heads, window
        self.attention = torch.nn.Linear(channels, heads * window * window)
        self.value = torch.nn.Linear(channels, channels * window)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        weights = self.attention(x).reshape(b, n, self.heads, self.window, self.window).permute(0, 2, 1, 3, 4)
        values = self.value(x).reshape(b, n, self.heads, self.window, c // self.heads).transpose(1, 2)
        out = weights.softmax(dim=-1) @ values  # [B, heads, N, window, C / heads]
        return out.permute(0, 2, 3, 1, 4).reshape(b, n, -1)


def test_a_softmax_and_matrix_product_at_rank_5_in_one_subgraph():
    lowered = check_delegated_and_matches(OutlookAttention(), (_randn(2, 6, 8),))
    assert lowered.num_delegates == 1


class MaskUnitAttention(torch.nn.Module):
    """Hiera's mask unit attention: q, k, v unbound from a rank-6 permuted projection, q max-pooled
    over its stride at rank 6 ([B, heads, windows, stride, tokens / stride, dim].amax(3))."""

    def __init__(self, channels: int = 12, heads: int = 2, windows: int = 3, stride: int = 2) -> None:
        super().__init__()
        self.heads, self.windows, self.stride = heads, windows, stride
        self.qkv = torch.nn.Linear(channels, 3 * channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        d = c // self.heads
        qkv = self.qkv(x).reshape(b, -1, self.windows, 3, self.heads, d).permute(3, 0, 4, 2, 1, 5)
        q, k, v = qkv.unbind(0)
        q = q.view(b, self.heads, self.windows, self.stride, -1, d).amax(dim=3)
        attention = (q * d ** -0.5) @ k.transpose(-1, -2)
        out = attention.softmax(dim=-1) @ v            # [B, heads, windows, tokens / stride, dim]
        return out.transpose(1, 3).reshape(b, -1, c)


def test_pieces_unbound_from_a_rank_6_value_are_taken_on_its_source():
    """unbind(0) of the permuted rank-6 projection: each piece is a select on the projection
    itself, so the q pooling and the attention form regions of moves: one subgraph, no CPU op."""
    lowered = check_delegated_and_matches(MaskUnitAttention(), (_randn(1, 24, 12),))   # one image, as hiera exports
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []


class Transposed(torch.nn.Module):
    """A rank-5 value added to its own transpose: the same data on both sides in two orders."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(x).view(2, 3, 3, 2, 2)
        return (y + y.transpose(1, 2)).sum(1)


def test_a_value_added_to_its_own_transpose_is_left_whole_and_correct():
    """The axes of y and of its transpose are identified by the add (a value holding one axis
    twice): the rewrite leaves the region as it was, and lowering still gives eager's result."""
    x = _randn(2, 3, 3, 4)
    lowered = lower(Transposed(), (x,))
    assert "aten.add.Tensor" in lowered.cpu_ops  # the region as it was (no view chain takes it either)
    (got,) = run_pte(lowered.pte, [x])
    assert relative_max_error(got, Transposed()(x)) < 1e-6


def test_axes_split_where_a_view_ends_inside_and_unify_across_operands():
    axes = Axes()
    a, b = axes.new(6), axes.new(4)
    dims = axes.regroup([a, b], [2, 12])  # 6 * 4 as 2 x 12: the 6 splits into 2 x 3
    assert [[axes.size[x] for x in axes.leaves(d)] for d in dims] == [[2], [3, 4]]
    c = axes.new(24)
    axes.unify([c], [a, b])
    assert [axes.size[x] for x in axes.leaves([c])] == [2, 3, 4]
    with pytest.raises(AxisMismatch):
        axes.regroup([a, b], [5, 5])


class DeformableSampling(torch.nn.Module):
    """D-FINE's and DEIMv2's deformable-attention sampling locations: rank-5 offsets scaled by
    ranged slices of the reference boxes seen at rank 5 (``ref[:, :, None, :, 2:]``), and the
    encoder's top-k queries gathered with indices repeated over the features."""

    def __init__(self) -> None:
        super().__init__()
        self.offsets = torch.nn.Linear(8, 24)

    def forward(self, x: torch.Tensor, ref: torch.Tensor, scores: torch.Tensor,
                memory: torch.Tensor) -> tuple[torch.Tensor, ...]:
        offsets = self.offsets(x).view(1, 6, 2, 3, 4)[..., :2]
        locations = ref[:, :, None, :, :2] + offsets * ref[:, :, None, :, 2:] * 0.5
        _, top = torch.topk(scores.max(-1).values, 4, dim=1)
        picked = memory.gather(dim=1, index=top.unsqueeze(-1).repeat(1, 1, memory.shape[-1]))
        return 2 * locations.flatten(2) - 1, picked, top.squeeze(0).float()


@pytest.mark.parametrize("feature_level", [30, 31])
def test_ranged_slices_of_a_rank_5_value_are_taken_on_its_source(feature_level):
    """The slices [..., :2] and [..., 2:] of rank-5 views are taken on the rank <= 4 values first
    (an unsqueeze and a view of them remain: moves the view chains take), and the int64 top-k
    indices are repeated (TILE) and squeezed (RESHAPE, through float32 below feature level 6):
    one subgraph, no CPU op."""
    inputs = (_randn(1, 6, 8), torch.rand(1, 6, 1, 4), _randn(1, 10, 3, seed=1), _randn(1, 10, 5, seed=2))
    lowered = check_delegated_and_matches(DeformableSampling(), inputs, feature_level=feature_level)
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []
