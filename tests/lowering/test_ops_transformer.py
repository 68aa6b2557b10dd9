"""Builders the transformer models need: native_layer_norm, add / sub / mul / div
.Scalar, expand_copy, as_strided_copy, index_select (GATHER), and the rank > 4
view chains of attention and window partitioning (patterns/view_chain.py).

Each op is lowered alone (variants of one op share a module: a lowering costs a
few seconds), checked delegated, run through the C++ backend on the host
driver and compared with eager PyTorch (relative error < 1e-4); version-gated
forms are also lowered below their feature level, and refusals are checked for
their reason.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower, relative_max_error, run_pte

aten = torch.ops.aten
_GEN = torch.Generator().manual_seed(0)


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_GEN)


def _conv(cin: int, cout: int) -> torch.nn.Conv2d:
    conv = torch.nn.Conv2d(cin, cout, 3, padding=1)
    with torch.no_grad():
        for p in conv.parameters():
            p.copy_(randn(*p.shape) * 0.5)
    return conv.eval()


def _affine(norm: torch.nn.LayerNorm) -> torch.nn.LayerNorm:
    """Random weight and bias, so a misplaced affine parameter shows."""
    with torch.no_grad():
        if norm.weight is not None:
            norm.weight.copy_(randn(*norm.weight.shape) + 1)
        if norm.bias is not None:
            norm.bias.copy_(randn(*norm.bias.shape))
    return norm


# ------------------------------------------------------------------ layer norm

class LayerNorms(torch.nn.Module):
    """Layer norm over the last dim (rank 3), over the last two dims, without affine,
    with weight only, and ConvNeXt's channels-last form around a convolution."""

    def __init__(self) -> None:
        super().__init__()
        self.last = _affine(torch.nn.LayerNorm(8, eps=1e-6))
        self.last_two = _affine(torch.nn.LayerNorm([5, 8]))
        self.plain = torch.nn.LayerNorm(8, elementwise_affine=False)
        self.weight_only = _affine(torch.nn.LayerNorm(8, bias=False))
        self.conv = _conv(3, 6)
        self.channels = _affine(torch.nn.LayerNorm(6))

    def forward(self, x: torch.Tensor, image: torch.Tensor):
        y = self.conv(image).permute(0, 2, 3, 1)
        return (self.last(x), self.last_two(x), self.plain(x), self.weight_only(x),
                self.channels(y).permute(0, 3, 1, 2))


def test_layer_norm():
    lowered = check_delegated_and_matches(LayerNorms(), (randn(2, 5, 8) * 3 + 1, randn(1, 3, 6, 7)),
                                          expect_operations=["MEAN", "SUB", "RSQRT"])
    # Normalized in the convolution's NHWC layout (channels are physical axis 3): no TRANSPOSE.
    assert "TRANSPOSE" not in lowered.nnapi_operations


def test_layer_norm_after_convolution_has_no_transpose():
    lowered = check_delegated_and_matches(
        Lambda(lambda x: F.layer_norm(_CONV(x).permute(0, 2, 3, 1), [4]).permute(0, 3, 1, 2)), (randn(1, 3, 5, 6),),
        expect_operations=["CONV_2D", "MEAN", "RSQRT"])
    assert "TRANSPOSE" not in lowered.nnapi_operations


_CONV = _conv(3, 4)


def test_layer_norm_with_dynamic_shapes():
    from torch.export import Dim

    norm = _affine(torch.nn.LayerNorm(8))
    module = Lambda(lambda x: aten.mul.Scalar(norm(x), 0.5).expand(2, -1, -1, -1))
    runs = [(randn(1, n, t, 8),) for n, t in [(3, 5), (1, 9), (4, 2)]]
    lowered = check_delegated_and_matches(module, runs[0], run_inputs=runs,
                                          dynamic_shapes=(({1: Dim("n", min=1, max=6), 2: Dim("t", min=2, max=16)},),),
                                          expect_operations=["MEAN", "RSQRT", "TILE"])
    assert lowered.blobs[0].symbols


def test_layer_norm_refusals():
    norm = _affine(torch.nn.LayerNorm(8))
    lowered = lower(Lambda(lambda x, w: (norm(x), F.layer_norm(x, [8], w))), (randn(2, 8), randn(8)),
                    feature_level=29)
    assert lowered.reasons["aten.native_layer_norm.default"] == ["layer norm with non-constant weight or bias"]
    lowered = lower(norm, (randn(2, 8),), feature_level=28)
    assert any("needs API 29" in r for r in lowered.reasons["aten.native_layer_norm.default"])


# ------------------------------------------------------------------ scalar ops

def test_scalar_elementwise():
    module = Lambda(lambda x: (aten.mul.Scalar(x, 0.25), aten.add.Scalar(x, 2.0), aten.add.Scalar(x, 2.0, 3),
                               aten.sub.Scalar(x, 1.5), aten.sub.Scalar(x, 1.5, 2), aten.div.Scalar(x, 3.0),
                               torch.relu(aten.add.Scalar(_CONV(x), -0.5))))
    lowered = check_delegated_and_matches(module, (randn(1, 3, 4, 5),), expect_operations=["MUL", "ADD", "DIV"])
    assert "SUB" not in lowered.nnapi_operations  # x - b is x + (-b)
    assert "RELU" not in lowered.nnapi_operations  # fused into the ADD


def test_scalar_elementwise_below_api_28():
    module = Lambda(lambda x: (aten.mul.Scalar(x, 0.25), aten.sub.Scalar(x, 1.5), aten.div.Scalar(x, 3.0)))
    lowered = lower(module, (randn(2, 3),), feature_level=27)
    assert lowered.cpu_ops == ["aten.div.Scalar"]
    assert any("needs API 28" in r for r in lowered.reasons["aten.div.Scalar"])
    outputs = run_pte(lowered.pte, [randn(2, 3)], 27)
    assert len(outputs) == 3


# ---------------------------------------------------------------------- expand

EXPAND = Lambda(lambda x, y, s: (
    x.expand(3, -1, -1),                 # size-1 dim repeated
    x.expand(2, 3, 4, 5),                # new leading dims
    y.expand(2, 4),                      # same shape: no operation
    _CONV(s).expand(2, -1, -1, -1),      # NHWC value: repeated along the physical batch dim
    x[:, :, :1].expand(-1, 4, 3),        # inner dim repeated
))
EXPAND_INPUTS = (randn(1, 4, 5), randn(2, 4), randn(1, 3, 4, 5))


def test_expand_is_tile():
    lowered = check_delegated_and_matches(EXPAND, EXPAND_INPUTS, expect_operations=["TILE"])
    assert "TRANSPOSE" not in lowered.nnapi_operations


def test_expand_below_api_29_is_an_exact_add():
    # ADD of -0.0 is the exact identity: negative zeros keep their sign.
    x = randn(1, 4, 5)
    x[0, 0, :2] = -0.0
    lowered = check_delegated_and_matches(EXPAND, (x, *EXPAND_INPUTS[1:]), feature_level=28,
                                          expect_operations=["ADD"])
    assert "TILE" not in lowered.nnapi_operations
    (first, *_), expected = run_pte(lowered.pte, [x, *EXPAND_INPUTS[1:]], 28), x.expand(3, -1, -1)
    assert torch.equal(torch.signbit(first), torch.signbit(expected))


# ------------------------------------------------------------------ as_strided

def test_as_strided_review_is_reshape():
    def fn(x):
        pooled = _CONV(x).mean((2, 3), keepdim=True)  # [1, 4, 1, 1], as ConvNeXt's head
        return torch.as_strided(pooled, (1, 4, 1, 1), (4, 1, 4, 4)).flatten(1) * 2

    check_delegated_and_matches(Lambda(fn), (randn(1, 3, 5, 6),), expect_operations=["MEAN"])


def test_as_strided_with_other_strides_is_refused():
    lowered = lower(Lambda(lambda x: (torch.as_strided(x + 1, (2, 3), (1, 2)) * 2,    # a transposed view
                                      torch.as_strided(x + 1, (3, 3), (1, 1)) * 2)),   # overlapping windows
                    (randn(6),))
    got = lowered.reasons["aten.as_strided_copy.default"]
    assert sorted(got) == ["as_strided to 9 elements of 6",
                           "as_strided with non-contiguous strides [1, 2] for size [2, 3] (NNAPI has no strided views)"]


# ------------------------------------------------------------- index_select

class Gathers(torch.nn.Module):
    """torch.roll (index_select with folded (arange + shift) % n indices) on an NHWC value,
    and index_select with a constant buffer of indices."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("index", torch.tensor([3, 0, 0, 2]))

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        rolled = torch.roll(_CONV(x).permute(0, 2, 3, 1), shifts=(-2, 1), dims=(1, 2))
        return rolled * 2, y.index_select(1, self.index) + 1


def test_index_select_is_gather():
    check_delegated_and_matches(Gathers(), (randn(1, 3, 6, 5), randn(2, 4, 3)), expect_operations=["GATHER"])


def test_index_select_below_api_29_leaves_its_int64_indices_on_the_cpu():
    # Regression: the folded int64 indices of a refused index_select were merged into a
    # partition and became its (int64) output, which lowering cannot emit.
    x, y = randn(1, 3, 6, 5), randn(2, 4, 3)
    lowered = lower(Gathers(), (x, y), feature_level=28)
    assert "aten.index_select.default" in lowered.cpu_ops
    for got, want in zip(run_pte(lowered.pte, [x, y], 28), Gathers()(x, y)):
        assert relative_max_error(got, want) < 1e-4


# Run-time (int64) indices: tests/lowering/test_ops_int64_boundary.py.


# --------------------------------------------------- rank > 4 view chains

def mha_in_projection(x: torch.Tensor, weight: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """nn.MultiheadAttention's packed q, k, v split (torch.nn.functional._in_projection_packed)."""
    proj = F.linear(x, weight)
    proj = proj.unflatten(-1, (3, x.size(-1))).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
    return proj[0] * 1, proj[1] * 2, proj[2] * 3


def window_partition(x: torch.Tensor, w: int) -> torch.Tensor:
    """Swin: [B, H, W, C] -> [B * H/w * W/w, w * w, C] through rank 6."""
    b, h, wd, c = x.shape
    x = x.view(b, h // w, w, wd // w, w, c).permute(0, 1, 3, 2, 4, 5).contiguous()
    return x.view(-1, w * w, c)


def window_reverse(x: torch.Tensor, w: int, h: int, wd: int) -> torch.Tensor:
    b = x.shape[0] // (h // w * wd // w)
    x = x.view(b, h // w, wd // w, w, w, -1).permute(0, 1, 3, 2, 4, 5).contiguous()
    return x.view(b, h, wd, -1)


class SwinPieces(torch.nn.Module):
    """Swin's window partition and reverse (rank 6), qkv split (rank 5, three selects)
    and masked attention logits (a rank-5 add of a constant mask)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mask", randn(4, 9, 9))
        self.heads = 2

    def forward(self, x: torch.Tensor):
        windows = window_partition(x, 3)                            # [4, 9, 8]
        nw, n, c = windows.shape
        qkv = torch.cat([windows, windows * 2, windows * 3], -1).reshape(nw, n, 3, self.heads, c // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]                           # [4, 2, 9, 4]
        logits = q @ k.transpose(-2, -1)                            # [4, 2, 9, 9]
        logits = logits.view(1, nw, self.heads, n, n) + self.mask.unsqueeze(1).unsqueeze(0)
        attn = logits.view(-1, self.heads, n, n).softmax(-1)
        out = (attn @ v).transpose(1, 2).reshape(nw, n, c)
        return window_reverse(out, 3, 6, 6) + 1


class DynamicSwinPieces(torch.nn.Module):
    """SwinPieces at sizes known only at run time: the input padded to a multiple of the
    window, as Swin pads (3 * ceil(H / 3): symbolic window counts), and a mask computed
    at run time from the windows (a broadcast operand of the rank-5 add, as dynamic Swin's
    mask is)."""

    heads = 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = 3
        x = F.pad(x, (0, 0, 0, (w - x.shape[2] % w) % w, 0, (w - x.shape[1] % w) % w))
        b, ph, pw, _ = x.shape
        windows = window_partition(x, w)                             # [nW, 9, 8], nW symbolic
        nw, n, c = windows.shape
        qkv = torch.cat([windows, windows * 2, windows * 3], -1).reshape(nw, n, 3, self.heads, c // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        logits = q @ k.transpose(-2, -1)                             # [nW, 2, 9, 9]
        score = windows.mean(-1)
        mask = score.unsqueeze(1) - score.unsqueeze(2)               # [nW, 9, 9], computed at run time
        logits = logits.view(1, nw, self.heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
        attn = logits.view(-1, self.heads, n, n).softmax(-1)
        out = (attn @ v).transpose(1, 2).reshape(nw, n, c)
        out = out.view(b, ph // w, pw // w, w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(b, ph, pw, c)
        return out + 1


def test_swin_window_chains_with_dynamic_sizes_are_delegated():
    """Rank 5-6 chains over symbolic sizes (window counts ceil(H / 3)) and a run-time mask."""
    # 4k as Swin's stages see 32k / 8 (torch proves its window-view guards for such sizes)
    dims = {"x": {1: 4 * Dim("kh", min=2, max=5), 2: 4 * Dim("kw", min=2, max=5)}}
    lowered = check_delegated_and_matches(
        DynamicSwinPieces(), (randn(1, 8, 8, 8),), dynamic_shapes=dims,
        run_inputs=[[randn(1, 8, 8, 8)], [randn(1, 12, 20, 8)], [randn(1, 20, 16, 8)]],
        expect_operations=["TRANSPOSE", "STRIDED_SLICE", "SOFTMAX", "PAD"])
    assert lowered.num_delegates == 1


def test_mha_in_projection_chain_is_delegated():
    weight = randn(12, 4)
    lowered = check_delegated_and_matches(Lambda(lambda x: mha_in_projection(x, weight)), (randn(5, 2, 4),),
                                          expect_operations=["FULLY_CONNECTED"])
    assert lowered.num_delegates == 1


def test_swin_window_chains_are_delegated():
    lowered = check_delegated_and_matches(SwinPieces(), (randn(1, 6, 6, 8),),
                                          expect_operations=["TRANSPOSE", "STRIDED_SLICE", "SOFTMAX"])
    assert lowered.num_delegates == 1


class BatchedWindowMask(torch.nn.Module):
    """Swin's masked logits at batch 2 with 2 heads: ``[B, nW, h, N, N]`` has five dims of size > 1,
    run at rank 4 as ``[B, nW, h, N*N] + [1, nW, 1, N*N]`` (the dims where the mask broadcasts
    alike merged); the mask is a constant or computed at run time."""

    def __init__(self, runtime_mask: bool) -> None:
        super().__init__()
        self.register_buffer("mask", randn(4, 9, 9))
        self.runtime_mask = runtime_mask

    def forward(self, logits: torch.Tensor, score: torch.Tensor) -> torch.Tensor:
        mask = score.unsqueeze(1) - score.unsqueeze(2) if self.runtime_mask else self.mask   # [nW, 9, 9]
        masked = logits.view(2, 4, 2, 9, 9) + mask.unsqueeze(1).unsqueeze(0)
        return masked.view(-1, 2, 9, 9).softmax(-1)


@pytest.mark.parametrize("runtime_mask", [False, True], ids=["constant_mask", "runtime_mask"])
def test_rank5_mask_add_with_five_large_dims_merges_dims(runtime_mask):
    lowered = check_delegated_and_matches(BatchedWindowMask(runtime_mask), (randn(8, 2, 9, 9), randn(4, 9)),
                                          expect_operations=["SOFTMAX"])
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []


def test_multihead_attention_is_one_delegate():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
    module = Lambda(lambda x: mha(x, x, x, need_weights=False)[0])
    lowered = check_delegated_and_matches(module, (randn(2, 5, 8),), expect_operations=["REDUCE_MAX", "EXP"])
    assert lowered.num_delegates == 1


# ------------------------------------------------------------ masked softmax

_MASK = torch.zeros(5, 5)
_MASK[1] = float("-inf")       # a fully masked row: softmax NaN, SDPA's result 0
_MASK[3, :2] = float("-inf")


def test_masked_softmax_of_attention_uses_float_operations_only():
    module = Lambda(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=_MASK))
    q, k, v = randn(1, 2, 5, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 4)
    lowered = check_delegated_and_matches(module, (q, k, v), expect_operations=["REDUCE_MAX", "EXP", "DIV"])
    assert "SOFTMAX" not in lowered.nnapi_operations  # read only by the masked form
    (out,) = run_pte(lowered.pte, [q, k, v])
    assert torch.equal(out[:, :, 1], torch.zeros(1, 2, 4))


def test_softmax_read_outside_the_mask_is_also_emitted():
    def fn(q, k, v):
        logits = q @ k.transpose(-2, -1) + _MASK
        probs = logits.softmax(-1)
        safe = torch.where(torch.logical_not(torch.any(torch.logical_not(logits == float("-inf")), -1, keepdim=True)),
                           torch.zeros_like(probs), probs)
        return safe @ v, probs.sum(-1)

    q, k, v = randn(1, 2, 5, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 4)
    lowered = lower(Lambda(fn), (q, k, v))
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1
    assert "SOFTMAX" in lowered.nnapi_operations and "EXP" in lowered.nnapi_operations
    got = run_pte(lowered.pte, [q, k, v])
    want = fn(q, k, v)
    assert relative_max_error(got[0], want[0]) < 1e-4
    assert torch.isnan(got[1][:, :, 1]).all() and torch.isnan(want[1][:, :, 1]).all()


def test_bool_ops_outside_a_masked_softmax_are_plain_operations():
    # Outside the pattern they are lowered one by one (tests/lowering/test_ops_bool.py); the masked softmax
    # itself needs API 29 like them.
    check_delegated_and_matches(Lambda(lambda x, y: torch.where(x == 0.5, x, y) * 2), (randn(2, 3), randn(2, 3)),
                                expect_operations=["EQUAL", "SELECT"])
    lowered = lower(Lambda(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=_MASK)),
                    (randn(1, 2, 5, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 4)), feature_level=28)
    assert any("needs API 29" in r for r in lowered.reasons["aten.where.self"])


def test_view_chain_needing_a_rank5_transpose_runs_as_rank4_transposes():
    def fn(x):
        y = x.view(2, 3, 4, 5, 6).permute(4, 2, 0, 3, 1).contiguous()
        return y.view(24, 30) + 1

    lowered = check_delegated_and_matches(Lambda(fn), (randn(6, 20, 6),))
    assert lowered.nnapi_operations.count("TRANSPOSE") >= 2


def test_view_chain_needing_a_rank7_transpose_is_refused():
    def fn(x):
        y = x.view(2, 3, 2, 5, 2, 3, 2).permute(6, 5, 4, 3, 2, 1, 0).contiguous()
        return y.view(12, 60) + 1

    x = randn(6, 10, 12)
    lowered = lower(Lambda(fn), (x,))
    got = lowered.reasons
    assert "aten.permute_copy.default" in got, got
    assert "rank-7 transpose after merging adjacent dims" in got["aten.permute_copy.default"][0]
    (out,) = run_pte(lowered.pte, [x])
    assert torch.equal(out, fn(x))


def test_view_chain_below_api_28_is_refused():
    weight = randn(12, 4)
    lowered = lower(Lambda(lambda x: mha_in_projection(x, weight)), (randn(5, 2, 4),), feature_level=27)
    assert any("needs API 28" in r for r in lowered.reasons.get("aten.unsqueeze_copy.default", []))


def test_view_chain_stays_in_one_partition_when_cpu_nodes_split_its_users():
    # q and k are used before a CPU node (erf), v after it: the partitioner would put
    # the v select (an end of the rank-5 chain) in the second partition, so that a
    # rank-5 value crosses the boundary; the chain is kept whole in the first one.
    def fn(x):
        nw, n, c = x.shape
        qkv = torch.cat([x, x * 2, x * 3], -1).reshape(nw, n, 3, 2, c // 2).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        return torch.erf(q @ k.transpose(-2, -1)) @ v

    lowered = check_delegated_and_matches(Lambda(fn), (randn(4, 9, 8),), allow_cpu_ops=["erf"])
    assert lowered.num_delegates == 2
    assert lowered.cpu_ops == ["aten.erf.default"]


# ------------------------------------------- the layout algebra, against eager

def _simulate(plan, base: torch.Tensor) -> torch.Tensor:
    """What emit_end computes, with torch ops (RESHAPE / STRIDED_SLICE / TRANSPOSE / relabel)."""
    t = base.reshape(-1)
    if plan.slice_shape is not None:
        t = t.reshape(plan.slice_shape)[tuple(slice(b, e) for b, e in zip(plan.slice_begin, plan.slice_end))]
    t = t.reshape(plan.free_shape)
    if plan.relabel is not None:
        return t.permute([plan.relabel.index(d) for d in range(len(plan.relabel))])
    return t.permute(plan.perm).reshape(plan.out_shape)


def test_view_chain_plans_match_eager():
    import dataclasses
    import random

    from executorch_nnapi.lowering.patterns import view_chain as hrv

    rng = random.Random(0)
    checked = 0
    for _ in range(400):
        base_shape = [rng.choice([1, 2, 3, 4, 6]) for _ in range(rng.randint(1, 4))]
        base = torch.arange(float(torch.Size(base_shape).numel())).reshape(base_shape)
        layout, value = hrv.base_layout(None, base_shape), base
        try:
            for _ in range(rng.randint(1, 4)):
                kind = rng.choice(["split", "permute", "select", "unsqueeze", "squeeze", "merge"])
                shape = list(value.shape)
                if not shape:
                    break
                if kind == "split":
                    d = rng.randrange(len(shape))
                    divisors = [k for k in range(1, shape[d] + 1) if shape[d] % k == 0]
                    k = rng.choice(divisors)
                    shape[d:d + 1] = [k, shape[d] // k]
                    layout, value = hrv._view(layout, shape), value.reshape(shape)
                elif kind == "merge" and len(shape) > 1:
                    d = rng.randrange(len(shape) - 1)
                    shape[d:d + 2] = [shape[d] * shape[d + 1]]
                    layout, value = hrv._view(layout, shape), value.reshape(shape)
                elif kind == "permute":
                    perm = list(range(len(shape)))
                    rng.shuffle(perm)
                    layout, value = hrv._permute(layout, perm), value.permute(perm)
                elif kind == "select" and len(shape) > 1:
                    d = rng.randrange(len(shape))
                    i = rng.randrange(shape[d])
                    layout, value = hrv._select(layout, d, i), value.select(d, i)
                elif kind == "unsqueeze":
                    d = rng.randint(0, len(shape))
                    groups = list(layout.groups)
                    groups.insert(d, 0)
                    layout, value = dataclasses.replace(layout, groups=tuple(groups)), value.unsqueeze(d)
                elif kind == "squeeze" and 1 in shape:
                    d = shape.index(1)
                    groups = list(layout.groups)
                    del groups[d]
                    layout, value = dataclasses.replace(layout, groups=tuple(groups)), value.squeeze(d)
                assert layout.shape() == list(value.shape)
            if value.dim() > 4 or value.dim() == 0:
                continue
            plan = hrv.plan_end(layout, list(value.shape))
        except hrv._NoMatch:
            continue
        assert torch.equal(_simulate(plan, base), value), (base_shape, plan)
        checked += 1
    assert checked > 200


def test_large_attention_bmm_is_one_fully_connected_per_head():
    # ViT-B's attention at 224x224: 12 heads, 197 tokens of 64. B*M*K*N = 29.8M elements is too
    # large for the MUL + REDUCE_SUM intermediate, so each head is FULLY_CONNECTED(a_i, b_iᵀ, 0).
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(12, 197, 64, generator=g) for _ in range(3))
    module = Lambda(lambda q, k, v: torch.softmax(q @ k.transpose(1, 2) * 0.125, -1) @ v)
    lowered = check_delegated_and_matches(module, (q, k, v), expect_operations=["FULLY_CONNECTED", "SPLIT"])
    assert lowered.num_delegates == 1
    assert lowered.nnapi_operations.count("FULLY_CONNECTED") == 24
    assert "REDUCE_SUM" not in lowered.nnapi_operations


def test_large_bmm_with_dynamic_batch_is_done_in_row_blocks():
    """B*M*K*N reaches 64*197*64*197 > 2^24 at the batch's upper bound and the per-batch form
    needs a static batch: MUL + REDUCE_SUM over blocks of 20 rows (B*20*K*N <= 2^24)."""
    batch = torch.export.Dim("batch", min=1, max=64)
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(12, 197, 64, generator=g), torch.randn(12, 64, 197, generator=g)
    lowered = check_delegated_and_matches(Lambda(torch.bmm), (a, b), dynamic_shapes=(({0: batch}, {0: batch}),),
                                          run_inputs=[[a, b], [torch.randn(3, 197, 64), torch.randn(3, 64, 197)]])
    assert lowered.nnapi_operations.count("REDUCE_SUM") == 10 and "CONCATENATION" in lowered.nnapi_operations


def test_attention_with_dynamic_length_is_one_fully_connected_per_head():
    """q @ kᵀ with a static batch (heads) and a dynamic length L <= 256: B*M*K*N reaches
    12*256*64*256 > 2^24, so one FULLY_CONNECTED per head, its zero bias of size L made by
    FILL (API 30); below API 30 (no FILL) it is refused with its reason."""
    length = torch.export.Dim("length", min=8, max=256)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(12, 50, 64, generator=g) for _ in range(3))
    module = Lambda(lambda q, k, v: torch.softmax(q @ k.transpose(1, 2) * 0.125, -1) @ v)
    dims = (({1: length}, {1: length}, {1: length}),)
    lowered = check_delegated_and_matches(
        module, (q, k, v), dynamic_shapes=dims, expect_operations=["FULLY_CONNECTED", "FILL"],
        run_inputs=[[q, k, v], [t[:, :8].contiguous() for t in (q, k, v)], [torch.randn(12, 256, 64, generator=g) for _ in range(3)]])
    assert lowered.num_delegates == 1 and lowered.nnapi_operations.count("FULLY_CONNECTED") == 24
    below = lower(module, (q, k, v), dynamic_shapes=dims, feature_level=29)
    assert "static N below API 30" in below.reasons["aten.bmm.default"][0]


def test_bmm_too_large_for_any_form_is_refused_with_its_reason():
    """Even one row's [B, 1, K, N] intermediate exceeds 2^24 at the upper bound (1024*64*512)."""
    batch = torch.export.Dim("batch", min=1, max=1024)
    a, b = torch.randn(4, 8, 64), torch.randn(4, 64, 512)
    lowered = lower(Lambda(torch.bmm), (a, b), dynamic_shapes=(({0: batch}, {0: batch}),))
    (reason,) = lowered.reasons["aten.bmm.default"]
    assert "dynamic batch or N" in reason and "row blocks" in reason and "before feature level 6" in reason
