"""Core op builders alone: convolution family, linear / addmm / mm, relu / relu6 /
hardtanh / clamp, add / sub / mul / div, mean, view / reshape / flatten, batch norm.
Each is lowered alone, checked delegated, run through the C++ backend on the host
driver and compared with eager."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower


def randn(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g)


def conv(cin, cout, k, **kw):
    torch.manual_seed(cin * 7 + cout)
    return torch.nn.Conv2d(cin, cout, k, **kw).eval()


CONVOLUTIONS = [
    ("plain", conv(3, 8, 3), "CONV_2D", 30),
    ("stride_padding", conv(3, 8, 3, stride=2, padding=1), "CONV_2D", 27),
    ("asymmetric_kernel_no_bias", conv(4, 6, (1, 5), padding=(0, 2), bias=False), "CONV_2D", 27),
    ("dilation", conv(3, 4, 3, dilation=2, padding=2), "CONV_2D", 29),
    ("depthwise", conv(8, 8, 3, groups=8, padding=1), "DEPTHWISE_CONV_2D", 27),
    ("depthwise_multiplier", conv(4, 8, 3, groups=4), "DEPTHWISE_CONV_2D", 27),
    ("grouped", conv(8, 12, 3, groups=4, padding=1), "GROUPED_CONV_2D", 29),
]


@pytest.mark.parametrize("module, operation, level", [c[1:] for c in CONVOLUTIONS], ids=[c[0] for c in CONVOLUTIONS])
def test_convolution(module, operation, level):
    x = randn(1, module.in_channels, 11, 9)
    check_delegated_and_matches(module, (x,), feature_level=level, expect_operations=[operation])


@pytest.mark.parametrize("stride, padding, output_padding", [(2, 0, 0), (2, 1, 1), (1, 1, 0), (3, 2, 1)])
def test_transposed_convolution(stride, padding, output_padding):
    torch.manual_seed(stride)
    module = torch.nn.ConvTranspose2d(4, 3, 3, stride=stride, padding=padding, output_padding=output_padding).eval()
    check_delegated_and_matches(module, (randn(1, 4, 5, 6),), feature_level=29, expect_operations=["TRANSPOSE_CONV_2D"])


def test_convolution_with_batch_norm_is_folded():
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm2d(8)
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    bn.weight.data.uniform_(0.5, 1.5)
    model = torch.nn.Sequential(conv(3, 8, 3), bn.eval(), torch.nn.ReLU6()).eval()
    lowered = check_delegated_and_matches(model, (randn(2, 3, 10, 10),))
    assert lowered.nnapi_operations == ["CONV_2D"]  # BN folded, relu6 fused


def test_standalone_batch_norm():
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm2d(3).eval()
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    lowered = check_delegated_and_matches(bn, (randn(2, 3, 4, 5),))
    assert lowered.nnapi_operations == ["MUL", "ADD"]


def test_linear_2d_3d_and_no_bias():
    torch.manual_seed(0)
    a, b = torch.nn.Linear(6, 5), torch.nn.Linear(5, 4, bias=False)
    model = Lambda(lambda x, y: (a(x), b(F.relu(a(y)))))
    lowered = check_delegated_and_matches(model, (randn(3, 6), randn(2, 7, 6)))
    assert lowered.nnapi_operations.count("FULLY_CONNECTED") == 3


def test_linear_with_dynamic_batch():
    torch.manual_seed(0)
    lin = torch.nn.Linear(6, 5)
    check_delegated_and_matches(Lambda(lambda x: lin(x)), (randn(4, 6),),
                                dynamic_shapes={"args": ({0: Dim("batch", min=1, max=64)},)},
                                run_inputs=[(randn(1, 6),), (randn(64, 6),), (randn(17, 6),)])


def test_addmm_and_mm():
    w, bias = randn(6, 5), randn(5)
    model = Lambda(lambda x, y: (torch.addmm(bias, x, w), torch.mm(x, y)))
    lowered = check_delegated_and_matches(model, (randn(3, 6), randn(6, 4)))
    assert lowered.nnapi_operations.count("FULLY_CONNECTED") == 2


@pytest.mark.parametrize("fn, operation", [
    (F.relu, "RELU"), (F.relu6, "RELU6"), (lambda t: F.hardtanh(t), "RELU1"),
    (lambda t: F.hardtanh(t, -2.0, 3.0), "MAXIMUM"), (lambda t: t.clamp(0.0, 6.0), "RELU6"),
    (lambda t: t.clamp(min=-0.5), "MAXIMUM"), (lambda t: t.clamp(max=0.25), "MINIMUM"),
    (lambda t: t.clamp(-1.0, 1.0), "RELU1"), (lambda t: t.clamp(min=0.0), "RELU"),
], ids=["relu", "relu6", "hardtanh", "hardtanh_bounds", "clamp_0_6", "clamp_min", "clamp_max", "clamp_1",
        "clamp_relu"])
def test_activation_alone(fn, operation):
    check_delegated_and_matches(Lambda(fn), (randn(2, 3, 4, 5) * 4,), expect_operations=[operation])


def test_activation_is_fused_into_convolution():
    model = torch.nn.Sequential(conv(3, 4, 3), torch.nn.Hardtanh(0.0, 6.0))
    lowered = check_delegated_and_matches(model, (randn(1, 3, 6, 6) * 3,))
    assert lowered.nnapi_operations == ["CONV_2D"]


BINARY = [
    ("add", lambda a, b: a + b, "ADD"), ("sub", lambda a, b: a - b, "SUB"),
    ("mul", lambda a, b: a * b, "MUL"), ("div", lambda a, b: a / b, "DIV"),
]


@pytest.mark.parametrize("fn, operation", [c[1:] for c in BINARY], ids=[c[0] for c in BINARY])
def test_binary_with_broadcasting_and_scalars(fn, operation):
    const = randn(4, 1)
    model = Lambda(lambda x, y: (fn(x, y), fn(x, 2.5), fn(3.0, x), fn(y, x), fn(x, const)))
    # Inputs away from zero so that division is well conditioned.
    x, y = randn(2, 3, 4, 5).abs() + 0.5, randn(4, 5).abs() + 0.5
    check_delegated_and_matches(model, (x, y), expect_operations=[operation])


def test_add_and_sub_with_alpha():
    model = Lambda(lambda x, y: (torch.add(x, y, alpha=2.0), torch.sub(x, y, alpha=0.5), torch.add(x, 1.0, alpha=3)))
    check_delegated_and_matches(model, (randn(2, 3), randn(2, 3)))


def test_binary_on_nhwc_values_with_per_channel_constant():
    c = conv(3, 4, 1)
    scale = randn(4, 1, 1)
    lowered = check_delegated_and_matches(Lambda(lambda x: F.relu(c(x) * scale + c(x))), (randn(1, 3, 5, 5),))
    assert "TRANSPOSE" not in lowered.nnapi_operations


def test_mean_variants():
    model = Lambda(lambda x: (x.mean(dim=1), x.mean(dim=(-1, -2), keepdim=True), x.mean(dim=[0, 2])))
    check_delegated_and_matches(model, (randn(2, 3, 4, 5),), expect_operations=["MEAN"])


def test_global_average_pool_after_convolution_stays_nhwc():
    c = conv(3, 6, 3)
    lowered = check_delegated_and_matches(Lambda(lambda x: c(x).mean((2, 3))), (randn(1, 3, 7, 7),))
    assert "TRANSPOSE" not in lowered.nnapi_operations


@pytest.mark.parametrize("keepdim", [True, False])
def test_spatial_mean_at_api_27_is_a_whole_image_average_pool(keepdim):
    c = conv(3, 6, 3)
    model = Lambda(lambda x: F.relu(c(x)).mean((2, 3), keepdim=keepdim) * 2)
    lowered = check_delegated_and_matches(model, (randn(2, 3, 7, 9),), feature_level=27)
    assert "AVERAGE_POOL_2D" in lowered.nnapi_operations and "MEAN" not in lowered.nnapi_operations
    assert "TRANSPOSE" not in lowered.nnapi_operations


def test_a_mean_over_consecutive_dims_at_api_27_is_an_average_pool_of_a_view():
    # [before, reduced, 1, after] pooled over the reduced span (a rank-5 mean rewritten on a view
    # reaches the builder in this form), every dim, and the 0-d result.
    model = Lambda(lambda x: (x.mean(dim=1) + 1, x.mean((1, 2), keepdim=True), x.mean(-1), x.mean()))
    lowered = check_delegated_and_matches(model, (randn(2, 3, 4, 5),), feature_level=27)
    assert lowered.nnapi_operations.count("AVERAGE_POOL_2D") == 4 and "MEAN" not in lowered.nnapi_operations


def test_other_means_need_api_28():
    lowered = lower(Lambda(lambda x: x.mean(dim=[0, 2]) + 1), (randn(2, 3, 4, 5),), feature_level=27)
    assert lowered.reasons["aten.mean.dim"] == ["mean (MEAN) needs API 28 (Android 9); the target is API 27 (Android 8.1)"]


def test_squeeze_excite_scale_changes_layout_by_reshape():
    # [N, C, 1, 1] has the same bytes in NHWC and NCHW: moving it between orders is a RESHAPE.
    c, fc = conv(4, 8, 3, padding=1), conv(8, 8, 1)
    ones = randn(1, 8, 1, 1)

    def squeeze_excite(x):
        y = c(x)
        scale = torch.sigmoid(fc(y.mean((2, 3), keepdim=True)))
        return y * (ones * scale).view(1, 8, 1, 1).contiguous(), scale.flatten(1)

    for level in (27, 30):
        lowered = check_delegated_and_matches(Lambda(squeeze_excite), (randn(1, 4, 6, 6),), feature_level=level)
        assert "TRANSPOSE" not in lowered.nnapi_operations, (level, lowered.nnapi_operations)


def test_partition_input_read_in_nhwc_is_declared_nhwc():
    # erf stays on the CPU; its result enters the partition already permuted to NHWC by
    # the runtime, because the partition pools it (through relu, which keeps any order).
    c = conv(4, 4, 3, padding=1)
    model = Lambda(lambda x: F.max_pool2d(F.relu(torch.erf(x)), 2) + F.max_pool2d(c(x), 2))
    for level in (27, 30):
        lowered = check_delegated_and_matches(model, (randn(1, 4, 6, 6),), feature_level=level,
                                              allow_cpu_ops=["erf"])
        assert "TRANSPOSE" not in lowered.nnapi_operations, (level, lowered.nnapi_operations)


def test_view_reshape_flatten():
    model = Lambda(lambda x: (x.view(6, 20), x.reshape(2, -1), torch.flatten(x, 1), x.reshape(2, 3, 20)))
    check_delegated_and_matches(model, (randn(2, 3, 4, 5),), expect_operations=["RESHAPE"])


def test_flatten_of_nhwc_activation_is_transposed_first():
    c = conv(3, 4, 3)
    lowered = check_delegated_and_matches(Lambda(lambda x: torch.flatten(c(x), 1)), (randn(1, 3, 6, 6),))
    assert lowered.nnapi_operations.count("TRANSPOSE") == 1  # NHWC memory order differs from NCHW


def test_reshape_with_dynamic_dims():
    model = Lambda(lambda x: F.relu(x).reshape(x.shape[0], -1))
    check_delegated_and_matches(model, (randn(3, 4, 5),),
                                dynamic_shapes={"args": ({0: Dim("n", min=2, max=16), 1: Dim("m", min=2, max=16)},)},
                                run_inputs=[(randn(3, 4, 5),), (randn(16, 2, 5),), (randn(7, 9, 5),)])
