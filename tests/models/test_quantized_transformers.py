"""Transformers in 8 bits (issue 21, item 2): torchvision's ViT, ConvNeXt and Swin through
NnapiQuantizer at API 30 lower to ONE NNAPI subgraph with no op on the CPU. What NNAPI runs
in 8 bits (the linears, convolutions, adds, views, the softmax) is 8-bit; what it has no 8-bit
form of (exact gelu, layer norm, the attention matmuls before BATCH_MATMUL) is a float island
inside the same NNAPI model (DEQUANTIZE -> float operations -> QUANTIZE), and the delegation
report says so.

The architectures are torchvision's, at reduced depth and width (one block per ConvNeXt stage;
ViT with 2 layers of 4 heads, width 64): every kind of block and operation of vit_b_16 and
convnext_tiny is there, at a fraction of the lowering time the suite can afford. The full
models are measured beside XNNPACK's int8 flow by ``bench/zoo_benchmark.py --quantized``.

The comparison with the convert_pt2e model follows tests/models/test_quantized_models.py:
one-step differences at rounding ties (and in the float islands, float32 noise on values near
a step boundary) compound through the layers, so the test asserts that the host's mean SQNR
against the float model is within 1 dB of convert_pt2e's own, and that most outputs are within
one step of convert_pt2e.
"""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim
from torchvision.models import VisionTransformer
from torchvision.models.convnext import CNBlockConfig, ConvNeXt
from torchvision.models.swin_transformer import SwinTransformer

from op_harness import lower, run_pte
from quantized_reference import agreement, quantize
from test_transformer_models import _randomize_zero_weights
from executorch_nnapi.tools.report import NO_8BIT_LOWERING, delegation_report

pytestmark = pytest.mark.slow

SIZE = 64
HELD_OUT = 8
BATCH = ({0: Dim("batch", min=1, max=HELD_OUT)},)


def vit_small() -> torch.nn.Module:
    return VisionTransformer(image_size=SIZE, patch_size=16, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=256)


def convnext_small_depth() -> torch.nn.Module:
    stages = [CNBlockConfig(32, 64, 1), CNBlockConfig(64, 128, 1), CNBlockConfig(128, 256, 1), CNBlockConfig(256, None, 1)]
    return ConvNeXt(stages, stochastic_depth_prob=0.0)


def swin_two_stages() -> torch.nn.Module:
    # At 64x64 both stages' windows shift (16x16 and 8x8 tokens padded to 21 and 14, window 7), so
    # each has the shifted-window mask add at rank 5, left float by NnapiQuantizer and run as a
    # float island inside the view chain that holds it (patterns/view_chain.py).
    return SwinTransformer(patch_size=[4, 4], embed_dim=24, depths=[2, 2], num_heads=[1, 2], window_size=[7, 7])


MODELS = {"vit": vit_small, "convnext": convnext_small_depth, "swin": swin_two_stages}
# Ops NNAPI has no 8-bit form of (before BATCH_MATMUL, feature level 6, for the matmuls): float islands.
NO_8BIT_FORM = {"vit": {"aten.gelu.default", "aten.bmm.default"}, "convnext": {"aten.gelu.default"},
                "swin": {"aten.gelu.default", "aten.bmm.default"}}


@functools.cache
def _prepared(name: str):
    torch.manual_seed(0)
    model = _randomize_zero_weights(MODELS[name]()).eval()
    example = (torch.randn(2, 3, SIZE, SIZE),)
    gm = quantize(model, example, signed=False, feature_level=30, calibration=8, dynamic_shapes=BATCH)
    x = torch.randn(HELD_OUT, 3, SIZE, SIZE, generator=torch.Generator().manual_seed(5))
    return model, gm, x, lower(gm, (x,), feature_level=30)


@pytest.mark.parametrize("name", list(MODELS))
def test_quantized_transformer_is_one_subgraph_close_to_convert_pt2e(name):
    model, gm, x, low = _prepared(name)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    (partition,) = delegation_report(low.edge, low.partitioner.decisions).partitions
    assert partition.is_quantized and partition.operations_in("8-bit"), partition.format_operations()
    # Every op computed in float inside says why.
    assert all(why for _, why in partition.float_islands.values()), partition.float_islands
    for op in NO_8BIT_FORM[name]:
        assert partition.float_islands[op][1] == NO_8BIT_LOWERING, partition.float_islands
    (got,) = run_pte(low.pte, [x])
    a = agreement(gm, model, x, got)
    close, ours, theirs = a.within_one_step, a.sqnr, a.sqnr_convert_pt2e
    figures = (f"{name}: {close:.1%} within one step of convert_pt2e, max "
               f"{a.max_steps:.1f} steps; mean SQNR vs float {ours:.2f} dB "
               f"(convert_pt2e {theirs:.2f} dB); float inside: {sorted(partition.float_islands)}")
    print(figures)
    assert ours >= theirs - 1.0 and close >= 0.5, figures
