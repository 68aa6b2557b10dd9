"""torchvision's detection ops on NNAPI: roi_align -> ROI_ALIGN and roi_pool -> ROI_POOLING
(API 29). Each accepted form is lowered, delegated, run through the C++ backend on the host
driver and compared with torchvision's own op; each refused form is checked for its wording,
and since ExecuTorch has no CPU kernel for either op, a refused one stops lowering."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim
from torchvision.models.detection._utils import BoxCoder
from torchvision.ops import batched_nms, clip_boxes_to_image, roi_align, roi_pool
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from executorch_nnapi.lowering.custom_ops import decode_boxes
from executorch_nnapi.partitioners import NoCpuKernelError
from executorch_nnapi.quantizer import NnapiQuantizer
from op_harness import check_delegated_and_matches, lower, run_pte
from quantized_reference import within_one_step


def random_rois(count: int, batches: int, height: float, width: float, seed: int, min_size: float = 0.0):
    """[count, 5] regions (batch index, x1, y1, x2, y2) inside an image of height x width."""
    g = torch.Generator().manual_seed(seed)
    xs = torch.rand(count, 2, generator=g) * width
    ys = torch.rand(count, 2, generator=g) * height
    x1, x2 = xs.min(1).values, (xs.max(1).values + min_size).clamp(max=width)
    y1, y2 = ys.min(1).values, (ys.max(1).values + min_size).clamp(max=height)
    batch = torch.randint(0, batches, (count,), generator=g).float()
    return torch.stack([batch, x1, y1, x2, y2], dim=1)


class RoiAlign(nn.Module):
    def __init__(self, size, scale, ratio, aligned=False):
        super().__init__()
        self.size, self.scale, self.ratio, self.aligned = size, scale, ratio, aligned

    def forward(self, x, rois):
        return roi_align(x, rois, self.size, spatial_scale=self.scale, sampling_ratio=self.ratio,
                         aligned=self.aligned)


class RoiPool(nn.Module):
    def __init__(self, size, scale):
        super().__init__()
        self.size, self.scale = size, scale

    def forward(self, x, rois):
        return roi_pool(x, rois, self.size, spatial_scale=self.scale)


FEATURES = torch.randn(2, 6, 12, 16, generator=torch.Generator().manual_seed(1))
# Regions in image pixels; the feature map is the image at 1/4 (48 x 64).
ROIS = random_rois(7, 2, 48.0, 64.0, seed=2)
# Degenerate regions: zero width, zero height, a point, regions narrower than one cell,
# the whole image, a corner.
SMALL = torch.tensor([[0, 10.0, 4.0, 10.0, 20.0], [1, 3.0, 9.0, 30.0, 9.0], [0, 5.0, 5.0, 5.0, 5.0],
                      [1, 40.0, 30.0, 41.5, 32.0], [0, 56.5, 42.0, 58.0, 43.0], [1, 0.0, 0.0, 64.0, 48.0],
                      [0, 0.0, 0.0, 0.5, 0.5]])

ALIGN_FORMS = [
    ("fixed_ratio", RoiAlign((4, 3), 0.25, 2)),
    ("adaptive_ratio", RoiAlign(5, 0.25, 0)),
    ("negative_ratio_is_adaptive", RoiAlign(3, 0.25, -1)),
    ("ratio_1_non_power_of_two_scale", RoiAlign(2, 0.2, 1)),
]


@pytest.mark.parametrize("name,module", ALIGN_FORMS, ids=[f[0] for f in ALIGN_FORMS])
def test_roi_align_matches_torchvision(name, module):
    if name == "ratio_1_non_power_of_two_scale":
        rois = random_rois(7, 2, 12 / 0.2, 16 / 0.2, seed=4)
    else:
        rois = ROIS
    lowered = check_delegated_and_matches(module, (FEATURES, rois), run_inputs=[(FEATURES, rois), (FEATURES, SMALL)],
                                          expect_operations=["ROI_ALIGN"], tolerance=1e-5)
    assert lowered.num_delegates == 1


def test_roi_pool_matches_torchvision():
    module = RoiPool((3, 4), 0.25)
    check_delegated_and_matches(module, (FEATURES, ROIS), run_inputs=[(FEATURES, ROIS), (FEATURES, SMALL)],
                                expect_operations=["ROI_POOLING"], tolerance=1e-6)


def test_roi_pool_rounds_halves_away_from_zero_like_torchvision():
    # Scaled corners at exact halves (x 0.5 = .5 cells) and regions ending on the last cell.
    rois = torch.tensor([[0, 1.0, 3.0, 5.0, 7.0], [1, 3.0, 1.0, 31.0, 23.0], [0, 0.0, 0.0, 32.0, 24.0],
                         [1, 29.0, 21.0, 32.0, 24.0]])
    features = torch.randn(2, 3, 12, 16)
    check_delegated_and_matches(RoiPool(2, 0.5), (features, rois), expect_operations=["ROI_POOLING"],
                                tolerance=1e-6)


def test_constant_regions_need_no_split():
    class Fixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("rois", ROIS.clone())

        def forward(self, x):
            return roi_align(x, self.rois, 3, spatial_scale=0.25, sampling_ratio=2)

    lowered = check_delegated_and_matches(Fixed(), (FEATURES,), expect_operations=["ROI_ALIGN"], tolerance=1e-5)
    assert "CAST" not in lowered.nnapi_operations


def test_list_of_boxes_form_is_delegated_whole():
    class PerImage(nn.Module):
        def forward(self, x, a, b):
            return roi_align(x, [a, b], (2, 2), spatial_scale=0.25, sampling_ratio=2)

    a, b = ROIS[:3, 1:].contiguous(), ROIS[3:, 1:].contiguous()
    check_delegated_and_matches(PerImage(), (FEATURES, a, b), expect_operations=["ROI_ALIGN"], tolerance=1e-5)


class TwoStageHead(nn.Module):
    """A backbone, roi_align on given boxes and a box head (class scores and box deltas)."""

    def __init__(self, classes: int = 4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(16 * 5 * 5, 32), nn.ReLU())
        self.scores = nn.Linear(32, classes)
        self.deltas = nn.Linear(32, classes * 4)

    def forward(self, image, rois):
        features = self.backbone(image)
        pooled = roi_align(features, rois, (5, 5), spatial_scale=0.25, sampling_ratio=2)
        hidden = self.head(pooled)
        return self.scores(hidden).softmax(-1), self.deltas(hidden)


@pytest.mark.parametrize("level", [29, 30])
def test_two_stage_detector_head_is_one_subgraph(level):
    torch.manual_seed(0)
    image = torch.randn(2, 3, 48, 64)
    lowered = check_delegated_and_matches(TwoStageHead(), (image, ROIS), run_inputs=[(image, ROIS), (image, SMALL)],
                                          expect_operations=["ROI_ALIGN", "CONV_2D", "FULLY_CONNECTED"],
                                          tolerance=1e-4, feature_level=level)
    assert lowered.num_delegates == 1


def test_number_of_regions_is_dynamic():
    k = Dim("k", min=1, max=128)
    image = torch.randn(2, 3, 48, 64, generator=torch.Generator().manual_seed(5))
    runs = [(image, random_rois(n, 2, 48.0, 64.0, seed=n)) for n in (1, 5, 33)]
    lowered = check_delegated_and_matches(TwoStageHead(), runs[1], dynamic_shapes={"image": None, "rois": {0: k}},
                                          run_inputs=runs, expect_operations=["ROI_ALIGN"], tolerance=1e-4)
    assert lowered.num_delegates == 1


def test_narrow_region_in_the_last_cell_samples_the_edge_like_android():
    # Documented difference (docs/detection_ops.md): a region narrower than one cell that starts
    # in the last column is widened to one cell; its samples past the edge read the last column
    # on NNAPI (Android's reference clamps) but 0 in torchvision. NNAPI's result is then
    # torchvision's on the map with its last row and column repeated.
    rois = torch.tensor([[0, 61.0, 10.0, 62.0, 30.0], [1, 20.0, 45.0, 40.0, 46.0]])
    module = RoiAlign((2, 2), 0.25, 2)
    lowered = lower(module, (FEATURES, rois))
    (got,) = run_pte(lowered.pte, (FEATURES, rois))
    padded = F.pad(FEATURES, (0, 1, 0, 1), mode="replicate")
    torch.testing.assert_close(got, module(padded, rois), atol=1e-5, rtol=1e-5)
    assert (got - module(FEATURES, rois)).abs().max() > 0.1


def test_8bit_head_keeps_roi_align_as_a_float_island():
    # The ROI operations have no 8-bit declaration: NnapiQuantizer leaves roi_align float, and the
    # partition runs it between a DEQUANTIZE and a QUANTIZE instead of leaving it to the CPU.
    torch.manual_seed(0)
    image = torch.randn(2, 3, 48, 64)
    gm = prepare_pt2e(torch.export.export(TwoStageHead().eval(), (image, ROIS)).module(),
                      NnapiQuantizer(feature_level=30, signed=False))
    # Calibrated on valid regions: torchvision's CPU roi_align reads any memory a bad batch index names.
    for seed in range(4):
        gm(torch.randn(2, 3, 48, 64), random_rois(7, 2, 48.0, 64.0, seed=20 + seed))
    gm(image, ROIS)
    gm = convert_pt2e(gm)
    lowered = lower(gm, (image, ROIS))
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1, lowered.reasons
    ops = lowered.nnapi_operations
    at = ops.index("ROI_ALIGN")
    # Its result is flattened in float (a view of a float result stays float) and quantized after.
    quantize = ops.index("QUANTIZE", at)
    assert "DEQUANTIZE" in ops[:at] and set(ops[at + 1:quantize]) <= {"TRANSPOSE", "RESHAPE"}, ops
    outputs = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    with torch.no_grad():
        wanted = gm(image, ROIS)
    for got, want, dq in zip(run_pte(lowered.pte, (image, ROIS)), wanted, outputs):
        assert within_one_step(want, got, float(dq.args[1])) == 1.0, (got - want).abs().max().item()


WEIGHTS = (10.0, 10.0, 5.0, 5.0)  # torchvision's Faster R-CNN box head coder
IMAGE_SIZES = torch.tensor([[48.0, 64.0], [40.0, 56.0]])  # (height, width) of images 0 and 1


def faster_rcnn_deltas(deltas: torch.Tensor) -> torch.Tensor:
    """torchvision's BoxCoder.decode steps before the arithmetic: divide by the weights, clamp dw, dh."""
    d = deltas.reshape(deltas.shape[0], -1, 4) / torch.tensor(WEIGHTS)
    d = torch.cat([d[..., :2], d[..., 2:].clamp(max=BoxCoder(WEIGHTS).bbox_xform_clip)], dim=-1)
    return d.reshape(deltas.shape)


class Decode(nn.Module):
    def forward(self, rois, deltas):
        return decode_boxes(rois, faster_rcnn_deltas(deltas), IMAGE_SIZES)


def torchvision_decode(rois: torch.Tensor, deltas: torch.Tensor) -> torch.Tensor:
    """BoxCoder.decode_single then clip_boxes_to_image, per region's image."""
    boxes = BoxCoder(WEIGHTS).decode_single(deltas, rois[:, 1:]).reshape(rois.shape[0], -1, 4)
    rows = [clip_boxes_to_image(b, tuple(int(v) for v in IMAGE_SIZES[int(i)])) for b, i in zip(boxes, rois[:, 0])]
    return torch.stack(rows).reshape(deltas.shape)


def test_decode_boxes_is_torchvisions_decode_and_clip():
    g = torch.Generator().manual_seed(7)
    rois = random_rois(9, 2, 40.0, 56.0, seed=7)
    deltas = torch.randn(9, 3 * 4, generator=g) * 4  # some boxes leave the image, some dw past the clamp
    deltas[0, 2] = 50.0
    torch.testing.assert_close(Decode()(rois, deltas), torchvision_decode(rois, deltas), atol=1e-4, rtol=1e-5)
    lowered = check_delegated_and_matches(Decode(), (rois, deltas), expect_operations=["AXIS_ALIGNED_BBOX_TRANSFORM"],
                                          tolerance=1e-6)
    (got,) = run_pte(lowered.pte, (rois, deltas))
    torch.testing.assert_close(got, torchvision_decode(rois, deltas), atol=1e-4, rtol=1e-5)


class DetectorHead(TwoStageHead):
    """The two-stage head with its box deltas decoded and clipped."""

    def forward(self, image, rois):
        scores, deltas = super().forward(image, rois)
        return scores, decode_boxes(rois, faster_rcnn_deltas(deltas), IMAGE_SIZES)


def test_detector_head_with_box_decoding_is_one_subgraph():
    torch.manual_seed(0)
    image = torch.randn(2, 3, 48, 64)
    rois = random_rois(7, 2, 40.0, 56.0, seed=11)
    lowered = check_delegated_and_matches(DetectorHead(), (image, rois),
                                          expect_operations=["ROI_ALIGN", "AXIS_ALIGNED_BBOX_TRANSFORM"],
                                          tolerance=1e-4)
    assert lowered.num_delegates == 1


REFUSED = [
    (RoiAlign(3, 0.25, 2, aligned=True), "roi_align with aligned=True (NNAPI's ROI_ALIGN has no half-pixel offset"),
    (RoiAlign(3, 0.2, 0), "roi_align with spatial_scale=0.2 and an adaptive sampling ratio"),
    (RoiPool(3, 0.2), "roi_pool with spatial_scale=0.2 (NNAPI takes the stride 1 / spatial_scale, exact only for"),
]


@pytest.mark.parametrize("module,reason", REFUSED, ids=["aligned", "adaptive_scale", "pool_scale"])
def test_refused_form_stops_lowering_with_node_line_and_reason(module, reason):
    with pytest.raises(NoCpuKernelError) as info:
        lower(module, (FEATURES, ROIS))
    message = str(info.value)
    assert reason in message
    assert "test_ops_detection.py" in message  # the source line of the call
    assert "ExecuTorch's portable CPU kernels have no torchvision.roi_" in message
    assert "\n" not in message


def test_decode_boxes_below_api_29_stops_lowering():
    with pytest.raises(NoCpuKernelError, match=r"decode_boxes.default needs API 29 \(Android 10\)"):
        lower(Decode(), (ROIS, torch.zeros(7, 8)), feature_level=28)


def test_below_api_29_stops_lowering():
    with pytest.raises(NoCpuKernelError, match=r"roi_align.default needs API 29 \(Android 10\); the target is API 28"):
        lower(RoiAlign(3, 0.25, 2), (FEATURES, ROIS), feature_level=28)


def test_batched_nms_stops_lowering_naming_the_op_and_line():
    # torchvision's nms is not lowered (its result size is unbounded; batched_nms_padded is, see
    # test_ops_batched_nms.py) and ExecuTorch has no kernel for it: one line at lowering instead of
    # a failure in to_executorch(), pointing at batched_nms_padded.
    class Nms(nn.Module):
        def forward(self, boxes, scores, classes):
            return batched_nms(boxes, scores, classes, 0.5)

    boxes = ROIS[:, 1:].contiguous()
    with pytest.raises(NoCpuKernelError) as info:
        lower(Nms(), (boxes, torch.rand(7), torch.randint(0, 3, (7,))))
    message = str(info.value)
    assert message.startswith("torchvision_nms_default (torchvision.nms.default, File ")
    assert "test_ops_detection.py" in message and "\n" not in message
    assert message.endswith("custom_ops.batched_nms_padded runs NNAPI's BOX_WITH_NMS_LIMIT with a fixed number of "
                            "results) and this ExecuTorch has no CPU kernel (out variant) of "
                            "torchvision.nms.default, so the program could not run")


def test_box_outside_the_feature_map_fails_the_run():
    lowered = lower(RoiAlign(3, 0.25, 2), (FEATURES, ROIS))
    outside = ROIS.clone()
    outside[0, 3] = 80.0  # x2 past the 64-pixel width
    with pytest.raises(RuntimeError):
        run_pte(lowered.pte, (FEATURES, outside))
