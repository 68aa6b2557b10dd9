"""aten.native_group_norm (issue 33, item 2): no NNAPI operation, built from RESHAPE to the groups,
MEAN, SUB, MUL, RSQRT and the per-channel MUL / ADD (lowering/builders/group_norm.py).

Each case is lowered, checked delegated in one subgraph, run through the C++ backend on the host
driver and compared with eager PyTorch (relative error < 1e-4): ranks 2-4, one group, one group
per channel and in between, with and without affine parameters, after a 2-D and a 1-D convolution
(channels-last values: regrouped with no TRANSPOSE), dynamic batch and spatial sizes, a diffusion
style residual block; refusals keep the node on the CPU with the reason and still match eager; in
an 8-bit model the group norm is a float island inside the partition.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower, relative_max_error, run_pte
from quantized_reference import output_step, quantize, within_one_step
from executorch_nnapi.lowering.builders.group_norm import grouped_layout
from executorch_nnapi.tools.report import NO_8BIT_LOWERING, delegation_report

aten = torch.ops.aten
_GEN = torch.Generator().manual_seed(0)
GROUP_NORM = "aten.native_group_norm.default"
COMPUTE = ["RESHAPE", "MEAN", "SUB", "RSQRT"]


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_GEN)


def _norm(groups: int, channels: int, affine: bool = True, eps: float = 1e-5) -> torch.nn.GroupNorm:
    """A GroupNorm with random weight and bias, so a misplaced channel parameter shows."""
    norm = torch.nn.GroupNorm(groups, channels, eps=eps, affine=affine)
    if affine:
        with torch.no_grad():
            norm.weight.copy_(randn(channels) + 1)
            norm.bias.copy_(randn(channels))
    return norm.eval()


class GroupNorms(torch.nn.Module):
    """Rank 2, 3 and 4 inputs in PyTorch's order; one group, a group per channel, in between;
    with and without affine parameters, with weight only."""

    def __init__(self) -> None:
        super().__init__()
        self.flat = _norm(4, 8)
        self.sequence_one = _norm(1, 6, eps=1e-3)
        self.sequence_three = _norm(3, 6, affine=False)
        self.sequence_each = _norm(6, 6)
        self.image_one = _norm(1, 8, affine=False)
        self.image_two = _norm(2, 8)
        self.image_each = _norm(8, 8)
        self.weight_only = _norm(4, 8)
        self.weight_only.bias = None

    def forward(self, flat: torch.Tensor, sequence: torch.Tensor, image: torch.Tensor):
        return (self.flat(flat), self.sequence_one(sequence), self.sequence_three(sequence),
                self.sequence_each(sequence), self.image_one(image), self.image_two(image),
                self.image_each(image), self.weight_only(image))


def test_group_norm_ranks_groups_and_affine():
    inputs = (randn(3, 8) * 2 + 1, randn(2, 6, 10) * 3 - 1, randn(2, 8, 5, 6) * 2 + 0.5)
    lowered = check_delegated_and_matches(GroupNorms(), inputs, expect_operations=COMPUTE)
    assert lowered.num_delegates == 1
    assert "TRANSPOSE" not in lowered.nnapi_operations


class ConvThenGroupNorm(torch.nn.Module):
    """Conv2d -> GroupNorm (an NHWC value) and Conv1d -> GroupNorm(C, C) (a [N, L, C] value, as
    Wav2Vec2's feature encoder)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv2d = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.norm2d = _norm(4, 8)
        self.conv1d = torch.nn.Conv1d(2, 6, 5, stride=2)
        self.norm1d = _norm(6, 6)

    def forward(self, image: torch.Tensor, audio: torch.Tensor):
        return self.norm2d(self.conv2d(image)), self.norm1d(self.conv1d(audio))


def test_group_norm_after_convolutions_is_regrouped_channels_last():
    lowered = check_delegated_and_matches(ConvThenGroupNorm().eval(), (randn(2, 3, 7, 6), randn(2, 2, 33)),
                                          expect_operations=["CONV_2D", *COMPUTE])
    assert lowered.num_delegates == 1
    # The convolutions' channels-last results are grouped as they are: no TRANSPOSE.
    assert "TRANSPOSE" not in lowered.nnapi_operations


def test_grouped_layout_of_each_dim_order():
    """Channels last -> [N, S, G, C/G]; channels first -> [N, G, C/G, S]; any other order is read
    in PyTorch's."""
    assert grouped_layout((0, 2, 3, 1), [2, 8, 5, 6], 4) == ((0, 2, 3, 1), [2, 30, 4, 2], [1, 3], [1, 1, 4, 2])
    assert grouped_layout((0, 2, 1), [2, 6, 9], 6) == ((0, 2, 1), [2, 9, 6, 1], [1, 3], [1, 1, 6, 1])
    assert grouped_layout((0, 1, 2, 3), [2, 8, 5, 6], 2) == ((0, 1, 2, 3), [2, 2, 4, 30], [2, 3], [1, 2, 4, 1])
    assert grouped_layout((0, 1), [3, 8], 4) == ((0, 1), [3, 4, 2, 1], [2, 3], [1, 4, 2, 1])
    assert grouped_layout((1, 0, 2, 3), [2, 8, 5, 6], 2)[0] == (0, 1, 2, 3)
    assert grouped_layout((0, 2, 1, 3), [2, 8, 5, 6], 2)[0] == (0, 1, 2, 3)


def test_group_norm_of_a_permuted_convolution_output_is_read_in_pytorch_order():
    """permute(0, 3, 1, 2) of an NHWC value puts its channels (logical dim 1, W here) between the
    spatial dims: one TRANSPOSE to PyTorch's order, then the channels-first form."""
    conv, norm = torch.nn.Conv2d(3, 8, 3, padding=1).eval(), _norm(3, 6)
    lowered = check_delegated_and_matches(Lambda(lambda x: norm(conv(x).permute(0, 3, 1, 2))), (randn(2, 3, 5, 6),),
                                          expect_operations=["CONV_2D", *COMPUTE])
    assert lowered.nnapi_operations.count("TRANSPOSE") == 1


_DYNAMIC_CONV = torch.nn.Conv2d(3, 6, 3, padding=1).eval()
_DYNAMIC_NORM = _norm(3, 6)


def test_group_norm_with_dynamic_batch_and_spatial_sizes():
    module = Lambda(lambda x: _DYNAMIC_NORM(_DYNAMIC_CONV(x)))
    runs = [(randn(n, 3, h, w),) for n, h, w in [(2, 5, 7), (1, 9, 4), (3, 2, 2)]]
    dims = {0: Dim("n", min=1, max=4), 2: Dim("h", min=2, max=12), 3: Dim("w", min=2, max=12)}
    lowered = check_delegated_and_matches(module, runs[0], run_inputs=runs, dynamic_shapes=((dims,),),
                                          expect_operations=["CONV_2D", *COMPUTE])
    assert lowered.blobs[0].symbols
    assert "TRANSPOSE" not in lowered.nnapi_operations


class ResidualBlock(torch.nn.Module):
    """A diffusion UNet's residual block: GroupNorm -> SiLU -> conv, twice, plus the input."""

    def __init__(self, channels: int = 8, groups: int = 4) -> None:
        super().__init__()
        self.norm1, self.norm2 = _norm(groups, channels), _norm(groups, channels)
        self.conv1 = torch.nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv1(F.silu(self.norm1(x)))
        return x + self.conv2(F.silu(self.norm2(h)))


def test_group_norm_in_a_residual_block():
    lowered = check_delegated_and_matches(ResidualBlock().eval(), (randn(1, 8, 6, 6) * 2,),
                                          expect_operations=["CONV_2D", *COMPUTE])
    assert lowered.num_delegates == 1
    assert lowered.nnapi_operations.count("RSQRT") == 2


def _mean_used(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    out, mean, _ = aten.native_group_norm.default(x, None, None, 2, 4, 6, 2, 1e-5)
    return out, mean


def test_group_norm_refusals_stay_on_cpu_with_their_reason():
    weight = randn(4)
    module = Lambda(lambda x, w: (F.group_norm(x, 2, w) * 2, _mean_used(x)[1] + 1,
                                  F.group_norm(x.double(), 2).float() - 1))
    inputs = (randn(2, 4, 6), weight)
    lowered = lower(module, inputs)
    assert sorted(lowered.reasons[GROUP_NORM]) == [
        "float64 output (NNAPI float path takes float32 only)",
        "group norm whose saved mean/rstd outputs are used (NNAPI computes output 0 only)",
        "group norm with non-constant weight or bias"], lowered.reasons
    got = run_pte(lowered.pte, list(inputs))
    assert all(relative_max_error(g, w) < 1e-4 for g, w in zip(got, module(*inputs)))


def test_group_norm_below_api_29_stays_on_cpu():
    norm = _norm(2, 4)
    x = randn(2, 4, 6)
    lowered = lower(Lambda(lambda t: norm(t) * 2), (x,), feature_level=28)
    assert GROUP_NORM in lowered.cpu_ops
    assert lowered.reasons[GROUP_NORM] == [f"{GROUP_NORM} needs API 29 (Android 10); the target is API 28 (Android 9)"]
    (got,) = run_pte(lowered.pte, [x], 28)
    assert relative_max_error(got, norm(x) * 2) < 1e-4


class ConvNormConv(torch.nn.Module):
    """8-bit conv -> group norm (no 8-bit NNAPI form) -> 8-bit conv."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.norm = _norm(4, 8)
        self.conv2 = torch.nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(self.norm(self.conv1(x)))


def test_group_norm_is_a_float_island_in_an_8bit_model():
    torch.manual_seed(0)
    model = ConvNormConv().eval()
    x = (torch.randn(1, 3, 10, 10),)
    gm = quantize(model, x, signed=False)
    low = lower(gm, x)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    precisions = list(zip(low.blobs[0].operation_types, low.blobs[0].operation_precisions))
    assert [op for op, p in precisions if p == "8-bit"] == ["CONV_2D", "CONV_2D"], precisions
    assert ("RSQRT", "float") in precisions and {"DEQUANTIZE", "QUANTIZE"} <= {op for op, _ in precisions}
    (got,) = run_pte(low.pte, list(x))
    with torch.no_grad():
        want = gm(*x)
    assert within_one_step(want, got, output_step(gm)) == 1.0, (got - want).abs().max().item()
    (partition,) = delegation_report(low.edge, low.partitioner.decisions).partitions
    assert partition.float_islands == {GROUP_NORM: (1, NO_8BIT_LOWERING)}
