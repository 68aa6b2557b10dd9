"""3-D convolutions as CONV_2D per tap of one spatial axis, summed (lowering/builders/conv3d.py):
exact against eager at API 28 and 30, and timm's lambda layer (lambda_resnet26t's position
lambdas: a (r, r, 1) Conv3d over [B, 1, H, W, V]), whose .pte failed at run time with 0x12
(ExecuTorch's portable convolution takes 3-D or 4-D inputs only) with NNAPI and XNNPACK alike."""

from __future__ import annotations

import pytest
import torch
from timm.layers.lambda_layer import LambdaLayer

from op_harness import check_delegated_and_matches, lower

CASES = {
    "3x3x3_padded": (torch.nn.Conv3d(2, 4, 3, padding=1), (2, 2, 5, 6, 7)),
    "lambda_r_r_1": (torch.nn.Conv3d(1, 4, (3, 3, 1), padding=(1, 1, 0)), (1, 1, 5, 6, 7)),
    "depth_kernel_1": (torch.nn.Conv3d(3, 4, (1, 3, 3), padding=(0, 1, 1), bias=False), (1, 3, 5, 6, 7)),
    "strided_dilated_depth": (torch.nn.Conv3d(3, 4, (3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1),
                                              dilation=(2, 1, 1)), (1, 3, 9, 6, 7)),
}


@pytest.mark.parametrize("level", [28, 30])
@pytest.mark.parametrize("case", sorted(CASES))
def test_conv3d_is_conv2d_per_tap_equal_to_eager(case, level):
    torch.manual_seed(0)
    module, shape = CASES[case]
    kernel_taps = module.kernel_size[0] if module.kernel_size[2] != 1 else 1
    lowered = check_delegated_and_matches(module.eval(), (torch.randn(shape),), feature_level=level, tolerance=1e-5)
    assert lowered.nnapi_operations.count("CONV_2D") == kernel_taps
    assert lowered.nnapi_operations.count("ADD") == kernel_taps - 1


def test_conv3d_dilated_on_a_convolved_axis_needs_api_29():
    module = torch.nn.Conv3d(2, 2, 3, dilation=(1, 2, 1), padding=1)
    x = torch.randn(1, 2, 4, 7, 5)
    (reason,) = lower(module.eval(), (x,), feature_level=28).reasons["aten.convolution.default"]
    assert "dilated 3-D convolution" in reason and "needs API 29" in reason, reason
    check_delegated_and_matches(module.eval(), (x,), feature_level=29, tolerance=1e-5)


def test_timm_lambda_layer_runs_with_its_position_lambdas_on_nnapi():
    torch.manual_seed(0)
    layer = LambdaLayer(16, 16, r=3, num_heads=2, dim_head=4).eval()
    x = torch.randn(1, 16, 6, 6)
    # The lambdas' rank-5 views and permutes around the convolution stay on the CPU (with reasons).
    lowered = check_delegated_and_matches(layer, (x,), allow_cpu_ops=["view_copy", "permute_copy", "expand_copy",
                                                                      "_clone_dim_order"], tolerance=1e-4)
    assert "aten.convolution.default" not in lowered.reasons
