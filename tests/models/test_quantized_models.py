"""Quantized torchvision mobilenet_v2, mobilenet_v3_large and resnet18
(NnapiQuantizer, calibrated on 32 random inputs) lowered whole to NNAPI and run
on the host driver, at API 30 (uint8 and int8, per-channel weights) and (the
last two) at API 27, as at 28 (uint8, per-tensor weights).

What "as close to convert_pt2e as an integer implementation can be" means here.
Replayed layer by layer on convert_pt2e's own input codes (integer_replay.py),
NNAPI's arithmetic differs from convert_pt2e's float reference on 0.1-0.5% of
each layer's elements, always by one step and only at rounding ties: within
0.03 step of a .5 boundary (NNAPI's double rounding in requantization, docs/nnapi_facts.md §9.3;
HARD_SWISH's int16 fixed point), or exactly on it (AVERAGE_POOL_2D rounds half
up, torch half to even). Rounding the exact values once instead reproduces
convert_pt2e on all but ~1e-5 of the elements, so no systematic error is left
(bias, folded-BN weights, multipliers, zero points, clamps). Through 50 layers
of a random-weight network those one-step differences compound chaotically: at
the logits only ~15-20% of the elements stay within one step of convert_pt2e.
That is what any integer implementation gets: ExecuTorch's XNNPACK delegate on
the same model quantized with XNNPACKQuantizer is within one step of its own
convert_pt2e model on a similar fraction (mobilenet_v2 at 224x224: 18%, max 22
steps). So the whole-model tests assert the layer-wise facts above and that the
SQNR against the float model is at most 1 dB below convert_pt2e's; in the long
tier (XNNPACK's lowering is two thirds of a model's time), that the host is at
least as close to convert_pt2e as XNNPACK is to its own, and its SQNR at most
1 dB below XNNPACK's.

Input 96x96: the last feature map is 3x3, so the final average pool (sum / 9)
has no exact ties. Calibration: 16 random batches of 2 (seed 1) and the example, as the model is
exported with a dynamic batch so that the same convert_pt2e model runs the
held-out set: HELD_OUT random inputs (seed 5) in one batch, lowered with that
static batch and run in one execution.

Why a held-out set and not one input: on these random-weight models the SQNR of
one input against the float model scatters by ~1.9 dB (standard deviation over
inputs; mobilenet_v3_large), and ours minus XNNPACK's on the same input by
~1.1 dB. One input (as this test once used) put mobilenet_v3_large 1.35-1.6 dB
below XNNPACK on an AVX2 machine and above it on an AVX-512 one; over 64 inputs
the gap was -0.25 to +0.33 dB (3 seeds x ATEN_CPU_CAPABILITY default / avx2 /
avx512): noise, not a weaker quantization. The figure compared is the mean over
the held-out inputs of each input's SQNR in dB.
"""

from __future__ import annotations

import functools

import pytest
import torch
import torchvision
from torch.export import Dim

import integer_replay
from op_harness import Lowered, lower, run_pte
from quantized_reference import (XnnpackRun, mean_sqnr, output_step, quantize, quantized_inside, within_one_step,
                                 xnnpack_run)
from test_model_zoo import calibrate_batch_norms

pytestmark = pytest.mark.slow

SIZE = 96
CALIBRATION = 16  # batches of 2: 32 inputs
# The mean SQNR of 128 inputs has a standard error of ~0.17 dB (0.1 dB for ours minus XNNPACK's),
# so the 1 dB bound below is ~10 standard errors of the compared figure, on any CPU.
HELD_OUT = 128
# XNNPACK's kernels agree with their convert_pt2e model layer by layer except at float32 noise;
# NNAPI's double rounding flips 0.1-0.5% of each layer's codes (at near-ties), so a conforming
# device ends slightly further away: resnet18 (uint8 / int8) 64.5% / 63.3% within one step
# against XNNPACK's 65.9%. Hence "at least XNNPACK's fraction" less this many points.
MARGIN = 0.05
# Below API 30 mobilenet_v3_large's 21 hardswishes are x * hardsigmoid(x) (DEPTHWISE_CONV_2D + MUL):
# each rounds its gate to a 1/256 step where convert_pt2e rounds once, so the host drifts further
# from convert_pt2e: measured over the 128 held-out inputs, 43.9% within one step against XNNPACK's
# 51.9% (AVX-512), while its mean SQNR vs float is 0.16 dB from convert_pt2e's own (8.99 / 9.15 dB).
MARGIN_DECOMPOSED_HARDSWISH = 0.10
# Differences at most this far from a .5 boundary (in steps) count as rounding ties.
TIE = 1 / 32

# Per model: the NNAPI operations the one partition holds (besides QUANTIZE / DEQUANTIZE) at API 30.
MODELS = {
    "mobilenet_v2": {"CONV_2D": 35, "DEPTHWISE_CONV_2D": 17, "ADD": 10, "AVERAGE_POOL_2D": 1, "FULLY_CONNECTED": 1},
    "mobilenet_v3_large": {"CONV_2D": 47, "DEPTHWISE_CONV_2D": 23, "HARD_SWISH": 21, "MUL": 8, "ADD": 10,
                           "AVERAGE_POOL_2D": 9, "FULLY_CONNECTED": 2},
    "resnet18": {"CONV_2D": 20, "ADD": 8, "MAX_POOL_2D": 1, "AVERAGE_POOL_2D": 1, "FULLY_CONNECTED": 1},
}
# One pytest-xdist worker per model (--dist loadgroup): its quantized, lowered and XNNPACK
# programs are built once and shared by all of its tests.
NAMES = [pytest.param(name, id=name, marks=pytest.mark.xdist_group(name)) for name in MODELS]
# Below API 29: mobilenet_v2's operations (CONV_2D, DEPTHWISE_CONV_2D, ADD, the pools,
# FULLY_CONNECTED) are all in mobilenet_v3_large and resnet18, so it is not run again at API 27
# (74 s of the suite's time).
NAMES_BEFORE_API_29 = [p for p in NAMES if p.values[0] != "mobilenet_v2"]
# Every model in uint8; in int8 (TENSOR_QUANT8_ASYMM_SIGNED: the same arithmetic on codes offset by
# 128, docs/nnapi_facts.md §9) the one with the most kinds of operation, mobilenet_v3_large. The
# int8 runs of the other two (each its own quantization, lowering and replay: ~75 s of the suite)
# were dropped for the suite's time; every 8-bit operation is tested in int8 in tests/quantizer.
VARIANTS = [pytest.param(name, False, id=f"{name}-uint8", marks=pytest.mark.xdist_group(name)) for name in MODELS] + [
    pytest.param("mobilenet_v3_large", True, id="mobilenet_v3_large-int8",
                 marks=pytest.mark.xdist_group("mobilenet_v3_large"))]


@functools.cache
def float_model(name: str) -> torch.nn.Module:
    """The untrained model with calibrated batch norms (test_model_zoo.build's recipe)."""
    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None).eval()
    calibrate_batch_norms(model, SIZE)
    return model


def example() -> tuple[torch.Tensor]:
    """The export example (and last calibration input): a batch of 2, the batch dim dynamic."""
    torch.manual_seed(0)
    return (torch.randn(2, 3, SIZE, SIZE),)


BATCH = ({0: Dim("batch", min=1, max=HELD_OUT)},)


@functools.cache
def held_out() -> torch.Tensor:
    """HELD_OUT inputs in one batch (its first is the single held-out input this test once used)."""
    torch.manual_seed(5)
    return torch.randn(HELD_OUT, 3, SIZE, SIZE)


@functools.cache
def converted(name: str, signed: bool, level: int) -> torch.fx.GraphModule:
    return quantize(float_model(name), example(), signed=signed, feature_level=level, calibration=CALIBRATION,
                    dynamic_shapes=BATCH)


@functools.cache
def quantized(name: str, signed: bool, level: int) -> tuple[torch.fx.GraphModule, Lowered]:
    """The convert_pt2e model for feature level ``level`` and its lowering for that level,
    static at the held-out batch."""
    # NnapiQuantizer annotates API 27 and 28 alike (per-tensor uint8 weights): quantize once.
    gm = converted(name, signed, max(level, 28))
    return gm, lower(gm, (held_out(),), feature_level=level)


@functools.cache
def host_output(name: str, signed: bool, level: int) -> torch.Tensor:
    """The lowered program's result on the held-out batch, on the host driver at ``level``."""
    return run_pte(quantized(name, signed, level)[1].pte, [held_out()], level)[0]


@functools.cache
def xnnpack(name: str) -> XnnpackRun:
    return xnnpack_run(float_model(name), example(), held_out(), CALIBRATION, dynamic_shapes=BATCH)


@functools.cache
def float_output(name: str) -> torch.Tensor:
    """The float model's result on the held-out batch (every check of the model compares with it)."""
    with torch.no_grad():
        return float_model(name)(held_out())


def figures(name: str, gm, actual: torch.Tensor) -> tuple[float, float, float]:
    """The held-out batch's fraction of outputs within one step of convert_pt2e, and the mean SQNR
    against the float model of ``actual`` and of convert_pt2e's own result."""
    with torch.no_grad():
        want = gm(held_out())
    return within_one_step(want, actual, output_step(gm)), mean_sqnr(float_output(name), actual), \
        mean_sqnr(float_output(name), want)


def assert_as_accurate_as_convert_pt2e(name: str, gm, actual: torch.Tensor) -> None:
    """SQNR vs float at most 1 dB below convert_pt2e's own. Integer faithfulness is checked layer
    by layer (test_layers_differ_from_convert_pt2e_only_at_rounding_ties); XNNPACK's yardstick
    (test_as_close_to_convert_pt2e_as_xnnpack, whose XNNPACK lowering is most of its time) runs in
    the long tier."""
    close, ours, reference = figures(name, gm, actual)
    text = (f"{name}: within one step of convert_pt2e {close:.1%}; mean SQNR vs float over {HELD_OUT} inputs "
            f"{ours:.2f} dB (convert_pt2e {reference:.2f} dB)")
    print(text)
    assert ours >= reference - 1.0, text


def assert_as_close_as_xnnpack(name: str, gm, actual: torch.Tensor, per_tensor: bool = False,
                               margin: float = MARGIN) -> None:
    """Within one step of convert_pt2e on about XNNPACK's fraction of its own (see MARGIN);
    SQNR vs float at most 1 dB below XNNPACK's (``per_tensor``: below convert_pt2e's, as
    XNNPACK's per-channel weights are more accurate than API 27/28's per-tensor ones:
    resnet18 21.9 dB against XNNPACK's 23.9)."""
    ref = xnnpack(name)
    close, ours, reference = figures(name, gm, actual)
    xnn_close = within_one_step(ref.expected, ref.output, ref.step)
    theirs = reference if per_tensor else mean_sqnr(float_output(name), ref.output)
    text = (f"{name}: within one step of convert_pt2e {close:.1%} (XNNPACK {xnn_close:.1%}); "
            f"mean SQNR vs float over {HELD_OUT} inputs {ours:.2f} dB "
            f"({'convert_pt2e' if per_tensor else 'XNNPACK'} {theirs:.2f} dB)")
    print(text)
    assert close >= xnn_close - margin and ours >= theirs - 1.0, text


@pytest.mark.parametrize("name, signed", VARIANTS)
def test_model_quantized(name, signed):
    gm, low = quantized(name, signed, 30)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    ops = quantized_inside(low.raw_blobs[0])
    assert ops.count("QUANTIZE") == 1 and ops.count("DEQUANTIZE") == 1
    assert {op: ops.count(op) for op in MODELS[name]} == MODELS[name]
    assert_as_accurate_as_convert_pt2e(name, gm, host_output(name, signed, 30))


@pytest.mark.parametrize("name", NAMES_BEFORE_API_29)
def test_model_before_api_29(name):
    """uint8 with per-tensor weights, at API 27. NNAPI has no QUANTIZE before API 29: the input
    is quantized on the CPU and the one partition takes its codes. mobilenet_v3_large's
    hardswish (no HARD_SWISH before API 30) is x * hardsigmoid(x): DEPTHWISE_CONV_2D + MUL.
    For API 28 NnapiQuantizer annotates the same way and the lowering writes the same NNAPI
    model, byte for byte (checked for the three models when API 28 was dropped from this test to
    save its three lowerings and runs), so API 27 is the one run."""
    level = 27
    gm, low = quantized(name, False, level)
    assert low.cpu_ops == ["quantized_decomposed.quantize_per_tensor.default"], (low.cpu_ops, low.reasons)
    assert low.num_delegates == 1
    ops = quantized_inside(low.raw_blobs[0])
    assert "QUANTIZE" not in ops and ops.count("DEQUANTIZE") == 1 and "HARD_SWISH" not in ops
    assert_as_accurate_as_convert_pt2e(name, gm, host_output(name, False, level))


@pytest.mark.parametrize("name, signed, level", [
    pytest.param(*p.values, 30, id=f"{p.id}-30", marks=p.marks) for p in VARIANTS] + [
    pytest.param(p.values[0], False, 27, id=f"{p.id}-uint8-27", marks=p.marks) for p in NAMES_BEFORE_API_29])
def test_as_close_to_convert_pt2e_as_xnnpack(name, signed, level):
    """The yardstick of what an integer implementation gets (the module's docstring): ExecuTorch's
    XNNPACK delegate on the same model quantized with XNNPACKQuantizer, in the same run. Long tier
    (tests/long_tier.py): its XNNPACK lowering is ~two thirds of a model's time."""
    gm, _ = quantized(name, signed, level)
    margin = MARGIN_DECOMPOSED_HARDSWISH if level < 30 and "HARD_SWISH" in MODELS[name] else MARGIN
    assert_as_close_as_xnnpack(name, gm, host_output(name, signed, level), per_tensor=level < 29, margin=margin)


@pytest.mark.parametrize("name, signed", VARIANTS)
def test_layers_differ_from_convert_pt2e_only_at_rounding_ties(name, signed):
    """Each layer fed convert_pt2e's input codes: NNAPI's codes are within one step,
    and every difference is a rounding tie; the replay chained through the model is
    the host's result bit for bit."""
    gm, low = quantized(name, signed, 30)
    # The first held-out input (the items of a batch are computed independently, so the host's
    # row 0 is its batch-of-one result). Not yet explained: on 7 of the 128 held-out inputs of
    # resnet18 the chained replay and the host differ (also with every accumulation in float64).
    x = held_out()[:1]
    assert torch.equal(integer_replay.chained(gm, x), host_output(name, signed, 30)[:1])
    replayed = integer_replay.layers(gm, x)
    # Every CONV / DEPTHWISE / FC / ADD / MUL / HARD_SWISH / AVERAGE_POOL is replayed (MAX_POOL copies codes).
    assert len(replayed) >= sum(n for op, n in MODELS[name].items() if op != "MAX_POOL_2D")
    for layer, expected in replayed:
        diff = layer.nnapi - expected
        assert diff.abs().max() <= 1, layer.name
        off_tie = (layer.exact - layer.exact.floor() - 0.5).abs()[diff != 0]
        assert off_tie.numel() == 0 or off_tie.max() <= TIE, (layer.name, off_tie.max().item())
