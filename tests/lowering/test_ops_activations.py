"""Activation and elementwise-math builders.

Each builder's op is lowered alone (the variants of one op share a module, and
every module takes a 4-D input through a convolution, so the NHWC dim-order
path is used, plus a 2-D input), runs through the C++ backend on the host
driver and is compared with eager PyTorch. Version-gated ops are also lowered
at feature levels below their NNAPI operation: either the decomposed form runs
on a driver of that level, or the node stays on the CPU with "needs API N".
One lowering costs a few seconds, hence the grouping.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower, relative_max_error, run_pte

_GEN = torch.Generator().manual_seed(0)


def randn(*shape: int, scale: float = 1.0) -> torch.Tensor:
    """Reproducible normal samples times ``scale`` (larger scales reach the activations' tails)."""
    return torch.randn(*shape, generator=_GEN) * scale


def positive(t: torch.Tensor) -> torch.Tensor:
    """t² + 0.25 (MUL, ADD): keeps SQRT / RSQRT / fractional POW inside their domain."""
    return t * t + 0.25


def _conv(cin: int, cout: int) -> torch.nn.Conv2d:
    """A 3x3 'same' convolution with reproducible weights."""
    conv = torch.nn.Conv2d(cin, cout, 3, padding=1)
    with torch.no_grad():
        for p in conv.parameters():
            p.copy_(randn(*p.shape, scale=0.5))
    return conv


class ConvThen(torch.nn.Module):
    """``fn`` on a convolution's output (NHWC inside NNAPI) and on a 2-D input.

    ``fn`` may return one tensor or a tuple of variants; the outputs are flattened.
    """

    def __init__(self, fn) -> None:
        super().__init__()
        self.conv = _conv(3, 4)
        self.fn = fn

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        outs = []
        for r in (self.fn(self.conv(x)), self.fn(y)):
            outs.extend(r if isinstance(r, tuple) else (r,))
        return tuple(outs)


def conv_inputs(scale: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs of ConvThen: an NCHW image and a 2-D tensor."""
    return randn(2, 3, 5, 6, scale=scale), randn(4, 7, scale=scale)


class PreluModule(torch.nn.Module):
    """Per-channel PReLU on NHWC (after conv), on rank 2 and rank 3 inputs; a single-weight PReLU;
    leaky_relu (also PRELU, with a [1] alpha)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = _conv(3, 4)
        self.per_channel4 = torch.nn.PReLU(4)
        self.per_channel7 = torch.nn.PReLU(7)
        self.single = torch.nn.PReLU()
        with torch.no_grad():
            # Distinct weights per channel: a wrongly placed alpha gives wrong values.
            self.per_channel4.weight.copy_(torch.tensor([-0.5, 0.1, 0.25, 2.0]))
            self.per_channel7.weight.copy_(torch.linspace(-1.0, 1.5, 7))

    def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor):
        t = self.conv(x)
        return (self.per_channel4(t), self.single(t), self.per_channel7(y), self.per_channel7(z), self.single(y),
                F.leaky_relu(t), F.leaky_relu(t, 0.2), F.leaky_relu(y, 0.2))


class MaxMinModule(torch.nn.Module):
    """maximum / minimum with an NCHW input against an NHWC value, a constant and broadcasting."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = _conv(3, 4)
        self.register_buffer("per_channel", torch.tensor([-0.3, 0.0, 0.2, 0.5]).reshape(4, 1, 1))
        self.register_buffer("one_half", torch.tensor(0.5))

    def forward(self, x: torch.Tensor, z: torch.Tensor, y: torch.Tensor, v: torch.Tensor):
        t = self.conv(x)
        return (torch.maximum(t, z), torch.minimum(t, self.per_channel), torch.minimum(z, t),
                torch.maximum(y, v), torch.minimum(y, self.one_half), torch.maximum(v, y))


class SoftmaxModule(torch.nn.Module):
    """softmax / log_softmax over the channel dim of an NHWC value (physically last), over W
    (not last, needs the axis input), over both dims of a 2-D input and over a rank-3 input."""

    def __init__(self, log: bool = True) -> None:
        super().__init__()
        self.conv = _conv(3, 4)
        self.log = log

    def forward(self, x: torch.Tensor, y: torch.Tensor, s: torch.Tensor):
        t = self.conv(x)
        outs = [torch.softmax(t, 1), torch.softmax(t, -1), torch.softmax(y, 0), torch.softmax(y, 1),
                torch.softmax(s, 1)]
        if self.log:
            outs += [torch.log_softmax(t, 1), torch.log_softmax(t, 3), torch.log_softmax(y, 0),
                     torch.log_softmax(s, -1)]
        return tuple(outs)


def softmax_inputs() -> tuple[torch.Tensor, ...]:
    """Inputs of SoftmaxModule (scaled so that the distributions are not flat)."""
    return randn(2, 3, 5, 6, scale=2.0), randn(4, 7, scale=3.0), randn(2, 3, 4)


# (id, module, inputs, NNAPI operations that must appear, TRANSPOSEs) -- all at feature level 30.
# The TRANSPOSE count shows the op worked on the NHWC value: the runtime permutes the
# delegate's inputs and outputs, so none is needed unless two layouts meet inside.
ALONE = [
    ("sigmoid_silu", ConvThen(lambda t: (torch.sigmoid(t), F.silu(t))), conv_inputs(3.0), ["LOGISTIC", "MUL"], 0),
    ("tanh", ConvThen(torch.tanh), conv_inputs(2.0), ["TANH"], 0),
    # hardsigmoid is hardswish's gate (same builder code): one lowering for both.
    ("hardswish_hardsigmoid", ConvThen(lambda t: (F.hardswish(t), F.hardsigmoid(t))), conv_inputs(4.0),
     ["HARD_SWISH", "ADD", "MUL"], 0),
    ("gelu_tanh", ConvThen(lambda t: F.gelu(t, approximate="tanh")), conv_inputs(3.0), ["TANH", "MUL", "ADD"], 0),
    # Exact gelu: erfc composed from ABS / MINIMUM / EXP / DIV (lowering/builders/gelu.py).
    ("gelu_exact", ConvThen(F.gelu), conv_inputs(3.0), ["ABS", "MINIMUM", "EXP", "DIV", "RELU"], 0),
    ("elu", ConvThen(lambda t: (F.elu(t), F.elu(t, 0.3))), conv_inputs(2.0), ["ELU"], 0),
    ("prelu_leaky_relu", PreluModule(), (*conv_inputs(), randn(2, 7, 5)), ["PRELU"], 0),
    ("abs_neg_exp_sqrt_rsqrt_sin",
     ConvThen(lambda t: (torch.abs(t), torch.neg(t), torch.exp(t), torch.sqrt(positive(t)),
                         torch.rsqrt(positive(t)), torch.sin(t))),
     conv_inputs(), ["ABS", "NEG", "EXP", "SQRT", "RSQRT", "SIN"], 0),
    ("pow", ConvThen(lambda t: (t ** 2, positive(t) ** 0.5, t ** 3, positive(t) ** -1.5)),
     conv_inputs(), ["MUL", "SQRT", "POW"], 0),
    # z, combined with the NHWC t, enters the partition in NHWC: no TRANSPOSE either way round.
    ("maximum_minimum", MaxMinModule(), (randn(2, 3, 5, 6), randn(2, 4, 5, 6), randn(4, 7), randn(7)),
     ["MAXIMUM", "MINIMUM"], 0),
    ("softmax_log_softmax", SoftmaxModule(), softmax_inputs(), ["SOFTMAX", "LOG_SOFTMAX"], 0),
]


@pytest.mark.parametrize("module, inputs, operations, transposes", [c[1:] for c in ALONE],
                         ids=[c[0] for c in ALONE])
def test_op_alone_is_delegated_and_matches(module, inputs, operations, transposes):
    lowered = check_delegated_and_matches(module, inputs, expect_operations=[*operations, "CONV_2D"])
    assert lowered.nnapi_operations.count("TRANSPOSE") == transposes, lowered.nnapi_operations


# --- below the NNAPI operation's feature level: the decomposed form runs on a driver of that level ---

DECOMPOSED = [
    # (id, feature level, module, inputs, operations that must appear, operations that must not)
    # hardswish: ADD (fused RELU6) + MUL; elu: MINIMUM / EXP / ADD / MUL / RELU / ADD.
    ("hardswish_elu_api29", 29, ConvThen(lambda t: (F.hardswish(t), F.elu(t), F.elu(t, 0.3))), conv_inputs(3.0),
     ["ADD", "MUL", "MINIMUM", "EXP", "RELU"], ["HARD_SWISH", "ELU"]),
    # No axis operand before API 29: the softmax dim is transposed to the end.
    ("softmax_api28", 28, SoftmaxModule(log=False),
     (randn(2, 3, 5, 6, scale=2.0), randn(4, 7, scale=3.0), randn(2, 3, 4, 5)), ["SOFTMAX", "TRANSPOSE"], []),
]


@pytest.mark.parametrize("level, module, inputs, present, absent", [c[1:] for c in DECOMPOSED],
                         ids=[c[0] for c in DECOMPOSED])
def test_decomposed_below_operation_level(level, module, inputs, present, absent):
    lowered = check_delegated_and_matches(module, inputs, feature_level=level, expect_operations=present)
    for name in absent:
        assert name not in lowered.nnapi_operations, lowered.nnapi_operations
    assert all(b.min_feature_level <= level for b in lowered.blobs)


def test_api27_forms_run_on_an_api27_driver():
    # No convolution: its layout TRANSPOSE needs API 28.
    module = Lambda(lambda y: (torch.sigmoid(y), torch.tanh(y), F.hardswish(y), F.hardsigmoid(y),
                               F.gelu(y, approximate="tanh"), F.silu(y), y ** 2, torch.softmax(y, -1)))
    lowered = check_delegated_and_matches(module, (randn(4, 7, scale=3.0),), feature_level=27,
                                          expect_operations=["LOGISTIC", "TANH", "SOFTMAX", "ADD", "MUL"])
    assert [b.min_feature_level for b in lowered.blobs] == [27]


# --- dynamic shapes ---

def test_dynamic_batch_and_spatial_dims():
    batch, h = Dim("batch", min=2, max=8), Dim("h", min=2, max=16)
    prelu = PreluModule()

    def fn(x, y):
        t = prelu.conv(x)
        return (F.gelu(t, approximate="tanh"), torch.softmax(t, 1), F.hardswish(t), prelu.per_channel4(t),
                torch.log_softmax(y, 0), torch.maximum(y, y * 0.5), y ** 3)

    module = Lambda(fn)
    module.prelu = prelu  # registers the parameters
    runs = [(randn(b, 3, hh, 6), randn(b, 7)) for b, hh in [(2, 5), (3, 2), (8, 16)]]
    lowered = check_delegated_and_matches(module, runs[0], run_inputs=runs,
                                          dynamic_shapes=(({0: batch, 2: h}, {0: batch}),),
                                          expect_operations=["TANH", "SOFTMAX", "HARD_SWISH", "PRELU",
                                                             "LOG_SOFTMAX", "MAXIMUM", "POW"])
    assert lowered.blobs[0].symbols, "the blob has no symbolic dims"


# --- refusals: the node stays on the CPU with the reason ---

class BelowApi29(torch.nn.Module):
    """Every op of this file that needs API 29 (at API 28 they stay on the CPU or, for prelu,
    are decomposed by to_edge into ops that run partly on the CPU)."""

    def __init__(self) -> None:
        super().__init__()
        self.prelu = torch.nn.PReLU(7)

    def forward(self, y: torch.Tensor, s: torch.Tensor):
        p = positive(y)
        return (torch.abs(y), torch.neg(y), torch.exp(y), torch.sqrt(p), torch.rsqrt(p), torch.sin(y),
                F.leaky_relu(y, 0.2), F.elu(y), torch.maximum(y, s), torch.minimum(y, s), torch.log_softmax(y, 1),
                y ** 3, p ** 0.5, torch.softmax(s.reshape(1, 1, 7), 2), self.prelu(y))


API29_OPS = ["aten.abs.default", "aten.neg.default", "aten.exp.default", "aten.sqrt.default", "aten.rsqrt.default",
             "aten.sin.default",
             "aten.leaky_relu.default", "aten.elu.default", "aten.maximum.default", "aten.minimum.default",
             "aten._log_softmax.default", "aten.pow.Tensor_Scalar", "aten._softmax.default"]


def test_api29_ops_stay_on_cpu_at_api28_and_the_program_still_runs():
    module = BelowApi29().eval()
    inputs = (randn(4, 7), randn(7))
    lowered = lower(module, inputs, feature_level=28)
    reasons = lowered.reasons
    for op in API29_OPS:
        assert op in lowered.cpu_ops, f"{op} was delegated at API 28"
        assert reasons.get(op) and all("needs API 29" in r for r in reasons[op]), (op, reasons.get(op))
    assert not any("PRELU" in b.operation_types for b in lowered.blobs)
    # The CPU/NNAPI mix (MUL / ADD delegated around the CPU ops) computes the same values.
    outputs = run_pte(lowered.pte, inputs, feature_level=28)
    with torch.no_grad():
        expected = module(*inputs)
    for got, want in zip(outputs, expected):
        assert relative_max_error(got, want) < 1e-4


def test_refusals_with_specific_reasons():
    # prelu with a weight computed at run time: check refuses it, so to_edge decomposes it
    # (gt / where / mul, delegated as such) instead of keeping it whole for NNAPI.
    module = Lambda(lambda y, r, w: (F.gelu(y), F.selu(y), torch.softmax(r, 1), torch.prelu(y, w)))
    inputs = (randn(4, 7), randn(1, 2, 3, 2, 2), randn(7))
    lowered = lower(module, inputs, feature_level=30)
    reasons = lowered.reasons
    # Exact gelu is delegated since API 29 (erf composed from EXP etc.; tests/lowering/test_gelu_erf.py).
    assert "aten.gelu.default" not in lowered.cpu_ops
    assert "NNAPI's ELU has alpha only" in reasons["aten.elu.default"][0]
    assert "rank 5" in reasons["aten._softmax.default"][0]
    assert "aten.prelu.default" not in lowered.cpu_ops
    assert not any("PRELU" in b.operation_types for b in lowered.blobs)
    outputs = run_pte(lowered.pte, inputs)
    with torch.no_grad():
        expected = module(*inputs)
    for got, want in zip(outputs, expected):
        assert relative_max_error(got, want) < 1e-4
