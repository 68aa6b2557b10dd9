"""Quantized torchvision mobilenet_v2 and resnet18 (NnapiQuantizer, calibrated on random inputs)
lowered whole to NNAPI and run on the host driver.

Why the comparison with convert_pt2e is by SQNR and not "within one step":
the host computes NNAPI's integer arithmetic (multiplier + shift with double
rounding, nnapi-reference §7.3), so where convert_pt2e's float value lies
within about 0.01 step of a rounding boundary, a conforming device rounds the
other way (~0.2% of the first layer's elements, every one of them a near-tie).
Those one-step differences propagate through 50 layers of a random-weight
network, so the logits of the two differ by several steps; what must hold is
that the integer result is as close to the float model as convert_pt2e's.
The first block, before the differences compound, is within one step.
"""

from __future__ import annotations

import pytest
import torch

from op_harness import lower, run_pte
from test_model_zoo import build
from test_quantized_ops import output_step, quantize, quantized_inside

pytestmark = pytest.mark.slow


def sqnr(reference: torch.Tensor, actual: torch.Tensor) -> float:
    """Signal-to-quantization-noise ratio of ``actual`` against ``reference``, in dB."""
    return 10 * torch.log10(reference.pow(2).sum() / (reference - actual).pow(2).sum()).item()


# Per model: the NNAPI operations the one partition must hold (besides QUANTIZE / DEQUANTIZE).
MODELS = {
    "mobilenet_v2": {"CONV_2D": 35, "DEPTHWISE_CONV_2D": 17, "ADD": 10, "AVERAGE_POOL_2D": 1, "FULLY_CONNECTED": 1},
    "resnet18": {"CONV_2D": 20, "ADD": 8, "MAX_POOL_2D": 1, "AVERAGE_POOL_2D": 1, "FULLY_CONNECTED": 1},
}


@pytest.mark.parametrize("signed", [pytest.param(False, id="uint8"), pytest.param(True, id="int8")])
@pytest.mark.parametrize("name", list(MODELS))
def test_model_quantized(name, signed):
    model, size = build(name)
    example = (torch.randn(1, 3, size, size),)
    gm = quantize(model, example, signed=signed, calibration=4)
    low = lower(gm, example)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    ops = quantized_inside(low.raw_blobs[0])
    assert ops.count("QUANTIZE") == 1 and ops.count("DEQUANTIZE") == 1
    assert {op: ops.count(op) for op in MODELS[name]} == MODELS[name]
    torch.manual_seed(5)
    held_out = torch.randn(1, 3, size, size)
    expected, actual, float_out = gm(held_out), run_pte(low.pte, [held_out])[0], model(held_out)
    assert sqnr(float_out, actual) >= sqnr(float_out, expected) - 1.0
    assert sqnr(expected, actual) > 15.0  # the host and convert_pt2e agree far beyond the float model's noise


@pytest.mark.parametrize("signed", [pytest.param(False, id="uint8"), pytest.param(True, id="int8")])
def test_mobilenet_v2_first_block_within_one_step(signed):
    model, size = build("mobilenet_v2")
    block = model.features[:2].eval()
    example = (torch.randn(1, 3, size, size),)
    gm = quantize(block, example, signed=signed, calibration=4)
    low = lower(gm, example)
    assert low.cpu_ops == [] and low.num_delegates == 1
    quantized_inside(low.raw_blobs[0])
    torch.manual_seed(5)
    held_out = torch.randn(1, 3, size, size)
    err = (run_pte(low.pte, [held_out])[0] - gm(held_out)).abs().max().item()
    assert err <= output_step(gm) * 1.0001
