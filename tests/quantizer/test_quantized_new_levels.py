"""8-bit forms of the operations of feature levels 6 and 7: REVERSE (flip), MIRROR_PAD (reflection
padding) and PACK (stack) keep their input's scale and zero point, so NnapiQuantizer shares it
(the declarations on their builders) and the partition runs them on the 8-bit codes. Each op is
quantized after a convolution, lowered, run on the host driver and compared with convert_pt2e
(within one output step, uint8 and int8); below its level the quantizer leaves it float."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import executorch.kernels.quantized  # noqa: F401  (CPU kernels of the quantize / dequantize NNAPI leaves)
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from op_harness import AfterConv, lower, run_pte
from quantized_reference import output_step, quantize, quantized_inside

SIGNEDNESS = [pytest.param(False, id="uint8"), pytest.param(True, id="int8")]


class TwoLinearsStacked(torch.nn.Module):
    """stack of two linear layers' outputs; NnapiQuantizer gives both one scale."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = torch.nn.Linear(5, 4), torch.nn.Linear(5, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([self.a(x), self.b(x)], 1)


OPS = {
    "flip": (lambda y: torch.flip(y, [2, 3]), "REVERSE", FeatureLevel.FEATURE_LEVEL_7),
    "reflection_pad": (lambda y: F.pad(y, (1, 2, 2, 1), mode="reflect"), "MIRROR_PAD", FeatureLevel.FEATURE_LEVEL_7),
    "stack": (None, "PACK", FeatureLevel.FEATURE_LEVEL_6),
}


def _model(fn) -> tuple[torch.nn.Module, tuple]:
    if fn is None:
        return TwoLinearsStacked(), (torch.randn(3, 5),)
    return AfterConv(fn), (torch.randn(1, 3, 6, 6),)


@pytest.mark.parametrize("signed", SIGNEDNESS)
@pytest.mark.parametrize("kind", list(OPS))
def test_8_bit_at_its_level(kind, signed) -> None:
    fn, operation, level = OPS[kind]
    torch.manual_seed(0)
    model, example = _model(fn)
    gm = quantize(model, example, signed=signed, feature_level=level)
    low = lower(gm, example, feature_level=level)
    assert low.cpu_ops == [] and low.num_delegates == 1, (low.cpu_ops, low.reasons)
    ops = quantized_inside(low.raw_blobs[0])
    assert operation in ops, ops
    step = output_step(gm)
    err = (run_pte(low.pte, list(example), level)[0] - gm(*example)).abs().max().item()
    assert err <= step * 1.0001, f"max error {err} > one step {step}"


@pytest.mark.parametrize("kind", list(OPS))
def test_below_its_level_the_quantizer_leaves_it_float(kind) -> None:
    fn, operation, level = OPS[kind]
    below = FeatureLevel.ANDROID_12 if level == FeatureLevel.FEATURE_LEVEL_6 else FeatureLevel.FEATURE_LEVEL_6
    model, example = _model(fn)
    gm = quantize(model, example, signed=False, feature_level=below)
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    op_index = next(i for i, t in enumerate(targets) if t.split(".")[1] in ("flip", "pad", "stack"))
    # No quantize after the op: its result is float (the conv's dequantize feeds it).
    assert not any("quantize_per_tensor" in t for t in targets[op_index + 1:]), targets


def test_quantizer_takes_android_api_levels() -> None:
    """NnapiQuantizer(feature_level=34) targets feature level 8: REVERSE's 8-bit form (level 7) applies."""
    from executorch_nnapi.quantizer import NnapiQuantizer

    assert NnapiQuantizer(feature_level=34).feature_level == FeatureLevel.FEATURE_LEVEL_8
    fn, _, _ = OPS["flip"]
    model, example = _model(fn)
    gm = quantize(model, example, signed=True, feature_level=34)
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    after_flip = targets[targets.index("aten.flip.default") + 1:]
    assert after_flip and "quantize_per_tensor" in after_flip[0], targets
