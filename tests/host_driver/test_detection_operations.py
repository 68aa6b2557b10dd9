"""The detection operations of the host driver through the C API: HEATMAP_MAX_KEYPOINT against a
float64 NumPy fit of its own (np.pad's reflection for the borders, np.linalg.solve for the step),
GENERATE_PROPOSALS and DETECTION_POSTPROCESSING against torchvision (BoxCoder, clip_boxes_to_image,
nms), the 8-bit forms of BOX_WITH_NMS_LIMIT, AXIS_ALIGNED_BBOX_TRANSFORM, ROI_ALIGN and ROI_POOLING
against the same references on the dequantized values, zero-sized tensors passed from one
operation to the next, and a rejection per operation."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
import torch
from torchvision.models.detection._utils import BoxCoder
from torchvision.ops import clip_boxes_to_image, nms, roi_align, roi_pool

from nnapi_client import BAD_DATA, OP_FAILED, QA8, TF16, TI32, Execution, Model, last_error, nchw, nhwc
from test_box_with_nms_limit import SCORE_MIN, random_detections, torchvision_detections

TQ16S, TQ16A, TQ8S = 7, 12, 14  # TENSOR_QUANT16_SYMM, TENSOR_QUANT16_ASYMM, TENSOR_QUANT8_ASYMM_SIGNED
EIGHTH = {"scale": 0.125, "zp": 0}  # the 16-bit boxes of the 8-bit forms
Q8 = {QA8: (torch.uint8, 0, 255), TQ8S: (torch.int8, -128, 127)}


def to_codes(x: torch.Tensor, scale: float, zp: int, type_: int) -> torch.Tensor:
    """Quantized codes of ``x`` (round half up, saturated) for an 8-bit type or TQ16A / TQ16S."""
    dtype, lo, hi = Q8.get(type_, (torch.uint16, 0, 65535) if type_ == TQ16A else (torch.int16, -32768, 32767))
    return torch.floor(x.double() / scale + zp + 0.5).clamp(lo, hi).to(torch.int32).to(dtype)


def from_codes(q: torch.Tensor, scale: float, zp: int) -> torch.Tensor:
    """The real values of quantized codes, in float64."""
    return (q.to(torch.float64) - zp) * scale


def run_dynamic(lib, m: Model, inputs: list[torch.Tensor], buffers: list[torch.Tensor]) -> list[torch.Tensor]:
    """Runs a model whose outputs have data-dependent sizes into ``buffers`` (large enough); returns
    each output cut to the dimensions the execution reports."""
    m.finish()
    ex = Execution(lib, m.compile())
    for j, x in enumerate(inputs):
        ex.set_input(j, x)
    for j, b in enumerate(buffers):
        ex.set_output(j, b)
    assert ex.compute() == 0, last_error(lib)
    outs = []
    for j, b in enumerate(buffers):
        rank = ctypes.c_uint32()
        assert lib.ANeuralNetworksExecution_getOutputOperandRank(ex.handle, j, ctypes.byref(rank)) == 0
        dims = (ctypes.c_uint32 * max(rank.value, 1))()
        assert lib.ANeuralNetworksExecution_getOutputOperandDimensions(ex.handle, j, dims) == 0, last_error(lib)
        shape = list(dims)[:rank.value]
        outs.append(b.reshape(-1)[:int(np.prod(shape))].reshape(shape))
    return outs


def execute(lib, m: Model, inputs: list[torch.Tensor], outs: list[torch.Tensor], expect: int = 0) -> list[torch.Tensor]:
    """Finishes, compiles and runs ``m`` once into the preallocated ``outs``; returns them."""
    m.finish()
    ex = Execution(lib, m.compile())
    for j, x in enumerate(inputs):
        ex.set_input(j, x)
    for j, o in enumerate(outs):
        ex.set_output(j, o)
    assert ex.compute() == expect, last_error(lib)
    return outs


# -- HEATMAP_MAX_KEYPOINT ---------------------------------------------------------------------------------
def heatmap_reference(heat: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores [N, K] and keypoints [N, K, 2] of NHWC heatmaps [N, S, S, K] in float64: a Newton step
    on the quadratic through the 3x3 neighbourhood of the first maximum, at most 1.5 cells."""
    n, size, _, kps = heat.shape
    padded = np.pad(heat, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
    scores, points = np.zeros((n, kps)), np.zeros((n, kps, 2))
    for b in range(n):
        for k in range(kps):
            row, col = divmod(int(np.argmax(heat[b, :, :, k])), size)
            g = padded[b, row:row + 3, col:col + 3, k]
            grad = np.array([g[1, 2] - g[1, 0], g[2, 1] - g[0, 1]]) / 2
            hxy = (g[2, 2] - g[2, 0] - g[0, 2] + g[0, 0]) / 4
            hess = np.array([[g[1, 0] - 2 * g[1, 1] + g[1, 2], hxy], [hxy, g[0, 1] - 2 * g[1, 1] + g[2, 1]]])
            step = np.zeros(2)
            if abs(np.linalg.det(hess)) >= 1e-5 + 1e-5 * hess[0, 0] * hess[1, 1]:
                step = -np.linalg.solve(hess, grad)
                if np.abs(step).max() > 1.5:
                    step *= 1.5 / np.abs(step).max()
            scores[b, k] = g[1, 1] + grad @ step + step @ hess @ step / 2
            x1, y1, x2, y2 = boxes[b]
            points[b, k] = [(col + step[0] + 0.5) / size * (x2 - x1) + x1,
                            (row + step[1] + 0.5) / size * (y2 - y1) + y1]
    return scores, points


def _heatmap_model(lib, shape, nchw_layout: bool = False, quant=None) -> Model:
    """HEATMAP_MAX_KEYPOINT on NHWC ``shape`` [N, S, S, K] heatmaps, float32 or with ``quant`` =
    (8-bit type, heatmap (scale, zp), score (scale, zp)) and boxes in eighths of a pixel."""
    m = Model(lib)
    n, kps = shape[0], shape[3]
    heat_dims = [n, kps, shape[1], shape[2]] if nchw_layout else list(shape)
    if quant is None:
        heat, boxes = m.tensor(heat_dims), m.tensor([n, 4])
        outs = [m.tensor([n, kps]), m.tensor([n, kps, 2])]
    else:
        kind, (s_heat, zp_heat), (s_score, zp_score) = quant
        heat, boxes = m.tensor(heat_dims, kind, scale=s_heat, zp=zp_heat), m.tensor([n, 4], TQ16A, **EIGHTH)
        outs = [m.tensor([n, kps], kind, scale=s_score, zp=zp_score), m.tensor([n, kps, 2], TQ16A, **EIGHTH)]
    m.op("HEATMAP_MAX_KEYPOINT", [heat, boxes, m.bool(nchw_layout)], outs)
    m.io([heat, boxes], outs)
    return m


def _random_heatmaps(n: int, size: int, kps: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    heat = torch.rand(n, size, size, kps, generator=g)
    corner = torch.rand(n, 2, generator=g) * 20
    boxes = torch.cat([corner, corner + 2 + torch.rand(n, 2, generator=g) * 20], 1)
    return heat, boxes


@pytest.mark.parametrize("nchw_layout", [False, True], ids=["nhwc", "nchw"])
def test_heatmap_max_keypoint_is_a_newton_step_on_the_neighbourhood(lib, driver, nchw_layout):
    heat, boxes = _random_heatmaps(6, 5, 3, 0)
    heat[0, 0, 0, :] = 5.0   # maxima on the border and in a corner: the mirrored neighbourhood
    heat[1, 4, 2, :] = 5.0
    m = _heatmap_model(lib, heat.shape, nchw_layout=nchw_layout)
    score, points = m.run([nchw(heat).contiguous() if nchw_layout else heat, boxes], [[6, 3], [6, 3, 2]])
    want_score, want_points = heatmap_reference(heat.double().numpy(), boxes.double().numpy())
    np.testing.assert_allclose(score.numpy(), want_score, atol=1e-4, rtol=1e-4)
    np.testing.assert_allclose(points.numpy(), want_points, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("heat_type", [QA8, TQ8S], ids=["quant8", "quant8_signed"])
def test_heatmap_max_keypoint_8bit(lib, driver, heat_type):
    heat, boxes = _random_heatmaps(4, 4, 2, 1)
    zp = 128 if heat_type == QA8 else 0
    heat_q = to_codes(heat, 0.01, zp, heat_type)
    boxes_q = to_codes(boxes, 0.125, 0, TQ16A)
    m = _heatmap_model(lib, heat.shape, quant=(heat_type, (0.01, zp), (0.02, zp - 10)))
    score, points = execute(lib, m, [heat_q, boxes_q], [torch.zeros(4, 2, dtype=heat_q.dtype),
                                                         torch.zeros(4, 2, 2, dtype=torch.uint16)])
    want_score, want_points = heatmap_reference(from_codes(heat_q, 0.01, zp).numpy(),
                                                from_codes(boxes_q, 0.125, 0).numpy())
    np.testing.assert_allclose(score.to(torch.int32).numpy(),
                               to_codes(torch.from_numpy(want_score), 0.02, zp - 10, heat_type).to(torch.int32), atol=1)
    np.testing.assert_allclose(points.to(torch.int32).numpy(),
                               to_codes(torch.from_numpy(want_points), 0.125, 0, TQ16A).to(torch.int32), atol=1)


def test_heatmap_max_keypoint_rejections(lib, driver):
    m = Model(lib)
    heat, boxes, outs = m.tensor([2, 4, 5, 3]), m.tensor([2, 4]), [m.tensor([2, 3]), m.tensor([2, 3, 2])]
    m.op("HEATMAP_MAX_KEYPOINT", [heat, boxes, m.bool(False)], outs)
    m.io([heat, boxes], outs)
    m.finish(expect=BAD_DATA)
    assert "input 0 (heatmap) must be square, got [2, 4, 5, 3] (NHWC)" in last_error(lib)
    m = Model(lib)
    heat, boxes = m.tensor([1, 4, 4, 1], QA8, scale=0.1, zp=0), m.tensor([1, 4], TQ16A, scale=0.25)
    outs = [m.tensor([1, 1], QA8, scale=0.1), m.tensor([1, 1, 2], TQ16A, **EIGHTH)]
    m.op("HEATMAP_MAX_KEYPOINT", [heat, boxes, m.bool(False)], outs)
    m.io([heat, boxes], outs)
    m.finish(expect=BAD_DATA)
    assert "input 1 (boxes) of type TENSOR_QUANT16_ASYMM must have scale 0.125 and zeroPoint 0" in last_error(lib)


def test_heatmap_max_keypoint_inverted_box_fails_the_run(lib, driver):
    heat, boxes = _random_heatmaps(2, 4, 1, 2)
    boxes[1, [0, 2]] = boxes[1, [2, 0]]
    _heatmap_model(lib, heat.shape).run([heat, boxes], [[2, 1], [2, 1, 2]], expect=OP_FAILED)
    assert "box 1:" in last_error(lib) and "has x2 < x1 or y2 < y1" in last_error(lib)


# -- GENERATE_PROPOSALS -------------------------------------------------------------------------------------
STRIDE, IMAGES = 8.0, torch.tensor([[24.0, 32.0], [20.0, 30.0]])  # (height, width) per image


def _proposal_inputs(seed: int, batches: int = 2, height: int = 3, width: int = 4, anchors: int = 3):
    g = torch.Generator().manual_seed(seed)
    scores = torch.rand(batches, height, width, anchors, generator=g)
    deltas = torch.randn(batches, height, width, anchors * 4, generator=g) * 0.3
    corner = torch.rand(anchors, 2, generator=g) * 4 - 2
    boxes = torch.cat([corner, corner + 4 + torch.rand(anchors, 2, generator=g) * 8], 1)
    return scores, deltas, boxes


def torchvision_proposals(scores, deltas, anchors, images, pre_nms: int, post_nms: int, iou: float, min_size: float):
    """(scores, boxes, batch) with torchvision: anchors on the grid, decoded and clipped, the best
    pre_nms, small or off-image boxes out, nms, the best post_nms."""
    batches, height, width, count = scores.shape
    ys, xs = torch.meshgrid(torch.arange(height) * STRIDE, torch.arange(width) * STRIDE, indexing="ij")
    shifts = torch.stack([xs, ys, xs, ys], -1).reshape(-1, 1, 4)
    grid = (anchors[None] + shifts).reshape(-1, 4)
    coder = BoxCoder((1.0, 1.0, 1.0, 1.0), bbox_xform_clip=float("inf"))
    out = ([], [], [])
    for b in range(batches):
        boxes = clip_boxes_to_image(coder.decode_single(deltas[b].reshape(-1, 4), grid),
                                    tuple(int(v) for v in images[b]))
        flat = scores[b].reshape(-1)
        order = torch.argsort(flat, descending=True)[:pre_nms] if 0 < pre_nms < flat.numel() else \
            torch.arange(flat.numel())
        w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        inside = (w > min_size) & (h > min_size) & (boxes[:, 0] + w / 2 < images[b, 1]) & \
            (boxes[:, 1] + h / 2 < images[b, 0])
        order = order[inside[order]]
        keep = order[nms(boxes[order], flat[order], iou)]
        keep = keep[:post_nms] if post_nms >= 0 else keep
        out[0].append(flat[keep])
        out[1].append(boxes[keep])
        out[2].append(torch.full((len(keep),), b, dtype=torch.int32))
    return tuple(torch.cat(o) for o in out)


def _proposal_model(lib, shape, nchw_layout: bool, pre: int, post: int, types=None):
    """GENERATE_PROPOSALS with its outputs of unknown size; ``types``: the 8-bit form's
    (score type, score q, delta q) or None for float32."""
    batches, height, width, count = shape
    m = Model(lib)
    lay = (lambda c: [batches, c, height, width]) if nchw_layout else (lambda c: [batches, height, width, c])
    if types is None:
        ins = [m.tensor(lay(count)), m.tensor(lay(4 * count)), m.tensor([count, 4]), m.tensor([batches, 2])]
        outs = [m.tensor([0]), m.tensor([0, 4]), m.tensor([0], TI32)]
    else:
        kind, (s_score, zp_score), (s_delta, zp_delta) = types
        ins = [m.tensor(lay(count), kind, scale=s_score, zp=zp_score),
               m.tensor(lay(4 * count), kind, scale=s_delta, zp=zp_delta),
               m.tensor([count, 4], TQ16S, scale=0.125), m.tensor([batches, 2], TQ16A, **EIGHTH)]
        outs = [m.tensor([0], kind, scale=s_score, zp=zp_score), m.tensor([0, 4], TQ16A, **EIGHTH),
                m.tensor([0], TI32)]
    m.op("GENERATE_PROPOSALS", ins + [m.f32(STRIDE), m.f32(STRIDE), m.i32(pre), m.i32(post), m.f32(0.4), m.f32(1.0),
                                      m.bool(nchw_layout)], outs)
    m.io(ins, outs)
    return m


@pytest.mark.parametrize("pre,post", [(-1, -1), (20, 6), (5, 2)])
@pytest.mark.parametrize("nchw_layout", [False, True], ids=["nhwc", "nchw"])
def test_generate_proposals_is_torchvisions_decode_and_nms(lib, driver, nchw_layout, pre, post):
    scores, deltas, anchors = _proposal_inputs(0)
    m = _proposal_model(lib, scores.shape, nchw_layout, pre, post)
    inputs = [nchw(scores).contiguous(), nchw(deltas).contiguous()] if nchw_layout else [scores, deltas]
    capacity = scores.numel()
    got = run_dynamic(lib, m, inputs + [anchors, IMAGES], [torch.zeros(capacity), torch.zeros(capacity, 4),
                                                           torch.zeros(capacity, dtype=torch.int32)])
    want = torchvision_proposals(scores, deltas, anchors, IMAGES, pre, post, 0.4, 1.0)
    assert len(want[0]) > 2, "the case should keep some proposals"
    torch.testing.assert_close(got[0], want[0])
    torch.testing.assert_close(got[1], want[1], atol=1e-4, rtol=1e-5)
    assert got[2].tolist() == want[2].tolist()


@pytest.mark.parametrize("kind", [QA8, TQ8S], ids=["quant8", "quant8_signed"])
def test_generate_proposals_8bit(lib, driver, kind):
    scores, deltas, anchors = _proposal_inputs(1)
    # Distinct codes: among equal scores Android's order is unspecified.
    codes = torch.randperm(scores.numel(), generator=torch.Generator().manual_seed(2)) + 10.0
    scores = codes.reshape(scores.shape) * 0.005
    zp = 0 if kind == QA8 else -128
    q_scores, q_deltas = to_codes(scores, 0.005, zp, kind), to_codes(deltas, 0.01, zp + 128, kind)
    q_anchors, q_images = to_codes(anchors, 0.125, 0, TQ16S), to_codes(IMAGES, 0.125, 0, TQ16A)
    m = _proposal_model(lib, scores.shape, False, 20, 8, (kind, (0.005, zp), (0.01, zp + 128)))
    capacity = scores.numel()
    got = run_dynamic(lib, m, [q_scores, q_deltas, q_anchors, q_images],
                      [torch.zeros(capacity, dtype=q_scores.dtype), torch.zeros(capacity, 4, dtype=torch.uint16),
                       torch.zeros(capacity, dtype=torch.int32)])
    want = torchvision_proposals(from_codes(q_scores, 0.005, zp).float(), from_codes(q_deltas, 0.01, zp + 128).float(),
                                 from_codes(q_anchors, 0.125, 0).float(), from_codes(q_images, 0.125, 0).float(),
                                 20, 8, 0.4, 1.0)
    assert got[0].tolist() == to_codes(want[0], 0.005, zp, kind).tolist()
    np.testing.assert_allclose(got[1].to(torch.int32), to_codes(want[1], 0.125, 0, TQ16A).to(torch.int32), atol=1)
    assert got[2].tolist() == want[2].tolist()


def test_generate_proposals_rejections(lib, driver):
    m = Model(lib)
    ins = [m.tensor([1, 2, 2, 3]), m.tensor([1, 2, 2, 12]), m.tensor([2, 4]), m.tensor([1, 2])]
    outs = [m.tensor([0]), m.tensor([0, 4]), m.tensor([0], TI32)]
    m.op("GENERATE_PROPOSALS", ins + [m.f32(4), m.f32(4), m.i32(-1), m.i32(-1), m.f32(0.3), m.f32(1), m.bool(False)],
         outs)
    m.io(ins, outs)
    m.finish(expect=BAD_DATA)
    assert "input 2 (anchors) must be [3, 4], got [2, 4]" in last_error(lib)
    m = Model(lib)
    ins = [m.tensor([1, 2, 2, 3], QA8, scale=0.1), m.tensor([1, 2, 2, 12], QA8, scale=0.1),
           m.tensor([3, 4], TQ16A, **EIGHTH), m.tensor([1, 2], TQ16A, **EIGHTH)]
    m.op("GENERATE_PROPOSALS", ins + [m.f32(4), m.f32(4), m.i32(-1), m.i32(-1), m.f32(0.3), m.f32(1), m.bool(False)],
         [m.tensor([0], QA8, scale=0.1), m.tensor([0, 4], TQ16A, **EIGHTH), m.tensor([0], TI32)], expect=BAD_DATA)
    assert "input 2 (anchors) has type TENSOR_QUANT16_ASYMM; allowed: TENSOR_QUANT16_SYMM" in last_error(lib)


# -- DETECTION_POSTPROCESSING -------------------------------------------------------------------------------
SCALES = (10.0, 10.0, 5.0, 5.0)  # y, x, height, width


def _ssd_inputs(seed: int, batches: int = 2, count: int = 24, classes: int = 4, length: int = 5):
    g = torch.Generator().manual_seed(seed)
    scores = torch.rand(batches, count, classes, generator=g)
    deltas = torch.randn(batches, count, length, generator=g) * 0.5
    anchors = torch.cat([torch.rand(count, 2, generator=g) * 12, 1 + torch.rand(count, 2, generator=g) * 3], 1)
    return scores, deltas, anchors


def torchvision_ssd(scores, deltas, anchors, regular: bool, max_det: int, per_class: int, classes_per_box: int,
                    score_min: float, iou: float, bg_in_label: bool):
    """Per batch (scores, (y1, x1, y2, x2) boxes, classes) with torchvision's BoxCoder (weights = the
    scales) and nms, anchors given as (y, x, h, w)."""
    y, x, h, w = anchors.unbind(1)
    corners = torch.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], 1)
    coder = BoxCoder((SCALES[1], SCALES[0], SCALES[3], SCALES[2]), bbox_xform_clip=float("inf"))
    shift = 0 if bg_in_label else 1
    found = []
    for b in range(scores.shape[0]):
        boxes = coder.decode_single(deltas[b][:, [1, 0, 3, 2]], corners)[:, [1, 0, 3, 2]]
        xyxy = boxes[:, [1, 0, 3, 2]]
        rows = []
        if regular:
            for cls in range(1, scores.shape[2]):
                cand = (scores[b, :, cls] > score_min).nonzero().flatten()
                keep = cand[nms(xyxy[cand], scores[b, cand, cls], iou)][:per_class]
                rows += [(float(scores[b, a, cls]), int(a), cls) for a in keep]
            rows = sorted(rows, key=lambda r: -r[0])[:max_det]
        else:
            best = scores[b, :, 1:].max(1).values
            cand = (best > score_min).nonzero().flatten()
            for a in cand[nms(xyxy[cand], best[cand], iou)][:max_det].tolist():
                top = torch.topk(scores[b, a, 1:], min(classes_per_box, scores.shape[2] - 1))
                rows += [(float(s), a, int(k) + 1) for s, k in zip(top.values, top.indices)]
        found.append([(s, boxes[a], cls - shift) for s, a, cls in rows])
    return found


def _ssd_model(lib, scores_shape, length: int, regular: bool, max_det: int, per_class: int, classes_per_box: int,
               bg_in_label: bool, type_: int = 3):
    """DETECTION_POSTPROCESSING on float32 (or float16: ``type_``) tensors, score threshold 0.3, IoU 0.5."""
    batches, count, classes = scores_shape
    slots = max_det if regular else max_det * classes_per_box
    m = Model(lib)

    def scalar(v: float) -> int:  # FLOAT16 scalars for float16 tensors
        if type_ != TF16:
            return m.f32(v)
        idx = m.operand(10)  # FLOAT16
        m.set_value(idx, torch.tensor([v], dtype=torch.float16).numpy().tobytes())
        return idx

    ins = [m.tensor([batches, count, classes], type_), m.tensor([batches, count, length], type_),
           m.tensor([count, 4], type_)]
    outs = [m.tensor([batches, slots], type_), m.tensor([batches, slots, 4], type_), m.tensor([batches, slots], TI32),
            m.tensor([batches], TI32)]
    m.op("DETECTION_POSTPROCESSING", ins + [scalar(s) for s in SCALES] + [
        m.bool(regular), m.i32(max_det), m.i32(classes_per_box), m.i32(per_class), scalar(0.3), scalar(0.5),
        m.bool(bg_in_label)], outs)
    m.io(ins, outs)
    return m, slots


@pytest.mark.parametrize("regular,bg_in_label", [(True, False), (False, False), (False, True)],
                         ids=["regular", "fast", "fast_background_label"])
@pytest.mark.parametrize("seed", [0, 1])
def test_detection_postprocessing_is_torchvisions_decode_and_nms(lib, driver, seed, regular, bg_in_label):
    scores, deltas, anchors = _ssd_inputs(seed)
    m, slots = _ssd_model(lib, scores.shape, deltas.shape[2], regular, 5, 3, 2, bg_in_label)
    out = execute(lib, m, [scores, deltas, anchors], [torch.full((2, slots), -1.0), torch.full((2, slots, 4), -1.0),
                                                       torch.full((2, slots), -1, dtype=torch.int32),
                                                       torch.zeros(2, dtype=torch.int32)])
    want = torchvision_ssd(scores, deltas, anchors, regular, 5, 3, 2, 0.3, 0.5, bg_in_label)
    for b, rows in enumerate(want):
        n = len(rows)
        assert n > 1 and int(out[3][b]) == n
        torch.testing.assert_close(out[0][b, :n], torch.tensor([r[0] for r in rows]))
        torch.testing.assert_close(out[1][b, :n], torch.stack([r[1] for r in rows]), atol=1e-5, rtol=1e-5)
        assert out[2][b, :n].tolist() == [r[2] for r in rows]
        # The rest of each row is zero.
        assert not out[0][b, n:].any() and not out[1][b, n:].any() and not out[2][b, n:].any()


def test_detection_postprocessing_float16(lib, driver):
    scores, deltas, anchors = (t.half() for t in _ssd_inputs(3, length=4))
    m, slots = _ssd_model(lib, scores.shape, 4, True, 4, 4, 1, False, TF16)
    out = execute(lib, m, [scores, deltas, anchors], [torch.zeros(2, slots, dtype=torch.float16),
                                                       torch.zeros(2, slots, 4, dtype=torch.float16),
                                                       torch.zeros(2, slots, dtype=torch.int32),
                                                       torch.zeros(2, dtype=torch.int32)])
    want = torchvision_ssd(scores.float(), deltas.float(), anchors.float(), True, 4, 4, 1, 0.3, 0.5, False)
    for b, rows in enumerate(want):
        assert int(out[3][b]) == len(rows) == slots
        torch.testing.assert_close(out[0][b].float(), torch.tensor([r[0] for r in rows]), atol=1e-3, rtol=1e-3)
        torch.testing.assert_close(out[1][b].float(), torch.stack([r[1] for r in rows]), atol=1e-2, rtol=1e-3)
        assert out[2][b].tolist() == [r[2] for r in rows]


def test_detection_postprocessing_rejections(lib, driver):
    m = Model(lib)
    ins = [m.tensor([1, 4, 3], QA8, scale=0.1), m.tensor([1, 4, 4], QA8, scale=0.1), m.tensor([4, 4], QA8, scale=0.1)]
    outs = [m.tensor([1, 2]), m.tensor([1, 2, 4]), m.tensor([1, 2], TI32), m.tensor([1], TI32)]
    args = [m.f32(s) for s in SCALES] + [m.bool(True), m.i32(2), m.i32(1), m.i32(1), m.f32(0.3), m.f32(0.5),
                                          m.bool(False)]
    m.op("DETECTION_POSTPROCESSING", ins + args, outs, expect=BAD_DATA)
    assert "input 0 (scores) has type TENSOR_QUANT8_ASYMM; allowed: TENSOR_FLOAT32, TENSOR_FLOAT16" in last_error(lib)
    m, _ = _ssd_model(lib, (1, 4, 3), 4, True, 0, 1, 1, False)
    m.finish(expect=BAD_DATA)
    assert "input 8 (maximum detections) must be positive, got 0" in last_error(lib)


# -- 8-bit forms of BOX_WITH_NMS_LIMIT, AXIS_ALIGNED_BBOX_TRANSFORM, ROI_ALIGN, ROI_POOLING ----------------------
@pytest.mark.parametrize("kind", [QA8, TQ8S], ids=["quant8", "quant8_signed"])
@pytest.mark.parametrize("max_detections", [-1, 4])
def test_box_with_nms_limit_8bit(lib, driver, kind, max_detections):
    _, boxes = random_detections(12, 4, 0)
    zp = 0 if kind == QA8 else -128
    # Distinct codes: among equal scores Android's order is unspecified.
    codes = torch.randperm(250, generator=torch.Generator().manual_seed(1))[:48].reshape(12, 4) + zp
    q_scores = codes.to(Q8[kind][0])
    q_boxes = to_codes(boxes.clamp(min=0), 0.125, 0, TQ16A)
    batch = torch.tensor([0] * 5 + [1] * 4 + [2] * 3, dtype=torch.int32)
    m = Model(lib)
    ins = [m.tensor([12, 4], kind, scale=0.004, zp=zp), m.tensor([12, 16], TQ16A, **EIGHTH), m.tensor([12], TI32)]
    outs = [m.tensor([0], kind, scale=0.004, zp=zp), m.tensor([0, 4], TQ16A, **EIGHTH), m.tensor([0], TI32),
            m.tensor([0], TI32)]
    m.op("BOX_WITH_NMS_LIMIT", ins + [m.f32(SCORE_MIN), m.i32(max_detections), m.i32(0), m.f32(0.5), m.f32(0.5),
                                      m.f32(1e-6)], outs)
    m.io(ins, outs)
    got = run_dynamic(lib, m, [q_scores, q_boxes, batch], [
        torch.zeros(48, dtype=q_scores.dtype), torch.zeros(48, 4, dtype=torch.uint16),
        torch.zeros(48, dtype=torch.int32), torch.zeros(48, dtype=torch.int32)])
    scores, boxes_f = from_codes(q_scores, 0.004, zp).float(), from_codes(q_boxes, 0.125, 0).float()
    want = torchvision_detections(scores, boxes_f, batch, max_detections)
    assert len(want) > 3
    assert [(c, int(n)) for c, _, _, n in want] == list(zip(got[2].tolist(), got[3].tolist()))
    assert got[0].tolist() == [int(to_codes(torch.tensor(s), 0.004, zp, kind)) for _, s, _, _ in want]
    assert got[1].to(torch.int32).tolist() == [[int(v * 8) for v in b] for _, _, b, _ in want]


@pytest.mark.parametrize("kind", [QA8, TQ8S], ids=["quant8", "quant8_signed"])
def test_axis_aligned_bbox_transform_16bit(lib, driver, kind):
    rois = torch.tensor([[0, 1.0, 2.0, 13.0, 9.0], [1, 0.0, 0.0, 22.0, 18.0], [1, 4.5, 3.0, 5.0, 3.5],
                         [0, 3.25, 10.5, 19.875, 17.125]])
    sizes = torch.tensor([[18.0, 22.0], [12.0, 30.0]])
    deltas = torch.randn(4, 8, generator=torch.Generator().manual_seed(4)) * 0.5
    zp = 128 if kind == QA8 else 0
    q_deltas = to_codes(deltas, 0.02, zp, kind)
    m = Model(lib)
    ins = [m.tensor([4, 4], TQ16A, **EIGHTH), m.tensor([4, 8], kind, scale=0.02, zp=zp), m.tensor([4], TI32),
           m.tensor([2, 2], TQ16A, **EIGHTH)]
    out = m.tensor([4, 8], TQ16A, **EIGHTH)
    m.op("AXIS_ALIGNED_BBOX_TRANSFORM", ins, [out])
    m.io(ins, [out])
    (res,) = execute(lib, m, [to_codes(rois[:, 1:], 0.125, 0, TQ16A), q_deltas, rois[:, 0].int(),
                              to_codes(sizes, 0.125, 0, TQ16A)], [torch.zeros(4, 8, dtype=torch.uint16)])
    decoded = BoxCoder((1.0, 1.0, 1.0, 1.0), bbox_xform_clip=float("inf")).decode_single(
        from_codes(q_deltas, 0.02, zp).float(), rois[:, 1:])
    want = torch.stack([clip_boxes_to_image(b.reshape(-1, 4), tuple(int(v) for v in sizes[int(i)])).reshape(-1)
                        for b, i in zip(decoded, rois[:, 0])])
    np.testing.assert_allclose(res.to(torch.int32), to_codes(want, 0.125, 0, TQ16A).to(torch.int32), atol=1)


FEATURES = torch.randn(2, 5, 9, 11, generator=torch.Generator().manual_seed(3))
ROIS = torch.tensor([[0, 1.0, 2.0, 13.0, 9.0], [1, 0.0, 0.0, 22.0, 18.0], [1, 4.5, 3.0, 5.0, 3.5],
                     [0, 7.0, 7.0, 7.0, 7.0], [1, 3.25, 10.625, 19.875, 17.125], [0, 3.0, 5.0, 9.0, 15.0]])


def _roi_8bit(lib, name: str, kind: int, nchw_layout: bool, out_q: tuple[float, int], extra):
    """One 8-bit ROI operation on FEATURES (scale 0.05) and ROIS (stride 2); returns (output codes
    in NCHW, the dequantized features in NCHW)."""
    zp = 128 if kind == QA8 else 0
    q = to_codes(FEATURES, 0.05, zp, kind)
    x = q if nchw_layout else nhwc(q)
    count, ch = ROIS.shape[0], FEATURES.shape[1]
    shape = [count, ch, 3, 4] if nchw_layout else [count, 3, 4, ch]
    m = Model(lib)
    inp = m.tensor(list(x.shape), kind, scale=0.05, zp=zp)
    boxes, batch = m.tensor([count, 4], TQ16A, **EIGHTH), m.tensor([count], TI32)
    out = m.tensor(shape, kind, scale=out_q[0], zp=out_q[1])
    m.op(name, [inp, boxes, batch, m.i32(3), m.i32(4), m.f32(2.0), m.f32(2.0), *extra(m), m.bool(nchw_layout)], [out])
    m.io([inp, boxes, batch], [out])
    (res,) = execute(lib, m, [x, to_codes(ROIS[:, 1:], 0.125, 0, TQ16A), ROIS[:, 0].int()],
                     [torch.zeros(shape, dtype=q.dtype)])
    return (res if nchw_layout else nchw(res)), from_codes(q, 0.05, zp).float()


@pytest.mark.parametrize("kind", [QA8, TQ8S], ids=["quant8", "quant8_signed"])
@pytest.mark.parametrize("nchw_layout", [False, True], ids=["nhwc", "nchw"])
@pytest.mark.parametrize("ratio", [0, 2])
def test_roi_align_8bit(lib, driver, kind, nchw_layout, ratio):
    out_zp = 120 if kind == QA8 else -8
    res, x = _roi_8bit(lib, "ROI_ALIGN", kind, nchw_layout, (0.04, out_zp), lambda m: [m.i32(ratio), m.i32(ratio)])
    want = roi_align(x, ROIS, (3, 4), spatial_scale=0.5, sampling_ratio=ratio, aligned=False)
    # The reference rounds each bilinear weight to a multiple of 1/255: some codes one off.
    np.testing.assert_allclose(res.to(torch.int32), to_codes(want, 0.04, out_zp, kind).to(torch.int32), atol=1)


@pytest.mark.parametrize("kind", [QA8, TQ8S], ids=["quant8", "quant8_signed"])
@pytest.mark.parametrize("nchw_layout", [False, True], ids=["nhwc", "nchw"])
def test_roi_pooling_8bit_pools_the_codes(lib, driver, kind, nchw_layout):
    zp = 128 if kind == QA8 else 0
    res, x = _roi_8bit(lib, "ROI_POOLING", kind, nchw_layout, (0.05, zp), lambda m: [])
    want = roi_pool(x, ROIS, (3, 4), spatial_scale=0.5)
    assert torch.equal(res.to(torch.int32), to_codes(want, 0.05, zp, kind).to(torch.int32))


# -- zero-sized tensors between operations --------------------------------------------------------------------
@pytest.mark.parametrize("kind", [3, QA8, TQ8S], ids=["float32", "quant8", "quant8_signed"])
@pytest.mark.parametrize("nchw_layout", [False, True], ids=["nhwc", "nchw"])
def test_no_detection_feeds_roi_align_zero_boxes(lib, driver, kind, nchw_layout):
    """BOX_WITH_NMS_LIMIT keeping no box (every score under the threshold) hands ROI_ALIGN [0, 4]
    boxes and [0] batch indices; ROI_ALIGN then makes a [0, 2, 2, 1] output, as on Android."""
    quantized = kind != 3
    zp = {3: 0, QA8: 128, TQ8S: 0}[kind]
    q8 = {"scale": 0.1, "zp": zp} if quantized else {}
    boxes_type, box_q = (TQ16A, EIGHTH) if quantized else (3, {})
    scores = torch.tensor([[0.9, 0.1]])
    boxes = torch.tensor([[1.0, 1.0, 10.0, 10.0, 0.0, 0.0, 10.0, 10.0]])
    m = Model(lib)
    consts = [m.const(to_codes(scores, 0.1, zp, kind), kind, **q8) if quantized else m.const(scores),
              m.const(to_codes(boxes, 0.125, 0, TQ16A), boxes_type, **box_q) if quantized
              else m.const(boxes), m.const(torch.tensor([0], dtype=torch.int32))]
    nms_outs = [m.tensor([0], kind, **q8), m.tensor([0, 4], boxes_type, **box_q), m.tensor([0], TI32),
                m.tensor([0], TI32)]
    m.op("BOX_WITH_NMS_LIMIT", consts + [m.f32(0.3), m.i32(-1), m.i32(0), m.f32(0.4), m.f32(1.0), m.f32(0.3)], nms_outs)
    features = m.tensor([1, 1, 1, 1], kind, **q8)
    aligned = m.tensor([0, 1, 2, 2] if nchw_layout else [0, 2, 2, 1], kind, **q8)
    m.op("ROI_ALIGN", [features, nms_outs[1], nms_outs[3], m.i32(2), m.i32(2), m.f32(2.0), m.f32(2.0), m.i32(4),
                       m.i32(4), m.bool(nchw_layout)], [aligned])
    m.io([features], [nms_outs[0], nms_outs[2], aligned])
    dtype = {3: torch.float32, QA8: torch.uint8, TQ8S: torch.int8}[kind]
    got = run_dynamic(lib, m, [torch.zeros(1, 1, 1, 1, dtype=dtype)],
                      [torch.zeros(1, dtype=dtype), torch.zeros(1, dtype=torch.int32), torch.zeros(4, dtype=dtype)])
    assert [list(g.shape) for g in got] == [[0], [0], [0, 1, 2, 2] if nchw_layout else [0, 2, 2, 1]]


@pytest.mark.parametrize("quantized", [False, True], ids=["float32", "quant8"])
def test_no_proposal_feeds_roi_pooling_zero_boxes(lib, driver, quantized):
    """GENERATE_PROPOSALS whose one box is too small (deltas shrink it below the minimum size)
    hands ROI_POOLING zero boxes."""
    m = Model(lib)
    if quantized:
        q8 = {"scale": 0.1, "zp": 128}
        ins = [m.tensor([1, 1, 1, 1], QA8, **q8), m.tensor([1, 1, 1, 4], QA8, **q8),
               m.tensor([1, 4], TQ16S, scale=0.125), m.tensor([1, 2], TQ16A, **EIGHTH)]
        outs = [m.tensor([0], QA8, **q8), m.tensor([0, 4], TQ16A, **EIGHTH), m.tensor([0], TI32)]
        values = [to_codes(torch.tensor([0.5]).reshape(1, 1, 1, 1), 0.1, 128, QA8),
                  to_codes(torch.tensor([0.0, 0.0, -10.0, -10.0]).reshape(1, 1, 1, 4), 0.1, 128, QA8),
                  to_codes(torch.tensor([[0.0, 0.0, 10.0, 10.0]]), 0.125, 0, TQ16S),
                  to_codes(torch.tensor([[32.0, 32.0]]), 0.125, 0, TQ16A)]
    else:
        q8 = {}
        ins = [m.tensor([1, 1, 1, 1]), m.tensor([1, 1, 1, 4]), m.tensor([1, 4]), m.tensor([1, 2])]
        outs = [m.tensor([0]), m.tensor([0, 4]), m.tensor([0], TI32)]
        values = [torch.tensor([0.5]).reshape(1, 1, 1, 1), torch.tensor([0.0, 0.0, -10.0, -10.0]).reshape(1, 1, 1, 4),
                  torch.tensor([[0.0, 0.0, 10.0, 10.0]]), torch.tensor([[32.0, 32.0]])]
    m.op("GENERATE_PROPOSALS", ins + [m.f32(1.0), m.f32(1.0), m.i32(-1), m.i32(-1), m.f32(0.3), m.f32(10.0),
                                      m.bool(False)], outs)
    kind = QA8 if quantized else 3
    features, pooled = m.tensor([1, 1, 1, 1], kind, **q8), m.tensor([0, 2, 2, 1], kind, **q8)
    m.op("ROI_POOLING", [features, outs[1], outs[2], m.i32(2), m.i32(2), m.f32(1.0), m.f32(1.0), m.bool(False)],
         [pooled])
    m.io(ins + [features], [outs[0], pooled])
    dtype = torch.uint8 if quantized else torch.float32
    got = run_dynamic(lib, m, values + [torch.zeros(1, 1, 1, 1, dtype=dtype)],
                      [torch.zeros(1, dtype=dtype), torch.zeros(4, dtype=dtype)])
    assert [list(g.shape) for g in got] == [[0], [0, 2, 2, 1]]


# -- rejections of the 8-bit forms ----------------------------------------------------------------------------
def test_8bit_box_with_nms_limit_needs_boxes_in_eighths(lib, driver):
    m = Model(lib)
    ins = [m.tensor([2, 2], QA8, scale=0.1), m.tensor([2, 8], TQ16A, scale=0.25), m.tensor([2], TI32)]
    outs = [m.tensor([0], QA8, scale=0.1), m.tensor([0, 4], TQ16A, scale=0.25), m.tensor([0], TI32),
            m.tensor([0], TI32)]
    m.op("BOX_WITH_NMS_LIMIT", ins + [m.f32(0.3), m.i32(-1), m.i32(0), m.f32(0.4), m.f32(1.0), m.f32(0.3)], outs)
    m.io(ins, outs)
    m.finish(expect=BAD_DATA)
    assert "input 1 (boxes) of type TENSOR_QUANT16_ASYMM must have scale 0.125 and zeroPoint 0, got 0.25" in \
        last_error(lib)


def test_16bit_bbox_transform_needs_8bit_deltas(lib, driver):
    m = Model(lib)
    ins = [m.tensor([2, 4], TQ16A, **EIGHTH), m.tensor([2, 4]), m.tensor([2], TI32), m.tensor([1, 2], TQ16A, **EIGHTH)]
    m.op("AXIS_ALIGNED_BBOX_TRANSFORM", ins, [m.tensor([2, 4], TQ16A, **EIGHTH)], expect=BAD_DATA)
    assert ("input 1 (deltas) has type TENSOR_FLOAT32; allowed: TENSOR_QUANT8_ASYMM, TENSOR_QUANT8_ASYMM_SIGNED"
            in last_error(lib))


def test_8bit_roi_pooling_keeps_the_quantization(lib, driver):
    m = Model(lib)
    ins = [m.tensor([1, 4, 4, 1], TQ8S, scale=0.1), m.tensor([1, 4], TQ16A, **EIGHTH), m.tensor([1], TI32)]
    m.op("ROI_POOLING", ins + [m.i32(2), m.i32(2), m.f32(1.0), m.f32(1.0), m.bool(False)],
         [m.tensor([1, 2, 2, 1], TQ8S, scale=0.2)], expect=BAD_DATA)
    assert "output 0 must have input 0's scale/zeroPoint (0.1, 0), got (0.2, 0)" in last_error(lib)
