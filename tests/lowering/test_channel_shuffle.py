"""Channel shuffle (view -> permute -> [clone] -> view through rank 5) becomes one
CHANNEL_SHUFFLE (RESHAPE + TRANSPOSE + RESHAPE at API 28); contiguous copies (_clone_dim_order, _to_dim_order_copy) are no-ops."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower


def shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    """torchvision's ShuffleNetV2 channel_shuffle."""
    n, c, h, w = x.shape
    x = x.view(n, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(n, c, h, w)


class ConvShuffleRelu(torch.nn.Module):
    def __init__(self, channels: int, groups: int) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels, 1)
        self.groups = groups

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(shuffle(self.conv(x), self.groups))


def non_boundary_transposes(blob, boundary_nodes) -> list[str]:
    """TRANSPOSE operations other than the layout changes of the partition's inputs/outputs."""
    allowed = {f"{name} (layout)" for name in boundary_nodes}
    return [n for t, n in zip(blob.operation_types, blob.operation_debug_names) if t == "TRANSPOSE" and n not in allowed]


def reasons(lowered) -> dict[str, str]:
    return {d.node: d.reason for d in lowered.partitioner.decisions if not d.supported}


@pytest.mark.parametrize("channels,groups", [(8, 2), (12, 3), (12, 4), (6, 6), (6, 1)])
def test_shuffle_after_conv_is_one_channel_shuffle_in_nhwc(channels, groups):
    torch.manual_seed(0)
    lowered = check_delegated_and_matches(ConvShuffleRelu(channels, groups).eval(),
                                          (torch.randn(2, channels, 5, 7),))
    (blob,) = lowered.blobs
    assert blob.count("CHANNEL_SHUFFLE") == 1
    # Shuffled in the convolution's NHWC layout: no reshape, no layout change in between.
    assert blob.count("RESHAPE") == 0
    assert non_boundary_transposes(blob, ["x", "aten_relu_default"]) == []
    assert blob.min_feature_level == 29


def test_nn_channel_shuffle_and_reshape_flatten_spellings():
    def flattened(x):
        n, c, h, w = x.shape
        return x.reshape(n, 2, c // 2, h, w).permute(0, 2, 1, 3, 4).flatten(1, 2) + 1

    for fn in (torch.nn.ChannelShuffle(4), Lambda(flattened), Lambda(lambda x: shuffle(x, 2))):
        lowered = check_delegated_and_matches(fn, (torch.randn(1, 8, 3, 3),), expect_operations=["CHANNEL_SHUFFLE"])
        assert lowered.blobs[0].count("RESHAPE") == 0


def test_shuffle_along_the_last_dim_of_a_rank_3_tensor():
    def last_dim(x):
        n, t, c = x.shape
        return x.view(n, t, 4, c // 4).transpose(2, 3).contiguous().view(n, t, c) * 2

    check_delegated_and_matches(Lambda(last_dim), (torch.randn(2, 3, 8),), expect_operations=["CHANNEL_SHUFFLE"])


def test_shuffle_with_dynamic_batch_and_height():
    torch.manual_seed(0)
    dynamic = {"x": {0: Dim("n", min=2, max=4), 2: Dim("h", min=2, max=16)}}
    # The sizes torchvision reads with x.size() stay on the CPU (sym_size), as designed.
    check_delegated_and_matches(ConvShuffleRelu(8, 2).eval(), (torch.randn(2, 8, 6, 6),), dynamic_shapes=dynamic,
                                run_inputs=[(torch.randn(2, 8, 3, 6),), (torch.randn(4, 8, 16, 6),)],
                                expect_operations=["CHANNEL_SHUFFLE"], allow_cpu_ops=["sym_size", "built-in method"])


@pytest.mark.parametrize("channels,groups", [(8, 2), (12, 3)])
def test_at_api_28_the_shuffle_is_reshape_transpose_reshape(channels, groups):
    torch.manual_seed(0)
    lowered = check_delegated_and_matches(ConvShuffleRelu(channels, groups).eval(), (torch.randn(2, channels, 5, 7),),
                                          feature_level=28)
    (blob,) = lowered.blobs
    assert "CHANNEL_SHUFFLE" not in blob.operation_types
    assert blob.count("RESHAPE") == 2 and blob.count("TRANSPOSE") == 1
    assert blob.min_feature_level == 28


def test_below_api_28_the_shuffle_stays_on_the_cpu_with_the_reason():
    lowered = lower(ConvShuffleRelu(8, 2).eval(), (torch.randn(1, 8, 4, 4),), feature_level=27)
    assert sorted(lowered.cpu_ops) == sorted(["aten.view_copy.default", "aten.permute_copy.default",
                                              "dim_order_ops._clone_dim_order.default", "aten.view_copy.default"])
    assert "channel shuffle needs API 28 (Android 9); the target is API 27 (Android 8.1)" in reasons(lowered).values()


def test_incomplete_pattern_is_no_channel_shuffle():
    def partial(x):
        y = x.view(1, 2, 4, 3, 3)
        return y.transpose(1, 2).contiguous().view(1, 8, 3, 3), y.sum(1)  # y is read outside the pattern

    # Not a channel shuffle; the rank-5 region (the sum reads it) is computed on merged dims instead
    # (lowering/passes/high_rank_regions.py).
    lowered = check_delegated_and_matches(Lambda(partial), (torch.randn(1, 8, 3, 3),))
    assert "CHANNEL_SHUFFLE" not in lowered.nnapi_operations


def test_contiguous_copies_are_no_operations():
    def copies(x):
        y = (x + 1).clone()
        y = y.to(torch.float32, copy=True)
        return y.transpose(1, 2).contiguous() * 2

    lowered = check_delegated_and_matches(Lambda(copies), (torch.randn(1, 8, 3, 3),))
    (blob,) = lowered.blobs
    assert sorted(t for t in blob.operation_types if t != "TRANSPOSE") == ["ADD", "MUL"]
    assert non_boundary_transposes(blob, ["x", "aten_mul_tensor"]) == []


def test_alias_is_no_operation():
    lowered = check_delegated_and_matches(Lambda(lambda x: torch.ops.aten.alias(x + 1) * 2), (torch.randn(1, 8, 3, 3),))
    assert sorted(lowered.blobs[0].operation_types) == ["ADD", "MUL"]


# A copy that only changes the memory layout (channels-last) is now an alias too: the runtime
# writes boundary tensors in their own dim order (tests/lowering/test_channels_last.py).
@pytest.mark.parametrize("fn,reason", [
    (lambda x: (x + 1).to(torch.int32), "dtype conversion float32 -> int32"),
])
def test_copies_that_change_dtype_are_refused(fn, reason):
    lowered = lower(Lambda(fn), (torch.randn(1, 8, 3, 3),))
    assert len(lowered.cpu_ops) == 1
    assert any(reason in r for r in reasons(lowered).values()), reasons(lowered)
