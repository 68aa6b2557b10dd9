"""Indexing by integer tensors as index_select along merged dims (lowering/passes/computed_gathers.py):
each idiom lowers into one NNAPI subgraph with no CPU op, runs on the host driver and equals
eager. The modules reproduce what the models do: DeBERTa's log-bucketed relative positions
gathered from its position scores, Falcon's ``fused_qkv[..., [-2], :]``, ConvBERT's span unfold
(``F.unfold``), HaloNet's overlapping windows (``pad(x).unfold(2, w, b).unfold(3, w, b)``)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from op_harness import check_delegated_and_matches
from op_harness import seeded_randn as _randn


def log_bucket_position(relative: torch.Tensor, bucket_size: int, max_position: int) -> torch.Tensor:
    """DeBERTa-v2's log buckets of relative positions (the same arithmetic, written here)."""
    sign = torch.sign(relative)
    mid = bucket_size // 2
    near = (relative < mid) & (relative > -mid)
    absolute = torch.where(near, torch.tensor(mid - 1).type_as(relative), torch.abs(relative))
    scale = math.log((max_position - 1) / mid)
    logarithmic = torch.ceil(torch.log(absolute / mid) / scale * (mid - 1)) + mid
    return torch.where(absolute <= mid, relative.type_as(logarithmic), logarithmic * sign)


class RelativePositionScores(torch.nn.Module):
    """Content-to-position attention scores: ``q @ pos_k.T`` gathered at the bucketed relative
    position of every (query, key) pair; the buckets depend on the sequence length only."""

    def __init__(self, dim: int = 16, buckets: int = 8, max_position: int = 32) -> None:
        super().__init__()
        self.buckets, self.max_position = buckets, max_position
        self.query = torch.nn.Linear(dim, dim)
        self.positions = torch.nn.Parameter(_randn(2 * buckets, dim, seed=1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        relative = torch.arange(length)[:, None] - torch.arange(length)[None, :]
        bucket = log_bucket_position(relative, self.buckets, self.max_position).long()
        index = torch.clamp(bucket + self.buckets, 0, 2 * self.buckets - 1)
        scores = self.query(x) @ self.positions.T  # [B, L, 2 * buckets]
        return torch.gather(scores, -1, index.unsqueeze(0).expand(x.shape[0], length, length))


def test_log_bucketed_relative_positions_fold_and_gather_in_one_subgraph():
    lowered = check_delegated_and_matches(RelativePositionScores(), (_randn(2, 12, 16),))
    assert lowered.num_delegates == 1 and "GATHER" in lowered.nnapi_operations
    # The buckets are folded at lowering time: no LOG / CEIL / SELECT computes them at run time.
    assert not {"LOG", "CEIL", "SELECT"} & set(lowered.nnapi_operations), lowered.nnapi_operations


def test_log_bucketed_relative_positions_over_a_dynamic_length_are_a_sliced_table():
    """With L dynamic the buckets are tabulated at L's bound and gathered to L at run time
    (lowering/passes/size_tables.py): one subgraph, no CPU op, eager's values at every length."""
    x = _randn(2, 12, 16)
    length = torch.export.Dim("length", min=4, max=24)
    lowered = check_delegated_and_matches(RelativePositionScores(), (x,), dynamic_shapes=({1: length},),
                                          run_inputs=[(x,), (_randn(2, 5, 16, seed=2),), (_randn(2, 24, 16, seed=3),)])
    assert lowered.num_delegates == 1
    assert not {"LOG", "CEIL", "SELECT"} & set(lowered.nnapi_operations), lowered.nnapi_operations


class PickHeads(torch.nn.Module):
    """``x[..., [-2], :]`` (a list index: a lifted int64 constant with a negative index)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)[:, :, [-2, 0], :] * 2


def test_constant_index_on_one_dim_with_a_negative_index():
    lowered = check_delegated_and_matches(PickHeads(), (_randn(1, 8, 6, 16),))
    assert lowered.num_delegates == 1 and "GATHER" in lowered.nnapi_operations


class IndexTwoDims(torch.nn.Module):
    """``x[:, :, rows, cols]`` with run-time rows (an input of shape [3, 1]) and constant cols,
    broadcast to [3, 4]; and ``x[rows, :, cols]`` on dims apart (torch puts the index dims first)."""

    def forward(self, x: torch.Tensor, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        cols = torch.arange(4).view(1, 4) - 2  # negative: counted from the end
        y = torch.tanh(x)
        apart = y[rows, :, torch.arange(3).view(1, 3)]
        return y[:, :, rows, cols] + 1, apart


def test_run_time_index_on_two_dims_adjacent_and_apart():
    x = _randn(2, 3, 5, 6)
    rows = torch.tensor([[1], [-1], [0]])
    lowered = check_delegated_and_matches(IndexTwoDims(), (x, rows),
                                          run_inputs=[(x, rows), (x, torch.tensor([[-2], [1], [-1]]))])
    assert lowered.num_delegates == 1


class SpanUnfold(torch.nn.Module):
    """ConvBERT's span-based convolution input: ``F.unfold`` of a [B, C, L, 1] sequence by a
    [k, 1] kernel (torch decomposes it into ``x[:, :, rows, cols]``)."""

    def __init__(self, channels: int = 8, kernel: int = 5) -> None:
        super().__init__()
        self.kernel = kernel
        self.project = torch.nn.Linear(channels, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, length, c = x.shape
        y = self.project(x).transpose(1, 2).unsqueeze(-1)
        spans = F.unfold(y, [self.kernel, 1], padding=[(self.kernel - 1) // 2, 0])
        return spans.transpose(1, 2).reshape(b, -1, c, self.kernel).sum(-1)


def test_unfold_by_computed_indices_in_one_subgraph():
    lowered = check_delegated_and_matches(SpanUnfold(), (_randn(1, 10, 8),))
    assert lowered.num_delegates == 1


class HaloWindows(torch.nn.Module):
    """Overlapping windows of a padded map: ``pad(x).unfold(2, w, b).unfold(3, w, b)`` regrouped
    per block, as HaloNet's keys and values."""

    def __init__(self, block: int = 4, halo: int = 1) -> None:
        super().__init__()
        self.block, self.halo = block, halo
        self.conv = torch.nn.Conv2d(3, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        window = self.block + 2 * self.halo
        kv = F.pad(self.conv(x), [self.halo] * 4)
        kv = kv.unfold(2, window, self.block).unfold(3, window, self.block)
        b, c, nh, nw = kv.shape[:4]
        return kv.reshape(b * 2, c // 2, nh * nw, -1).permute(0, 2, 3, 1)


def test_overlapping_unfold_chain_in_one_subgraph():
    lowered = check_delegated_and_matches(HaloWindows(), (_randn(1, 3, 8, 8),))
    assert lowered.num_delegates == 1 and "GATHER" in lowered.nnapi_operations


class GatherTwoDims(torch.nn.Module):
    """``torch.gather`` along dim 1 of a [B, N, M] value with run-time indices."""

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x * 3, 1, index)


def test_gather_of_a_value_with_several_dims_and_run_time_indices():
    x = _randn(2, 5, 4)
    index = torch.tensor([[[0, 4, 1, 2], [3, 3, 2, 0]], [[1, 2, 3, 4], [0, 0, 0, 4]]])
    lowered = check_delegated_and_matches(GatherTwoDims(), (x, index))
    assert lowered.num_delegates == 1
