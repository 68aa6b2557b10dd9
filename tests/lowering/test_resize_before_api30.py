"""F.interpolate(mode="bilinear") below API 30, where RESIZE_BILINEAR has no PyTorch mapping
(builders/bilinear_matrices.py): the interpolation matrices against PyTorch without NNAPI, then
each form lowered at API 27, 28 and 29, its NNAPI operations checked, run through the C++ backend
on the host driver set to that level (which refuses what the level lacks) and compared with eager.

Tolerance 1e-5 of the result's max: both sides add the same two weighted samples per axis in
float32 (NNAPI also adds exact zeros, and one-hot moves multiply by exactly 1.0), in other
orders, so they differ by a few 1e-7 of max |x|; a wrong weight or index moves the result by
1e-2 or more.
"""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

from op_harness import AfterConv, Lambda, check_delegated_and_matches, lower, relative_max_error

from executorch_nnapi.lowering.builders.bilinear_matrices import (
    MAX_WEIGHT_ELEMENTS, bilinear_matrix, matrix_resize_refusal)
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel

TOLERANCE = 1e-5
BILINEAR = "aten.upsample_bilinear2d.vec"


def bilinear(**kwargs) -> Lambda:
    return Lambda(lambda x: F.interpolate(x, mode="bilinear", **kwargs))


def test_matrices_are_pytorchs_bilinear_rule() -> None:
    """R_h . X . R_w^T equals F.interpolate for random sizes, both align_corners modes, by size
    and by (integer and non-integer) scale factor, up- and downsampling."""
    rng = random.Random(0)
    for _ in range(200):
        h, w = rng.randint(1, 12), rng.randint(1, 12)
        aligned = rng.random() < 0.5
        if rng.random() < 0.5:
            size = (rng.randint(1, 20), rng.randint(1, 20))
            kwargs, scales = {"size": size}, (None, None)
        else:
            scales = (rng.choice([0.5, 0.6, 1.1, 1.7, 2.0, 3.0]), rng.choice([0.75, 1.0, 1.5, 2.0, 2.5]))
            if int(h * scales[0]) < 1 or int(w * scales[1]) < 1:
                continue
            kwargs = {"scale_factor": scales}
        x = torch.randn(1, 2, h, w)
        want = F.interpolate(x, mode="bilinear", align_corners=aligned, **kwargs)
        oh, ow = want.shape[2:]
        rh, rw = (bilinear_matrix(n, o, aligned, None if aligned else s) for n, o, s in zip((h, w), (oh, ow), scales))
        got = torch.einsum("jh,nchw,kw->ncjk", rh, x, rw)
        assert relative_max_error(got, want) < TOLERANCE, (h, w, kwargs, aligned)


def test_matrix_rows_sum_to_one_with_two_neighbours_at_most() -> None:
    for n, o, aligned in [(16, 256, False), (33, 520, False), (7, 3, True), (5, 1, False), (1, 4, True)]:
        m = bilinear_matrix(n, o, aligned)
        assert torch.allclose(m.sum(1), torch.ones(o))
        assert int((m != 0).sum(1).max()) <= 2


def test_too_large_constants_are_refused_with_what_and_how_large() -> None:
    assert matrix_resize_refusal((16, 16), (256, 256), 21, False, FeatureLevel.ANDROID_8_1) is None
    # 64 channels 64 -> 8192 wide: the width product alone is 64 x 64 x 8192 = 2^25 elements.
    reason = matrix_resize_refusal((64, 64), (64, 8192), 64, True, FeatureLevel.ANDROID_9)
    assert reason and "width product" in reason and str(64 * 64 * 8192) in reason and "2^24" in reason
    # At API 27 the one-hot channel move (C x C x out: 512 x 512 x 65 > 2^24) is the large one.
    assert matrix_resize_refusal((4, 1), (4, 65), 512, True, FeatureLevel.ANDROID_9) is None
    moving = matrix_resize_refusal((4, 1), (4, 65), 512, True, FeatureLevel.ANDROID_8_1)
    assert moving and "channel move" in moving
    assert MAX_WEIGHT_ELEMENTS == 2**24


HEIGHT_AND_WIDTH_27 = ["DEPTHWISE_CONV_2D", "RESHAPE"] * 4       # product, one-hot move, product, one-hot move
HEIGHT_AND_WIDTH_28 = ["DEPTHWISE_CONV_2D", "RESHAPE", "TRANSPOSE"] * 2

CASES = [
    # (id, module, input shape, level, NNAPI operations)
    ("half_pixel_27", bilinear(size=(7, 5)), (1, 3, 4, 6), 27, HEIGHT_AND_WIDTH_27),
    ("align_corners_27", bilinear(size=(7, 5), align_corners=True), (1, 3, 4, 6), 27, HEIGHT_AND_WIDTH_27),
    ("half_pixel_28", bilinear(size=(7, 5)), (2, 3, 4, 6), 28, HEIGHT_AND_WIDTH_28),
    ("align_corners_29", bilinear(size=(9, 4), align_corners=True), (1, 2, 5, 6), 29, HEIGHT_AND_WIDTH_28),
    # 1 / 1.7 is not in / out (7 -> 11): PyTorch maps with 1 / scale_factor.
    ("non_integer_scale_factors_27", bilinear(scale_factor=(1.7, 0.6)), (1, 2, 7, 10), 27, HEIGHT_AND_WIDTH_27),
    ("downscale_28", bilinear(size=(3, 5)), (1, 3, 8, 8), 28, HEIGHT_AND_WIDTH_28),
    # One channel: a move is a RESHAPE.
    ("one_channel_27", bilinear(scale_factor=2), (2, 1, 5, 5), 27, ["DEPTHWISE_CONV_2D", "RESHAPE"] * 2),
    # The height kept: the width product reads [N, H, W, C] directly, one move.
    ("width_only_27", bilinear(size=(4, 9)), (1, 3, 4, 4), 27, ["DEPTHWISE_CONV_2D", "RESHAPE"] * 2),
    ("width_only_28", bilinear(size=(4, 9)), (1, 3, 4, 4), 28, ["DEPTHWISE_CONV_2D", "RESHAPE", "TRANSPOSE"]),
    # A kept width still takes its product (it is what puts W back before the height's axis).
    ("height_only_27", bilinear(size=(8, 5)), (1, 2, 3, 5), 27, HEIGHT_AND_WIDTH_27),
    # From API 28 a kept width takes no product: one TRANSPOSE puts the new height first.
    ("height_only_28", bilinear(size=(8, 5)), (1, 2, 3, 5), 28, ["DEPTHWISE_CONV_2D", "RESHAPE", "TRANSPOSE"]),
    ("same_size_27", bilinear(size=(5, 7)), (1, 3, 5, 7), 27, ["RESHAPE"]),
    # 8 x 1.1 stays 8: PyTorch copies an axis of unchanged size whatever the scale factor.
    ("unchanged_height_by_scale_factor_27", bilinear(scale_factor=(1.1, 1.7)), (1, 2, 8, 5), 27,
     ["DEPTHWISE_CONV_2D", "RESHAPE"] * 2),
    # A 1x1 source is a broadcast: TF1's RESIZE_BILINEAR (no flags) reads the one sample too.
    ("broadcast_1x1_27", bilinear(size=(5, 3)), (1, 4, 1, 1), 27, ["RESIZE_BILINEAR"]),
    # DeepLabV3's last resize, factor 16, on a convolution's NHWC result.
    ("after_conv_factor_16_27", AfterConv(lambda y: F.interpolate(y, size=(64, 48), mode="bilinear"), 3, 5),
     (1, 3, 4, 3), 27, ["CONV_2D", *HEIGHT_AND_WIDTH_27]),
    ("after_conv_aligned_28", AfterConv(lambda y: F.interpolate(y, size=(9, 12), mode="bilinear", align_corners=True)),
     (1, 3, 5, 6), 28, ["CONV_2D", *HEIGHT_AND_WIDTH_28]),
]


@pytest.mark.parametrize("name,module,shape,level,operations", CASES, ids=[c[0] for c in CASES])
def test_bilinear_below_api_30(name, module, shape, level, operations) -> None:
    torch.manual_seed(0)
    low = check_delegated_and_matches(module, (torch.randn(*shape),), run_inputs=[(torch.randn(*shape) * 3,)],
                                      feature_level=level, tolerance=TOLERANCE)
    assert low.num_delegates == 1 and low.nnapi_operations == operations


def test_api_30_keeps_the_flagged_resize() -> None:
    low = check_delegated_and_matches(bilinear(size=(7, 5)), (torch.randn(1, 3, 4, 6),), feature_level=30,
                                      tolerance=TOLERANCE)
    assert low.nnapi_operations == ["RESIZE_BILINEAR"]


def test_dynamic_size_below_api_30_stays_on_the_cpu_with_reason() -> None:
    h = Dim("h", min=2, max=16)
    low = lower(bilinear(scale_factor=2), (torch.randn(1, 2, 4, 5),), dynamic_shapes=(({2: h},),), feature_level=28)
    assert low.cpu_ops == [BILINEAR]
    (reason,) = low.reasons[BILINEAR]
    assert "dynamic" in reason and "needs API 30" in reason
