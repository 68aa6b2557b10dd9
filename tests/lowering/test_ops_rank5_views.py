"""Rank-5 data movement that ends at rank <= 4 (issue 33 item 1), done by rank <= 4 NNAPI
operations: the packed-qkv split ``reshape(B, N, 3, H, D).permute(2, 0, 3, 1, 4).unbind(0)`` of
timm's and many others' attention (unbind reaches the edge program as one-index slices and
squeezes), and grouped-query attention's ``repeat_kv`` (``k[:, :, None].expand(B, KV, R, S, D)
.reshape(B, KV * R, S, D)``: the expand becomes a TILE of the base). Static and dynamic token
counts, float and 8-bit; lowered, delegated, run on the host driver and compared with eager."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower, relative_max_error, run_pte


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


class PackedQkv(torch.nn.Module):
    """timm's Attention front: one linear for q, k and v, split through a rank-5 permute."""

    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, dim * 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attention = (q @ k.transpose(-2, -1)).softmax(-1)
        return (attention @ v).transpose(1, 2).reshape(b, n, c)


def repeat_kv(k: torch.Tensor, repeats: int = 3) -> torch.Tensor:
    """Hugging Face's repeat_kv, as written there."""
    b, kv, s, d = k.shape
    return k[:, :, None, :, :].expand(b, kv, repeats, s, d).reshape(b, kv * repeats, s, d)


def test_packed_qkv_split_is_one_subgraph():
    torch.manual_seed(0)
    lowered = check_delegated_and_matches(PackedQkv(), (_randn(2, 5, 8),), expect_operations=["STRIDED_SLICE"])
    assert lowered.num_delegates == 1


def test_packed_qkv_split_with_a_dynamic_token_count():
    torch.manual_seed(0)
    n = Dim("n", min=2, max=40)
    check_delegated_and_matches(PackedQkv(), (_randn(1, 5, 8),), dynamic_shapes=({1: n},),
                                run_inputs=[(_randn(1, 5, 8),), (_randn(1, 2, 8, seed=1),), (_randn(1, 33, 8, seed=2),)])


@pytest.mark.parametrize("index", [0, 1, -1])
def test_select_and_one_index_slices_of_a_rank5_value(index):
    def fn(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = x.reshape(2, 3, 4, 2, 5).permute(1, 0, 3, 2, 4)
        return y[index] + 1.0, y[:, index:index + 1 if index != -1 else None].squeeze(1) * 2.0

    check_delegated_and_matches(Lambda(fn), (_randn(6, 4, 10),))


def test_repeat_kv_is_a_tile():
    lowered = check_delegated_and_matches(Lambda(lambda k: repeat_kv(k) * 1.5), (_randn(2, 2, 5, 4),),
                                          expect_operations=["TILE"])
    assert lowered.nnapi_operations.count("TILE") == 1


def test_repeat_kv_with_a_dynamic_sequence_length():
    s = Dim("s", min=2, max=64)
    check_delegated_and_matches(Lambda(lambda k: repeat_kv(k, 2) + 0.5), (_randn(1, 2, 5, 4),),
                                dynamic_shapes=(({2: s},),), expect_operations=["TILE"],
                                run_inputs=[(_randn(1, 2, 5, 4),), (_randn(1, 2, 17, 4, seed=3),)])


def test_grouped_query_attention_scores():
    """q of 6 heads against k of 2 KV heads, repeated: the scores and the weighted values."""
    def fn(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = (q @ repeat_kv(k).transpose(2, 3)).softmax(-1)
        return scores @ repeat_kv(v)

    lowered = check_delegated_and_matches(Lambda(fn), (_randn(1, 6, 7, 4), _randn(1, 2, 7, 4, seed=1),
                                                       _randn(1, 2, 7, 4, seed=2)))
    assert lowered.nnapi_operations.count("TILE") == 2


def test_expand_of_a_middle_dim_after_a_permute():
    """mobilenetv4's multi-query attention: a single key head expanded over the query heads."""
    def fn(x: torch.Tensor) -> torch.Tensor:
        k = x.permute(0, 2, 1).unsqueeze(1)                      # [B, 1, N, C]
        return k.unsqueeze(2).expand(-1, -1, 4, -1, -1).reshape(x.shape[0], 4, x.shape[2], x.shape[1]) - 1.0

    check_delegated_and_matches(Lambda(fn), (_randn(2, 6, 5),), expect_operations=["TILE", "TRANSPOSE"])


def test_a_rank5_expand_below_api_29_falls_back_with_its_reason():
    k = _randn(1, 2, 5, 4)
    module = Lambda(lambda t: repeat_kv(t) * 1.5)
    lowered = lower(module, (k,), feature_level=28)
    assert any("TILE" in r and "API 29" in r for rs in lowered.reasons.values() for r in rs), lowered.reasons
    (got,) = run_pte(lowered.pte, [k], 28)
    assert relative_max_error(got, module(k)) < 1e-6


def test_a_wider_slice_of_a_rank5_value_is_taken_on_its_source():
    """[:, 0:2] of a rank-5 view of a static value: the slice is taken on a rank-3 view of the
    source (high_rank_regions), one subgraph."""
    module = Lambda(lambda x: x.reshape(2, 3, 4, 2, 5)[:, 0:2].reshape(2, 2, 40) + 1.0)
    lowered = check_delegated_and_matches(module, (_randn(6, 4, 10),))
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []


def test_a_wider_slice_of_a_dynamic_rank5_value_falls_back_with_its_reason():
    """With a dynamic batch the slice stays where it is (its rewrite needs static sizes) and the
    view chain refuses it: the CPU runs it, with the chain's reason."""
    module = Lambda(lambda x: x.reshape(x.shape[0], 3, 4, 2, 5)[:, 0:2].reshape(x.shape[0], 2, 40) + 1.0)
    x = _randn(2, 12, 10)
    lowered = lower(module, (x,), dynamic_shapes=(({0: Dim("batch", min=1, max=8)},),))
    assert any("only one index or the whole dim" in r for rs in lowered.reasons.values() for r in rs), lowered.reasons
    for batch in (2, 5):
        x = _randn(batch, 12, 10, seed=batch)
        (got,) = run_pte(lowered.pte, [x])
        assert relative_max_error(got, module(x)) < 1e-6


def test_packed_qkv_split_in_an_8bit_model():
    """convert_pt2e's model of the attention front: the rank-5 views are one chain between the
    8-bit linear and the 8-bit matmuls, one subgraph, within a few output steps of its own
    convert_pt2e model."""
    from quantized_reference import last_output_step, quantize

    torch.manual_seed(0)
    x = _randn(1, 6, 8)
    converted = quantize(PackedQkv().eval(), (x,), signed=False, calibration=8)
    lowered = lower(converted, (x,))
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, (lowered.cpu_ops, lowered.reasons)
    (got,) = run_pte(lowered.pte, [x])
    with torch.no_grad():
        expected = converted(x)
    assert (got - expected).abs().max().item() <= 2 * last_output_step(converted) + 1e-6


def unfold_patches(x: torch.Tensor, ph: int = 2, pw: int = 2) -> torch.Tensor:
    """MobileViTv2's unfold, as timm writes it: [B, C, H, W] -> [B, C, ph * pw, patches]."""
    b, c, h, w = x.shape
    x = x.reshape(b, c, h // ph, ph, w // pw, pw).permute(0, 1, 3, 5, 2, 4)
    return x.reshape(b, c, ph * pw, (h // ph) * (w // pw))


def fold_patches(x: torch.Tensor, h: int, w: int, ph: int = 2, pw: int = 2) -> torch.Tensor:
    """Its inverse: [B, C, ph * pw, patches] -> [B, C, H, W]."""
    b, c = x.shape[:2]
    x = x.reshape(b, c, ph, pw, h // ph, w // pw).permute(0, 1, 4, 2, 5, 3)
    return x.reshape(b, c, h, w)


@pytest.mark.parametrize("batch", [1, 2])
def test_patch_unfold_and_fold_are_rank4_transposes_in_steps(batch):
    """A rank-6 permute that merges to a rank-5 transpose runs as two rank-4 TRANSPOSEs."""
    x = _randn(batch, 3, 6, 8)
    lowered = check_delegated_and_matches(Lambda(lambda t: fold_patches(unfold_patches(t) * 2.0, 6, 8) + 1.0), (x,))
    assert lowered.nnapi_operations.count("TRANSPOSE") == 4


def test_transpose_steps_reach_every_permutation_of_five_and_six_dims():
    import itertools

    from executorch_nnapi.lowering.patterns.view_chain import transpose_steps

    for k in (5, 6):
        for target in itertools.permutations(range(k)):
            state = tuple(range(k))
            steps = transpose_steps(target)
            for blocks, block_perm in steps:
                assert len(blocks) <= 4 and tuple(d for b in blocks for d in b) == state
                state = tuple(d for b in block_perm for d in blocks[b])
            assert state == target
            assert len(steps) <= 3
    assert transpose_steps(tuple(range(7))[::-1]) is None  # past the searched size: refused
