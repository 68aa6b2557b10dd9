"""Pooling, reductions, shape / data-movement, resize and bmm builders.

Each op is lowered alone (several variants of one op share a module, to keep
the number of lowerings — about 2 s each — small), after a convolution (NHWC
path), with dynamic shapes, and at feature levels too low for it; delegated
programs run through the C++ backend on the host driver and are compared with
eager PyTorch.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_GEN)


_GEN = torch.Generator().manual_seed(0)


class BmmWithWeight(torch.nn.Module):
    """bmm of an activation with another activation and with a parameter."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(2, 4, 3, generator=torch.Generator().manual_seed(1)))

    def forward(self, a: torch.Tensor, b: torch.Tensor):
        return torch.bmm(a, b), torch.bmm(b.transpose(1, 2), self.weight)


# (id, module, inputs, NNAPI operations that must appear)
ALONE = [
    ("max_pool2d", Lambda(lambda x: (
        F.max_pool2d(x, 2), F.max_pool2d(x, 3, 2, 1), F.max_pool2d(x, (3, 2), (2, 1), (1, 0)),
        F.max_pool2d(x, 3, 2, ceil_mode=True), F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
        F.max_pool2d(x, 2, 3, 1, ceil_mode=True))),
     (randn(1, 3, 9, 7),), ["MAX_POOL_2D"]),
    ("avg_pool2d", Lambda(lambda x: (
        F.avg_pool2d(x, 2), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), F.avg_pool2d(x, 3, 2, 1),
        F.avg_pool2d(x, (3, 2), 1, (1, 1)), F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
        F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), F.avg_pool2d(x, 2, ceil_mode=True))),
     (randn(1, 3, 9, 7),), ["AVERAGE_POOL_2D", "PAD"]),
    # (1, 1) decomposes to mean.dim; the others stay _adaptive_avg_pool2d.
    ("adaptive_avg_pool2d", Lambda(lambda x: (
        F.adaptive_avg_pool2d(x, (2, 2)), F.adaptive_avg_pool2d(x, (4, 1)), F.adaptive_avg_pool2d(x, 1))),
     (randn(1, 3, 8, 6),), ["AVERAGE_POOL_2D", "MEAN"]),
    ("sum_amax", Lambda(lambda x: (x.sum(1), x.sum((0, 2), keepdim=True), x.sum(), x.sum(-1),
                                   x.amax(1), x.amax((0, 2), keepdim=True), x.amax(-1))),
     (randn(2, 3, 4),), ["REDUCE_SUM", "REDUCE_MAX"]),
    ("cat", Lambda(lambda x, y, a, b: (torch.cat([x, y, x], -1), torch.cat([a, b], 1))),
     (randn(2, 3), randn(2, 4), randn(1, 2, 4, 5), randn(1, 3, 4, 5)), ["CONCATENATION"]),
    # A lone permute: no operation of its own; the runtime permutes the output while copying it out.
    ("permute", Lambda(lambda x: x.permute(2, 0, 1)), (randn(2, 3, 4),), ["RESHAPE"]),
    ("squeeze_unsqueeze", Lambda(lambda x, s, u: (
        x.squeeze(), x.squeeze(2), x.squeeze((0, 2)), s.squeeze(), u.unsqueeze(0), u.unsqueeze(-1), u.unsqueeze(1))),
     (randn(1, 4, 1, 5), randn(1), randn(3, 4, 5)), ["RESHAPE"]),
    ("slice_select", Lambda(lambda x, v: (x[:, 1:5:2], x[..., -3:], x[:, :-1], x[1:, ::3], x[:, 2:100],
                                          x[:, 1], x[-1], x[..., -2], v[2])),
     (randn(3, 6, 5), randn(5)), ["STRIDED_SLICE"]),
    ("split_chunk", Lambda(lambda x: (*torch.split(x, [2, 4], 1), *torch.chunk(x, 3, -1), torch.split(x, 4, 1)[1])),
     (randn(2, 6, 7),), ["STRIDED_SLICE"]),
    ("constant_pad", Lambda(lambda x, y: (F.pad(x, (1, 2, 0, 1)), F.pad(y, (1, 2, 3, 0, 1, 1), value=-1.5))),
     (randn(2, 6, 4), randn(1, 2, 3, 4)), ["PAD", "PAD_V2"]),
    ("upsample", Lambda(lambda x: (
        F.interpolate(x, scale_factor=2), F.interpolate(x, size=(7, 5)), F.interpolate(x, scale_factor=(3, 1)),
        F.interpolate(x, size=(7, 5), mode="bilinear"), F.interpolate(x, scale_factor=2, mode="bilinear"),
        F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=True),
        F.interpolate(x, size=(3, 2), mode="bilinear"))),
     (randn(1, 3, 4, 6),), ["RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR"]),
    ("bmm", BmmWithWeight(), (randn(2, 3, 4), randn(2, 4, 5)), ["MUL", "REDUCE_SUM"]),
]


@pytest.mark.parametrize("module, inputs, operations", [c[1:] for c in ALONE], ids=[c[0] for c in ALONE])
def test_op_alone_is_delegated_and_matches(module, inputs, operations):
    lowered = check_delegated_and_matches(module, inputs, expect_operations=operations)
    assert "BATCH_MATMUL" not in lowered.nnapi_operations  # feature level 6 only


# --- after a convolution: the value is NHWC and stays so (inputs and outputs permuted by the runtime) ---

def _conv(cin: int, cout: int, kernel, **kwargs) -> torch.nn.Conv2d:
    conv = torch.nn.Conv2d(cin, cout, kernel, **kwargs)
    with torch.no_grad():
        for p in conv.parameters():
            p.copy_(randn(*p.shape))
    return conv


_CONV = _conv(3, 4, 3, padding=1)
_CONV2 = _conv(3, 2, 1)
_CONV_H3 = _conv(3, 4, (3, 1))

NHWC_CASES = [
    # Every output is an NCHW 4-D tensor, permuted by the runtime: no TRANSPOSE at all.
    ("spatial", Lambda(lambda x: (
        F.max_pool2d(_CONV(x), 3, 2, 1, ceil_mode=True), F.avg_pool2d(_CONV(x), 3, 2, 1),
        torch.cat([_CONV(x), _CONV2(x)], 1), _CONV(x)[:, :, 2:-1], F.interpolate(_CONV(x), scale_factor=2),
        F.interpolate(_CONV(x), scale_factor=2, mode="bilinear"), F.pad(_CONV2(x), (1, 0, 2, 1)),
        F.relu(F.avg_pool2d(_CONV2(x), 2)))),
     (randn(1, 3, 8, 6),),
     ["MAX_POOL_2D", "AVERAGE_POOL_2D", "CONCATENATION", "STRIDED_SLICE", "RESIZE_NEAREST_NEIGHBOR",
      "RESIZE_BILINEAR", "PAD"], 0),
    # permute to NHWC is the conv's physical order; select / sum drop C or H, W; the squeezed
    # [N, W, C] value leaves as is and the runtime permutes it to [N, C, W].
    ("reordering", Lambda(lambda x, y: (
        _CONV(x).permute(0, 2, 3, 1), _CONV(x)[:, 1], _CONV(x).sum((2, 3)), _CONV_H3(y).squeeze(2))),
     (randn(1, 3, 8, 6), randn(1, 3, 3, 6)), ["CONV_2D", "STRIDED_SLICE", "REDUCE_SUM", "RESHAPE"], 0),
]


@pytest.mark.parametrize("module, inputs, operations, transposes", [c[1:] for c in NHWC_CASES],
                         ids=[c[0] for c in NHWC_CASES])
def test_ops_after_convolution_stay_nhwc(module, inputs, operations, transposes):
    lowered = check_delegated_and_matches(module, inputs, expect_operations=operations)
    assert lowered.nnapi_operations.count("TRANSPOSE") == transposes, lowered.nnapi_operations
    assert "RELU" not in lowered.nnapi_operations  # fused into AVERAGE_POOL_2D


def test_bmm_at_feature_level_6_is_batch_matmul():
    lowered = check_delegated_and_matches(Lambda(torch.bmm), (randn(3, 2, 4), randn(3, 4, 6)), feature_level=1000006)
    assert lowered.nnapi_operations == ["BATCH_MATMUL"]


# --- dynamic shapes ---

_H, _W = Dim("h", min=4, max=40), Dim("w", min=4, max=40)
_SIZES = [(9, 7), (4, 40), (16, 5)]


def _runs(*shapes_of_hw):
    return [tuple(randn(*shape(h, w)) for shape in shapes_of_hw) for h, w in _SIZES]


DYNAMIC_CASES = [
    ("pooling_upsample", Lambda(lambda x: (
        F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 2), F.adaptive_avg_pool2d(x, 1),
        # One bilinear only: its fake-tensor evaluation with symbolic sizes makes lowering slow.
        F.interpolate(x, scale_factor=2), F.interpolate(x, scale_factor=2, mode="bilinear"))),
     [lambda h, w: (1, 3, h, w)], ({2: _H, 3: _W},),
     ["MAX_POOL_2D", "AVERAGE_POOL_2D", "PAD", "MEAN", "RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR"]),
    ("cat_slice_pad", Lambda(lambda x, y: (torch.cat([x, y], 2), x[:, :, 1:-1], x[:, :, ::2, 1:3],
                                           F.pad(x, (1, 2, 0, 1)), F.pad(y, (2, 0), value=0.5))),
     [lambda h, w: (1, 3, h, w), lambda h, w: (1, 3, h + 3, w)], ({2: _H, 3: _W}, {2: _H + 3, 3: _W}),
     ["CONCATENATION", "STRIDED_SLICE", "PAD", "PAD_V2"]),
]


@pytest.mark.parametrize("module, shapes, dynamic, operations", [c[1:] for c in DYNAMIC_CASES],
                         ids=[c[0] for c in DYNAMIC_CASES])
def test_dynamic_shapes(module, shapes, dynamic, operations):
    runs = _runs(*shapes)
    lowered = check_delegated_and_matches(module, runs[0], run_inputs=runs, dynamic_shapes=(dynamic,),
                                          expect_operations=operations)
    assert lowered.blobs[0].symbols, "the blob has no symbolic dims"


def test_dynamic_ceil_mode_pooling():
    # PyTorch guards ceil_mode output sizes on parity, so the sizes are odd: 2k - 1.
    kh, kw = Dim("kh", min=3, max=20), Dim("kw", min=3, max=20)
    module = Lambda(lambda x: (F.max_pool2d(x, 3, 2, 1, ceil_mode=True), F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)))
    runs = [(randn(1, 2, h, w),) for h, w in [(9, 7), (5, 39), (17, 11)]]
    check_delegated_and_matches(module, runs[0], run_inputs=runs, dynamic_shapes=(({2: 2 * kh - 1, 3: 2 * kw - 1},),))


# --- refusals: the node stays on the CPU, with the reason ---

REFUSALS = [
    # (id, feature level, module, inputs, {op: [substring of each reason]})
    # (A static bilinear resize below API 30 is now two interpolation matrices; the refusal of a
    # dynamic one: test_resize_before_api30.py::test_dynamic_size_below_api_30_stays_on_the_cpu_with_reason.)
    ("api28", 28, Lambda(lambda x, a, b: (x.sum(1), x.amax(1), F.interpolate(x, scale_factor=2),
                                          F.pad(x, (1, 1), value=2.0), torch.bmm(a, b))),
     (randn(1, 3, 4, 6), randn(2, 3, 4), randn(2, 4, 5)),
     {"aten.sum.dim_IntList": ["needs API 29"], "aten.amax.default": ["needs API 29"],
      "aten.upsample_nearest2d.vec": ["needs API 29"],
      "aten.constant_pad_nd.default": ["(PAD_V2) needs API 29"], "aten.bmm.default": ["needs API 29"]}),
    ("api27", 27, Lambda(lambda x, y: (F.pad(x, (1, 1)), F.avg_pool2d(x, 3, 1, 1), y[:, 1:3], y[:, 1],
                                       y.permute(1, 0, 2), torch.split(y, [2, 1], 1)[0])),
     (randn(1, 3, 4, 6), randn(2, 3, 4)),
     {"aten.constant_pad_nd.default": ["needs API 28"],
      "aten.avg_pool2d.default": ["count_include_pad=True and padding > 0 (explicit PAD) needs API 28"],
      "aten.slice_copy.Tensor": ["slice (STRIDED_SLICE) needs API 28"], "aten.select_copy.int": ["needs API 28"],
      "aten.permute_copy.default": ["needs API 28"], "aten.split_with_sizes_copy.default": ["needs API 28"]}),
    ("attributes", 30, Lambda(lambda x, v, a, b: (
        F.max_pool2d(x, 2, dilation=2), *F.max_pool2d(x, 2, return_indices=True), F.avg_pool2d(x, 2, divisor_override=3),
        F.pad(x, (-1, 1)), F.interpolate(v, scale_factor=1.7), torch.bmm(a, b))),
     (randn(1, 2, 8, 8), randn(1, 2, 5, 5), randn(2, 256, 256), randn(2, 256, 256)),
     {"aten.max_pool2d_with_indices.default": ["dilated pooling", "indices output is used"],
      "aten.avg_pool2d.default": ["divisor_override"],
      "aten.constant_pad_nd.default": ["negative padding"],
      "aten.upsample_nearest2d.vec": ["scale_factor 1.7"]}),
    # (A static bmm too large for MUL + REDUCE_SUM is now one FULLY_CONNECTED per batch item; the
    # refusal of a dynamic one: test_ops_transformer.py::test_large_bmm_with_dynamic_batch_is_refused_with_its_reason.)
]


@pytest.mark.parametrize("level, module, inputs, expected", [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_refused_with_reason(level, module, inputs, expected):
    lowered = lower(module, inputs, feature_level=level)
    reasons = lowered.reasons
    for op, fragments in expected.items():
        assert op in lowered.cpu_ops, f"{op} was delegated; CPU ops: {lowered.cpu_ops}"
        got = reasons.get(op, [])
        assert len(got) == len(fragments), f"{op}: reasons {got}, expected {fragments}"
        for fragment in fragments:
            assert any(fragment in r for r in got), f"{op}: no reason mentions {fragment!r}: {got}"


# --- reductions of every dim: a 0-d result (NNAPI has no rank-0 tensors: stored as [1]) ---

def _all_dims_reductions(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    every = tuple(range(x.dim()))
    outs = [x.mean(), x.sum()]
    for keepdim in (False, True):
        outs += [x.mean(every, keepdim=keepdim), x.sum(every, keepdim=keepdim), x.amax(every, keepdim=keepdim),
                 x.amin(every, keepdim=keepdim)]
    # 0-d values read inside the partition: broadcast against x (the [1] is not TRANSPOSEd to rank 0),
    # and by ops that accept a 0-d input (LOG's chain once indexed the 0-d shape by the [1]'s order).
    return (*outs, x - x.mean(every), x * x.amax(every), torch.log(x.exp().sum()), x.sum().unsqueeze(0),
            x.mean() > 0, x.amin(every).expand(2, 3))


@pytest.mark.parametrize("shape", [(5,), (3, 5), (2, 3, 5), (2, 3, 4, 5)], ids=["1d", "2d", "3d", "4d"])
def test_reductions_of_every_dim_run(shape):
    lowered = check_delegated_and_matches(Lambda(_all_dims_reductions), (randn(*shape),), tolerance=1e-5,
                                          expect_operations=["MEAN", "REDUCE_SUM", "REDUCE_MAX", "REDUCE_MIN"])
    assert lowered.num_delegates == 1 and "TRANSPOSE" not in lowered.nnapi_operations


def test_0d_partition_inputs_run():
    """A 0-d program input, and a 0-d value the CPU computes (erf: NNAPI has none) read by a
    second partition: each bound as [1]."""
    module = Lambda(lambda x, y: (x * y, x * torch.erf(x.mean())))
    lowered = check_delegated_and_matches(module, (randn(3, 4), torch.tensor(2.5)), allow_cpu_ops=["aten.erf"])
    assert lowered.cpu_ops == ["aten.erf.default"] and lowered.num_delegates == 2
