"""ROI_ALIGN, ROI_POOLING and AXIS_ALIGNED_BBOX_TRANSFORM in the host driver, driven through the
C API: the kernels against torchvision's roi_align (aligned=False), roi_pool and box decoding
(BoxCoder with unit weights, then clip_boxes_to_image), the layout flag, and the checks Android's
reference implementation makes (operand shapes when the model is finished, each region when
it runs)."""

from __future__ import annotations

import pytest
import torch
from torchvision.models.detection._utils import BoxCoder
from torchvision.ops import clip_boxes_to_image, roi_align, roi_pool

from nnapi_client import BAD_DATA, OP_FAILED, QA8, TI32, Model, last_error, nchw, nhwc

FEATURES = torch.randn(2, 5, 9, 11, generator=torch.Generator().manual_seed(3))
# (batch, x1, y1, x2, y2) in pixels of an image at stride 2 (18 x 22): inside the map, some
# narrower than one cell, one empty, one the whole map, corners at exact halves of a cell.
ROIS = torch.tensor([[0, 1.0, 2.0, 13.0, 9.0], [1, 0.0, 0.0, 22.0, 18.0], [1, 4.5, 3.0, 5.0, 3.5],
                     [0, 7.0, 7.0, 7.0, 7.0], [1, 3.2, 10.6, 19.9, 17.1], [0, 3.0, 5.0, 9.0, 15.0]])
OUT_HW = (3, 4)
TQ16A = 12  # TENSOR_QUANT16_ASYMM, the boxes of the 8-bit forms


def _run(lib, name: str, nchw_layout: bool, extra, rois: torch.Tensor = ROIS, expect_run: int = 0):
    """Builds and runs one ROI operation on FEATURES and ``rois`` (stride 2); returns the output
    in NCHW. ``extra(m)``: the operation's operands between the strides and the layout flag."""
    m = Model(lib)
    x = FEATURES if nchw_layout else nhwc(FEATURES)
    count, ch = rois.shape[0], FEATURES.shape[1]
    shape = [count, ch, *OUT_HW] if nchw_layout else [count, *OUT_HW, ch]
    inp, boxes, batch, out = m.tensor(list(x.shape)), m.tensor([count, 4]), m.tensor([count], TI32), m.tensor(shape)
    m.op(name, [inp, boxes, batch, m.i32(OUT_HW[0]), m.i32(OUT_HW[1]), m.f32(2.0), m.f32(2.0), *extra(m),
                m.bool(nchw_layout)], [out])
    m.io([inp, boxes, batch], [out])
    (res,) = m.run([x, rois[:, 1:].contiguous(), rois[:, 0].int()], [shape], expect=expect_run)
    return res if nchw_layout else nchw(res)


@pytest.mark.parametrize("nchw_layout", [False, True], ids=["nhwc", "nchw"])
@pytest.mark.parametrize("ratio", [0, 1, 3])
def test_roi_align_is_torchvisions_unaligned_roi_align(lib, driver, nchw_layout, ratio):
    res = _run(lib, "ROI_ALIGN", nchw_layout, lambda m: [m.i32(ratio), m.i32(ratio)])
    expected = roi_align(FEATURES, ROIS, OUT_HW, spatial_scale=0.5, sampling_ratio=ratio, aligned=False)
    torch.testing.assert_close(res, expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("nchw_layout", [False, True], ids=["nhwc", "nchw"])
def test_roi_pooling_is_torchvisions_roi_pool(lib, driver, nchw_layout):
    res = _run(lib, "ROI_POOLING", nchw_layout, lambda m: [])
    expected = roi_pool(FEATURES, ROIS, OUT_HW, spatial_scale=0.5)
    torch.testing.assert_close(res, expected, atol=0, rtol=0)


@pytest.mark.parametrize("name,extra", [("ROI_ALIGN", lambda m: [m.i32(2), m.i32(2)]), ("ROI_POOLING", lambda m: [])])
@pytest.mark.parametrize("row,column,value,message", [
    (0, 0, 2.0, "batch index 2 is outside [0, 2)"),
    (1, 3, 22.5, "is not inside the 9x11 feature map"),
    (1, 1, -0.5, "is not inside the 9x11 feature map"),
    (0, 1, 14.0, "has x2 < x1 or y2 < y1"),
])
def test_malformed_region_fails_the_execution(lib, driver, name, extra, row, column, value, message):
    rois = ROIS.clone()
    rois[row, column] = value
    _run(lib, name, False, extra, rois, expect_run=OP_FAILED)
    assert message in last_error(lib)


def test_boxes_must_have_four_columns(lib, driver):
    m = Model(lib)
    inp, boxes, batch = m.tensor([2, 9, 11, 5]), m.tensor([6, 5]), m.tensor([6], TI32)
    out = m.tensor([6, 3, 4, 5])
    m.op("ROI_ALIGN", [inp, boxes, batch, m.i32(3), m.i32(4), m.f32(2.0), m.f32(2.0), m.i32(0), m.i32(0),
                       m.bool(False)], [out])
    m.io([inp, boxes, batch], [out])
    m.finish(expect=BAD_DATA)
    assert "input 1 (boxes) must be [num_rois, 4], got [6, 5]" in last_error(lib)


def test_8bit_roi_align_needs_boxes_in_eighths(lib, driver):
    m = Model(lib)
    inp = m.tensor([2, 9, 11, 5], QA8, scale=0.1, zp=128)
    boxes, batch = m.tensor([6, 4], TQ16A, scale=0.25), m.tensor([6], TI32)
    out = m.tensor([6, 3, 4, 5], QA8, scale=0.2, zp=100)
    m.op("ROI_ALIGN", [inp, boxes, batch, m.i32(3), m.i32(4), m.f32(2.0), m.f32(2.0), m.i32(0), m.i32(0),
                       m.bool(False)], [out])
    m.io([inp, boxes, batch], [out])
    m.finish(expect=BAD_DATA)
    assert "input 1 (boxes) of type TENSOR_QUANT16_ASYMM must have scale 0.125 and zeroPoint 0" in last_error(lib)


def test_layout_flag_is_required(lib, driver):
    m = Model(lib)
    inp, boxes, batch = m.tensor([2, 9, 11, 5]), m.tensor([6, 4]), m.tensor([6], TI32)
    out = m.tensor([6, 3, 4, 5])
    m.op("ROI_POOLING", [inp, boxes, batch, m.i32(3), m.i32(4), m.f32(2.0), m.f32(2.0)], [out], expect=BAD_DATA)
    assert "expects 8 inputs, got 7" in last_error(lib)


def _bbox_transform(lib, rois: torch.Tensor, deltas: torch.Tensor, sizes: torch.Tensor, expect_run: int = 0):
    m = Model(lib)
    count = rois.shape[0]
    boxes, d, batch, image = (m.tensor([count, 4]), m.tensor(list(deltas.shape)), m.tensor([count], TI32),
                              m.tensor(list(sizes.shape)))
    out = m.tensor(list(deltas.shape))
    m.op("AXIS_ALIGNED_BBOX_TRANSFORM", [boxes, d, batch, image], [out])
    m.io([boxes, d, batch, image], [out])
    (res,) = m.run([rois[:, 1:].contiguous(), deltas, rois[:, 0].int(), sizes], [list(deltas.shape)],
                   expect=expect_run)
    return res


def test_axis_aligned_bbox_transform_is_decode_then_clip(lib, driver):
    sizes = torch.tensor([[18.0, 22.0], [12.0, 30.0]])  # (height, width) per image
    deltas = torch.randn(ROIS.shape[0], 8, generator=torch.Generator().manual_seed(4))
    res = _bbox_transform(lib, ROIS, deltas, sizes)
    decoded = BoxCoder((1.0, 1.0, 1.0, 1.0), bbox_xform_clip=float("inf")).decode_single(deltas, ROIS[:, 1:])
    expected = torch.stack([clip_boxes_to_image(b.reshape(-1, 4), tuple(int(v) for v in sizes[int(i)])).reshape(-1)
                            for b, i in zip(decoded, ROIS[:, 0])])
    torch.testing.assert_close(res, expected, atol=1e-5, rtol=1e-5)


def test_axis_aligned_bbox_transform_refuses_an_inverted_box_when_run(lib, driver):
    rois = ROIS.clone()
    rois[2, 1] = 9.0  # x1 > x2
    _bbox_transform(lib, rois, torch.zeros(ROIS.shape[0], 4), torch.tensor([[18.0, 22.0], [18.0, 22.0]]),
                    expect_run=OP_FAILED)
    assert "has x2 < x1 or y2 < y1" in last_error(lib)
