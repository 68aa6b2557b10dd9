"""Operations of NNAPI feature levels 6-8 (PACK, MIRROR_PAD, REVERSE, BATCH_MATMUL's adj flags):
lowered, delegated, run through the C++ backend on a host driver of that level and compared
with eager; below their level each op stays on the CPU (or takes its older form) with the reason.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from executorch_nnapi.lowering.nnapi_codes import FeatureLevel

from op_harness import AfterConv, Lambda, check_delegated_and_matches, lower

FL6, FL7, FL8 = FeatureLevel.FEATURE_LEVEL_6, FeatureLevel.FEATURE_LEVEL_7, FeatureLevel.FEATURE_LEVEL_8


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


FLIPS = [
    ("last_dim", Lambda(lambda x: torch.flip(x, [-1])), (randn(2, 3, 5),), 1),
    ("two_dims", Lambda(lambda x: torch.flip(x, [0, 2])), (randn(2, 3, 5, 4),), 2),
    ("after_conv", AfterConv(lambda y: torch.flip(y, [1, 3])), (randn(1, 3, 6, 7),), 2),
]


@pytest.mark.parametrize("name, module, inputs, reverses", FLIPS, ids=[f[0] for f in FLIPS])
def test_flip_is_reverse_at_feature_level_7(name, module, inputs, reverses) -> None:
    lowered = check_delegated_and_matches(module, inputs, feature_level=FL7, tolerance=1e-6)
    assert lowered.nnapi_operations.count("REVERSE") == reverses
    assert "TRANSPOSE" not in lowered.nnapi_operations


REFLECTION_PADS = [
    ("1d", Lambda(lambda x: F.pad(x, (2, 1), mode="reflect")), (randn(2, 3, 6),)),
    ("2d", Lambda(lambda x: F.pad(x, (1, 2, 3, 0), mode="reflect")), (randn(1, 2, 5, 6),)),
    ("2d_after_conv", AfterConv(lambda y: F.pad(y, (1, 1, 2, 2), mode="reflect")), (randn(1, 3, 6, 7),)),
    ("3d_unbatched", Lambda(lambda x: torch.ops.aten.reflection_pad3d(x, [1, 0, 0, 1, 1, 1])), (randn(2, 3, 4, 5),)),
]


@pytest.mark.parametrize("name, module, inputs", REFLECTION_PADS, ids=[p[0] for p in REFLECTION_PADS])
def test_reflection_pad_is_mirror_pad_at_feature_level_7(name, module, inputs) -> None:
    lowered = check_delegated_and_matches(module, inputs, feature_level=FL7, tolerance=1e-6)
    assert lowered.nnapi_operations.count("MIRROR_PAD") == 1
    assert "TRANSPOSE" not in lowered.nnapi_operations


STACKS = [
    ("dim0", Lambda(lambda a, b, c: torch.stack([a, b, c])), (randn(2, 3), randn(2, 3), randn(2, 3))),
    ("dim_last", Lambda(lambda a, b: torch.stack([a, b], -1)), (randn(2, 3, 4), randn(2, 3, 4))),
    ("of_computed", Lambda(lambda a, b: torch.stack([a.relu(), a * b], 1)), (randn(3, 4), randn(3, 4))),
]


@pytest.mark.parametrize("name, module, inputs", STACKS, ids=[s[0] for s in STACKS])
def test_stack_is_pack_at_feature_level_6(name, module, inputs) -> None:
    lowered = check_delegated_and_matches(module, inputs, feature_level=FL6, tolerance=1e-6)
    assert lowered.nnapi_operations.count("PACK") == 1
    assert "CONCATENATION" not in lowered.nnapi_operations and "RESHAPE" not in lowered.nnapi_operations


def test_stack_below_feature_level_6_is_reshapes_and_concatenation() -> None:
    lowered = check_delegated_and_matches(STACKS[0][1], STACKS[0][2], feature_level=31, tolerance=1e-6)
    assert "PACK" not in lowered.nnapi_operations and "CONCATENATION" in lowered.nnapi_operations


@pytest.mark.parametrize("module, inputs, op", [
    (FLIPS[0][1], FLIPS[0][2], "aten.flip.default"),
    (REFLECTION_PADS[1][1], REFLECTION_PADS[1][2], "aten.reflection_pad2d.default"),
], ids=["flip", "reflection_pad2d"])
def test_feature_level_7_ops_below_it_stay_on_cpu_with_reason(module, inputs, op) -> None:
    lowered = lower(module, inputs, feature_level=FL6)
    assert lowered.cpu_ops == [op]
    assert lowered.reasons[op] == [f"{op} needs NNAPI feature level 7; the target is NNAPI feature level 6"]


def test_attention_scores_read_transposed_keys_through_adj_y() -> None:
    """q @ kᵀ: BATCH_MATMUL with adj_y, no TRANSPOSE; both adj flags always given (4 inputs)."""
    module = Lambda(lambda q, k, v: torch.bmm(torch.softmax(torch.bmm(q, k.transpose(1, 2)), -1), v))
    inputs = (randn(3, 5, 8), randn(3, 6, 8), randn(3, 6, 4))
    lowered = check_delegated_and_matches(module, inputs, feature_level=FL6, tolerance=1e-5)
    assert lowered.nnapi_operations.count("BATCH_MATMUL") == 2
    assert "TRANSPOSE" not in lowered.nnapi_operations


def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return torch.softmax(q @ k.transpose(-2, -1) * 0.35, -1) @ v


def test_attention_matmuls_are_batch_matmuls_on_rank_4() -> None:
    """[B, H, L, D] matmuls: one BATCH_MATMUL each, no RESHAPE to rank 3, kᵀ through adj_y
    (at API 30 the same attention is 17 operations, 10 of them RESHAPE)."""
    inputs = (randn(2, 4, 6, 8), randn(2, 4, 7, 8), randn(2, 4, 7, 5))
    lowered = check_delegated_and_matches(Lambda(_attention), inputs, feature_level=FL6, tolerance=1e-5)
    assert sorted(lowered.nnapi_operations) == ["BATCH_MATMUL", "BATCH_MATMUL", "MUL", "SOFTMAX"]


def test_attention_matmuls_with_a_dynamic_sequence_length() -> None:
    from torch.export import Dim

    length = Dim("length", min=2, max=32)
    inputs = (randn(1, 2, 6, 8), randn(1, 2, 6, 8), randn(1, 2, 6, 4))
    shapes = (({2: length}, {2: length}, {2: length}),)  # Lambda takes *args
    module = Lambda(lambda q, k, v: _attention(q, k, v))
    runs = [tuple(randn(1, 2, n, d) for d in (8, 8, 4)) for n in (3, 17)]
    lowered = check_delegated_and_matches(module, inputs, dynamic_shapes=shapes, run_inputs=runs,
                                          feature_level=FL8, tolerance=1e-5)
    assert lowered.nnapi_operations.count("BATCH_MATMUL") == 2 and "RESHAPE" not in lowered.nnapi_operations


def test_matmul_with_broadcast_batch_dims_is_decomposed_and_still_delegated() -> None:
    module = Lambda(lambda x, w: x @ w)
    lowered = check_delegated_and_matches(module, (randn(2, 3, 4, 5), randn(1, 3, 5, 6)), feature_level=FL6,
                                          tolerance=1e-5)
    assert "BATCH_MATMUL" in lowered.nnapi_operations


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=["int32", "int64"])
def test_integer_view_is_reshape_at_feature_level_6(dtype) -> None:
    """RESHAPE takes TENSOR_INT32 from feature level 6 (int64 travels narrowed to it)."""
    module = Lambda(lambda t, x: (t.view(2, 6), x * 2))
    inputs = (torch.arange(12, dtype=dtype) - 5, randn(3))
    lowered = check_delegated_and_matches(module, inputs, feature_level=FL6, tolerance=1e-6)
    assert lowered.nnapi_operations == ["RESHAPE", "MUL"]


def test_integer_view_below_feature_level_6_stays_on_cpu_with_reason() -> None:
    module = Lambda(lambda t, x: (t.view(2, 6), x * 2))
    lowered = lower(module, (torch.arange(12, dtype=torch.int32), randn(3)), feature_level=30)
    assert "aten.view_copy.default" in lowered.cpu_ops
    assert lowered.reasons["aten.view_copy.default"] == [
        "view of an int32 tensor (TENSOR_INT32 RESHAPE; below it only values provably within +-2^24, which these "
        "are not) needs NNAPI feature level 6; the target is API 30 (Android 11)"]


def test_matmul_with_a_weight_stays_fully_connected() -> None:
    weight = randn(8, 5)
    module = Lambda(lambda x: x @ weight)
    lowered = check_delegated_and_matches(module, (randn(4, 8),), feature_level=FL6, tolerance=1e-5)
    assert lowered.nnapi_operations == ["FULLY_CONNECTED"]
