"""3-D pooling (max_pool3d, avg_pool3d, adaptive_avg_pool3d, the 5-D mean of a
global 3-D pool) lowered as two 2-D pools on 4-D views of the 5-D tensor, which
the runtime binds at the partition boundary as 4-D operands over the same bytes.
Each accepted form is delegated, run through the C++ backend on the host driver
at every feature level where it is accepted and compared with eager; each refused
form is checked for its reason; a refused 3-D pool (no portable CPU kernel) stops lowering."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

from executorch_nnapi.partitioners import NoCpuKernelError
from op_harness import Lambda, check_delegated_and_matches, lower, run_pte

LEVELS = (27, 28, 29, 30)


def randn(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g)


# Odd sizes so that strides, padding and ceil_mode leave partial windows.
X = randn(2, 3, 7, 9, 10)


def since(level):
    return [lv for lv in LEVELS if lv >= level]


# Each table is lowered as one model with one output per form (one lowering per feature
# level keeps the file fast); the forms share the 5-D input, and each output is a 5-D
# value bound as a 4-D view.
MAX_POOLS = {
    "cube": lambda t: F.max_pool3d(t, 2),
    "stride_padding": lambda t: F.max_pool3d(t, (3, 3, 2), stride=(2, 1, 2), padding=(1, 1, 0)),
    "ceil_mode": lambda t: F.max_pool3d(t, 3, stride=2, padding=1, ceil_mode=True),
    "module_hw_only": nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2)),
    "depth_only": lambda t: F.max_pool3d(t, (3, 1, 1), stride=(2, 1, 1), ceil_mode=True),
}

AVG_POOLS = {
    "cube": lambda t: F.avg_pool3d(t, 2),
    # Padding left out of the divisor is what NNAPI's average does: no PAD.
    "padding_not_counted": lambda t: F.avg_pool3d(t, 3, stride=2, padding=1, count_include_pad=False),
    "ceil_mode": lambda t: F.avg_pool3d(t, (2, 3, 3), stride=(2, 2, 3), ceil_mode=True),
    "ceil_mode_padding_not_counted":
        lambda t: F.avg_pool3d(t, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
}

# Counted padding: zeros PADded per step (API 28); the ceil_mode overhang is still not counted.
AVG_POOLS_COUNTING_PADDING = {
    "padding_counted": lambda t: F.avg_pool3d(t, 3, stride=(1, 2, 2), padding=1),
    "padding_counted_ceil_mode": nn.AvgPool3d(3, stride=2, padding=(1, 0, 1), ceil_mode=True),
}


def all_of(forms):
    """One module computing every form of ``forms`` (name -> function or module)."""
    return Lambda(lambda t: tuple(fn(t) for fn in forms.values()))


def check_pools(forms, level, operations, x=X):
    lowered = check_delegated_and_matches(all_of(forms), (x,), feature_level=level, expect_operations=operations)
    assert lowered.num_delegates == 1
    assert "TRANSPOSE" not in lowered.nnapi_operations
    # The 5-D input and outputs are bound as 4-D views over the same bytes: [N*C*D, H, W, 1]
    # for the input, each 5-D output in the view its last operation wrote.
    blob = lowered.blobs[0]
    assert blob.schema_version == 2 and blob.input_merged_dims == [(3, 1, 1, 0)]
    ranks = [out.dim() for out in all_of(forms)(x)]
    assert [sum(m) if m else None for m in blob.output_merged_dims] == [5 if r == 5 else None for r in ranks]
    assert all(len(m) <= 4 for m in blob.output_merged_dims)
    return lowered


@pytest.mark.parametrize("level", LEVELS)
def test_max_pool3d(level):
    check_pools(MAX_POOLS, level, ["MAX_POOL_2D", "RESHAPE"])


@pytest.mark.parametrize("level", LEVELS)
def test_avg_pool3d(level):
    check_pools(AVG_POOLS, level, ["AVERAGE_POOL_2D", "RESHAPE"])


@pytest.mark.parametrize("level", since(28))
def test_avg_pool3d_counting_padding(level):
    check_pools(AVG_POOLS_COUNTING_PADDING, level, ["PAD", "AVERAGE_POOL_2D"])


@pytest.mark.parametrize("level", LEVELS)
def test_adaptive_avg_pool3d_dividing_sizes(level):
    # 6x9x10 -> windows 3x3x2, and 1x9x5 (D kept).
    forms = {"divisible": nn.AdaptiveAvgPool3d((2, 3, 5)), "depth_kept": nn.AdaptiveAvgPool3d((6, 1, 2))}
    check_pools(forms, level, ["AVERAGE_POOL_2D"], x=randn(1, 4, 6, 9, 10))


@pytest.mark.parametrize("level", LEVELS)
def test_global_3d_average_is_a_5d_mean(level):
    # adaptive_avg_pool3d(1) reaches the partitioner as mean.dim over D, H, W: MEAN on
    # the [N*C, D*H*W] view (API 28), the whole [N*C, D, H*W, 1] view pooled at API 27.
    forms = {"keepdim": lambda t: F.adaptive_avg_pool3d(t, 1), "flat": lambda t: t.mean((2, 3, 4))}
    if level >= 28:
        # Other reduced dims that fit a 4-D view: C, D of [N, C, D, H, W] on [N, C*D, H*W].
        forms["channels_and_depth"] = lambda t: t.mean((1, 2), keepdim=True)
    check_pools(forms, level, ["MEAN" if level >= 28 else "AVERAGE_POOL_2D"])


# Every form of a 5-D mean the builder accepts at API 28+ (the reduced dims fit a 4-D view),
# with and without keepdim; every dim without keepdim is a 0-d output, stored as [1] (it
# once lowered into a [] operand that the runtime refused to load, error 0x23).
MEANS_5D = {f"{dims}{'_keepdim' * keep}": (lambda t, d=dims, k=keep: t.mean(d, keepdim=k))
            for dims in [(0, 1, 2, 3, 4), (0,), (0, 1), (1,), (4,), (3, 4), (0, 4), (1, 2, 3, 4), (0, 1, 2, 3)]
            for keep in (False, True)}
MEANS_5D["default"] = lambda t: t.mean()  # aten.mean.default: every dim
MEANS_5D["centered"] = lambda t: t.mean((1, 2, 3, 4)) - t.mean((0, 1, 2, 3, 4))  # a 0-d value read inside


@pytest.mark.parametrize("level, dynamic", [(28, False), (30, False), (30, True)], ids=["api28", "api30", "dynamic"])
def test_5d_mean_over_any_dims_fitting_a_view(level, dynamic):
    if dynamic:  # D, H, W dynamic (defined below, with the other dynamic tests)
        lowered = check_delegated_and_matches(all_of(MEANS_5D), (X,), feature_level=level,
                                              dynamic_shapes={"args": (DHW,)}, run_inputs=[(X,), *DYNAMIC_RUNS])
    else:
        lowered = check_delegated_and_matches(all_of(MEANS_5D), (randn(2, 2, 3, 4, 5),), feature_level=level)
    assert lowered.num_delegates == 1 and lowered.nnapi_operations.count("MEAN") == len(MEANS_5D) + 1


# ------------------------------------------------------------------ dynamic sizes

DYNAMIC_RUNS = [(randn(2, 3, 5, 8, 6, seed=1),), (randn(2, 3, 11, 6, 13, seed=2),)]
DHW = {2: Dim("d", min=4, max=12), 3: Dim("h", min=4, max=16), 4: Dim("w", min=4, max=16)}

DYNAMIC = {
    "max": lambda t: F.max_pool3d(t, (2, 3, 2), stride=(1, 2, 2), padding=(0, 1, 1)),
    "avg_padding_not_counted": lambda t: F.avg_pool3d(t, 3, stride=2, padding=1, count_include_pad=False),
}
DYNAMIC_SINCE_28 = {
    "avg_padding_counted": lambda t: F.avg_pool3d(t, 3, stride=2, padding=1),
    "global_mean": lambda t: F.adaptive_avg_pool3d(t, 1),
}


@pytest.mark.parametrize("level", LEVELS)
def test_dynamic_depth_height_width(level):
    forms = DYNAMIC if level < 28 else {**DYNAMIC, **DYNAMIC_SINCE_28}
    lowered = check_delegated_and_matches(all_of(forms), (X,), dynamic_shapes={"args": (DHW,)},
                                          feature_level=level, run_inputs=[(X,), *DYNAMIC_RUNS])
    assert lowered.num_delegates == 1


# ------------------------------------------------------------------ refusals

# (name, fn, op, reason); the forms refused for the same lowering are lowered together.
REFUSED_STATIC_API30 = [
    ("dilation", lambda t: F.max_pool3d(t, 2, dilation=(1, 2, 2)), "aten.max_pool3d_with_indices.default",
     "dilated pooling (dilation=[1, 2, 2]; NNAPI pools have no dilation)"),
    ("indices_used", lambda t: F.max_pool3d(t, 3, return_indices=True)[1].float(),
     "aten.max_pool3d_with_indices.default", "indices output is used (NNAPI has no pooling indices)"),
    ("divisor_override", lambda t: F.avg_pool3d(t, 2, divisor_override=3), "aten.avg_pool3d.default",
     "avg_pool3d with divisor_override=3 (NNAPI always divides by the window's size"),
    ("unbatched", lambda t: F.max_pool3d(t[0], 2), "aten.max_pool3d_with_indices.default",
     "max_pool3d on a rank-4 input (lowered for a batched 5-D [N, C, D, H, W] input)"),
    ("adaptive_not_dividing", lambda t: F.adaptive_avg_pool3d(t, (2, 4, 3)), "aten._adaptive_avg_pool3d.default",
     "adaptive_avg_pool3d from 7x9x10 to 2x4x3 (NNAPI needs an output size dividing the input size"),
    ("mean_no_4d_view", lambda t: t.mean((1, 3)), "aten.mean.dim",
     "mean over dims [1, 3] of a 5-D input (the reduced dims do not fit a 4-D view of it)"),
    # A rank-5 result that is a program output is not rewritten at rank <= 4.
    ("amax_5d_output", lambda t: t.amax((2, 3), keepdim=True), "aten.amax.default",
     "input of rank 5 (NNAPI allows at most 4)"),
]
REFUSED_DYNAMIC_API27 = [
    ("counted_padding", lambda t: F.avg_pool3d(t, 3, padding=1), "aten.avg_pool3d.default",
     "avg_pool3d with count_include_pad=True and padding > 0 (explicit PAD) needs API 28"),
    ("mean", lambda t: t.mean((2, 3, 4)), "aten.mean.dim",
     "mean of a 5-D input other than over static D, H, W (MEAN) needs API 28"),
    ("adaptive", lambda t: F.adaptive_avg_pool3d(t, (1, 3, 2)), "aten._adaptive_avg_pool3d.default",
     "dynamic dim in adaptive_avg_pool3d"),
]


# ExecuTorch's portable CPU kernels have no 3-D pool: a refused one could run nowhere.
POOLS_3D = {"aten.max_pool3d_with_indices.default", "aten.avg_pool3d.default", "aten._adaptive_avg_pool3d.default"}
REFUSED = [pytest.param(form, 30, None, id=f"static-api30-{form[0]}") for form in REFUSED_STATIC_API30] + [
    pytest.param(form, 27, {"args": (DHW,)}, id=f"dynamic-api27-{form[0]}") for form in REFUSED_DYNAMIC_API27]


@pytest.mark.parametrize("refused, level, dynamic_shapes", [
    pytest.param([f for f in REFUSED_STATIC_API30 if f[2] not in POOLS_3D], 30, None, id="static-api30"),
    pytest.param([f for f in REFUSED_DYNAMIC_API27 if f[2] not in POOLS_3D], 27, {"args": (DHW,)},
                 id="dynamic-api27"),
])
def test_refused_forms_say_why(refused, level, dynamic_shapes):
    forms = {name: fn for name, fn, _, _ in refused}
    reasons = lower(all_of(forms), (X,), feature_level=level, dynamic_shapes=dynamic_shapes).reasons
    for name, _, op, reason in refused:
        assert any(reason in r for r in reasons.get(op, [])), f"{name}: {reason!r} not among {reasons.get(op)}"


@pytest.mark.parametrize("form, level, dynamic_shapes", [p for p in REFUSED if p.values[0][2] in POOLS_3D])
def test_refused_3d_pool_stops_lowering_in_one_line(form, level, dynamic_shapes):
    """Such a program once lowered and then failed to load (error 0x14): now lowering stops at
    the pool, naming the node, the op, its source line and NNAPI's reason."""
    name, fn, op, reason = form
    with pytest.raises(NoCpuKernelError) as stopped:
        lower(Lambda(fn), (X,), feature_level=level, dynamic_shapes=dynamic_shapes)
    message = str(stopped.value)
    assert "\n" not in message and op in message and reason in message, message
    # The source line: the last frame torch recorded (here Lambda.forward, which calls the form).
    assert ', line ' in message and "portable CPU kernels have no" in message, message


def test_refused_5d_reductions_run_on_the_cpu_beside_a_delegated_mean():
    # A 5-D sum is rewritten on a <= 4-D view before partitioning (passes/high_rank_regions.py);
    # a mean whose reduced dims need a 5-D transpose and a rank-5 amax program output are not.
    forms = {"mean_no_4d_view": lambda t: t.mean((1, 3)), "sum": lambda t: t.sum((0, 1, 2, 3, 4)),
             "amax": lambda t: t.amax((2, 3), keepdim=True), "mean": lambda t: t.mean()}
    lowered = lower(all_of(forms), (X,))
    assert lowered.num_delegates == 1 and sorted(lowered.cpu_ops) == ["aten.amax.default", "aten.mean.dim"]
    assert "REDUCE_SUM" in lowered.nnapi_operations
    for got, want in zip(run_pte(lowered.pte, (X,)), all_of(forms)(X), strict=True):
        torch.testing.assert_close(got, want)


def test_quantized_5d_mean_stays_float_and_is_delegated_with_the_pool():
    # NnapiQuantizer leaves the 5-D mean float (its 4-D view lowering is float32 only), and the
    # pool with it (ops without weights that only float ops read stay float): one subgraph.
    from quantized_reference import quantize

    x = randn(1, 3, 4, 6, 6)
    gm = quantize(Lambda(lambda t: F.max_pool3d(t, 2).mean((2, 3, 4), keepdim=True)), (x,), signed=False)
    lowered = lower(gm, (x,), feature_level=30)
    assert "aten.mean.dim" not in lowered.cpu_ops and lowered.num_delegates == 1
    assert lowered.nnapi_operations.count("MAX_POOL_2D") == 2 and "MEAN" in lowered.nnapi_operations
    torch.testing.assert_close(run_pte(lowered.pte, (x,))[0], gm(x))


# ------------------------------------------------------------------ a small video model

class VideoPool(nn.Module):
    """x(N, C, D, H, W) -> max_pool3d -> avg_pool3d -> adaptive_avg_pool3d(1) -> flatten -> linear."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(3, 5)

    def forward(self, x):
        x = F.max_pool3d(x, (1, 2, 2))
        x = F.avg_pool3d(x, 2)
        x = F.adaptive_avg_pool3d(x, 1)
        return self.fc(torch.flatten(x, 1))


@pytest.mark.parametrize("level", LEVELS)
def test_video_pooling_model_is_one_subgraph_without_transpose(level):
    lowered = check_delegated_and_matches(VideoPool(), (X,), feature_level=level)
    assert lowered.num_delegates == 1 and not lowered.cpu_ops
    assert "TRANSPOSE" not in lowered.nnapi_operations


def test_video_pooling_model_dynamic():
    # Pools halving D once and H, W twice: torch.export guards against a 1-wide result.
    dhw = {2: Dim("d", min=4, max=12), 3: Dim("h", min=8, max=32), 4: Dim("w", min=8, max=32)}
    runs = [(randn(2, 3, 5, 8, 12, seed=3),), (randn(2, 3, 11, 17, 9, seed=4),)]
    lowered = check_delegated_and_matches(VideoPool(), (X,), dynamic_shapes={"x": dhw}, feature_level=30,
                                          run_inputs=[(X,), *runs])
    assert lowered.num_delegates == 1 and "TRANSPOSE" not in lowered.nnapi_operations
