"""BOX_WITH_NMS_LIMIT in the host driver, driven through the C API: its detections against
torchvision's batched_nms (per class, class 0 as background, cut to the maximum number of
detections) on random boxes, with tied scores and with no detection at all; its soft kernels on
a hand-computed pair; and a malformed box failing the run. The number of detections is read back
with getOutputOperandDimensions, as a client of a data-dependent output must."""

from __future__ import annotations

import ctypes

import pytest
import torch
from torchvision.ops import batched_nms

from nnapi_client import OP_FAILED, TI32, Execution, Model, last_error

IOU, SCORE_MIN, NMS_SCORE_MIN = 0.5, 0.3, 1e-6


def random_detections(rows: int, classes: int, seed: int):
    """Scores [rows, classes] and per-class boxes [rows, classes * 4] clustered so that NMS acts."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.rand(rows, classes, 2, generator=g) * 40
    centres[rows // 2:] = centres[:rows - rows // 2] + torch.rand(rows - rows // 2, classes, 2, generator=g) * 3
    sizes = 4 + torch.rand(rows, classes, 2, generator=g) * 12
    boxes = torch.cat([centres - sizes / 2, centres + sizes / 2], dim=-1).reshape(rows, classes * 4)
    return torch.rand(rows, classes, generator=g), boxes


def run_nms(lib, scores, boxes, batch, max_detections: int, kernel: int = 0, sigma: float = 0.5,
            expect: int = 0):
    """(scores, boxes, classes, batch indices) of BOX_WITH_NMS_LIMIT, outputs declared of unknown size."""
    rows, classes = scores.shape
    m = Model(lib)
    ins = [m.tensor([rows, classes]), m.tensor([rows, classes * 4]), m.tensor([rows], TI32)]
    outs = [m.tensor([0]), m.tensor([0, 4]), m.tensor([0], TI32), m.tensor([0], TI32)]
    m.op("BOX_WITH_NMS_LIMIT", ins + [m.f32(SCORE_MIN), m.i32(max_detections), m.i32(kernel), m.f32(IOU),
                                      m.f32(sigma), m.f32(NMS_SCORE_MIN)], outs)
    m.io(ins, outs)
    m.finish()
    ex = Execution(lib, m.compile())
    for j, x in enumerate((scores, boxes, batch.int())):
        ex.set_input(j, x)
    capacity = rows * classes
    buffers = [torch.zeros(capacity), torch.zeros(capacity, 4), torch.zeros(capacity, dtype=torch.int32),
               torch.zeros(capacity, dtype=torch.int32)]
    for j, b in enumerate(buffers):
        ex.set_output(j, b)
    assert ex.compute() == expect, last_error(lib)
    if expect:
        return None
    dims = (ctypes.c_uint32 * 2)()
    assert lib.ANeuralNetworksExecution_getOutputOperandDimensions(ex.handle, 0, dims) == 0, last_error(lib)
    count = dims[0]
    return buffers[0][:count], buffers[1][:count], buffers[2][:count], buffers[3][:count]


def torchvision_detections(scores, boxes, batch, max_detections: int):
    """The same selection with torchvision's batched_nms, in NNAPI's output order."""
    classes = scores.shape[1]
    out = []
    for b in batch.unique_consecutive().tolist():
        rows = (batch == b).nonzero().flatten()
        cand = [(r, c) for r in rows.tolist() for c in range(1, classes) if scores[r, c] > SCORE_MIN]
        if not cand:
            continue
        s = torch.stack([scores[r, c] for r, c in cand])
        bx = torch.stack([boxes[r, c * 4:c * 4 + 4] for r, c in cand])
        keep = batched_nms(bx, s, torch.tensor([c for _, c in cand]), IOU)
        if max_detections >= 0:
            keep = keep[:max_detections]
        found = [(cand[k][1], s[k].item(), tuple(bx[k].tolist()), b) for k in keep.tolist()]
        out += sorted(found, key=lambda d: (d[0], -d[1]))
    return out


def as_detections(result):
    scores, boxes, classes, batch = result
    return [(c, s, tuple(b), n) for s, b, c, n in zip(scores.tolist(), boxes.tolist(), classes.tolist(),
                                                      batch.tolist())]


@pytest.mark.parametrize("max_detections", [-1, 3, 8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_detections_are_torchvisions_batched_nms(lib, driver, seed, max_detections):
    scores, boxes = random_detections(12, 4, seed)
    batch = torch.tensor([0] * 5 + [1] * 4 + [2] * 3)
    got = as_detections(run_nms(lib, scores, boxes, batch, max_detections))
    assert got == torchvision_detections(scores, boxes, batch, max_detections)
    assert got, "the case should keep some detections"


def test_tied_scores(lib, driver):
    # Two exact duplicates (one survives), and equal scores on boxes that do not overlap (all survive).
    scores = torch.tensor([[0.1, 0.8], [0.1, 0.8], [0.1, 0.6], [0.1, 0.6], [0.1, 0.6]])
    boxes = torch.tensor([[0, 0, 1, 1, 0, 0, 10, 10], [0, 0, 1, 1, 0, 0, 10, 10], [0, 0, 1, 1, 20, 0, 30, 10],
                          [0, 0, 1, 1, 40, 0, 50, 10], [0, 0, 1, 1, 60, 0, 70, 10]], dtype=torch.float32)
    batch = torch.zeros(5, dtype=torch.int32)
    got = as_detections(run_nms(lib, scores, boxes, batch, -1))
    # Among equal scores the output order is unspecified (Android sorts with std::sort): compare sets.
    assert sorted(got) == sorted(torchvision_detections(scores, boxes, batch, -1))
    assert [d[1] for d in got] == pytest.approx([0.8, 0.6, 0.6, 0.6])


def test_no_detection_gives_empty_outputs(lib, driver):
    scores, boxes = random_detections(6, 3, 5)
    scores[:, 1:] = SCORE_MIN  # not above the threshold
    scores_out, boxes_out, classes, batch = run_nms(lib, scores, boxes, torch.zeros(6, dtype=torch.int32), 4)
    assert scores_out.numel() == boxes_out.numel() == classes.numel() == batch.numel() == 0
    assert torchvision_detections(scores, boxes, torch.zeros(6, dtype=torch.int32), 4) == []


@pytest.mark.parametrize("kernel,second,factor", [
    (1, [2.0, 0.0, 12.0, 10.0], 1 - 80 / 120),                          # IoU 2/3 >= 0.5: score * (1 - IoU)
    (2, [5.0, 0.0, 15.0, 10.0], float(torch.exp(torch.tensor(-(50 / 150) ** 2 / 0.5)))),  # exp(-IoU^2 / sigma)
], ids=["linear", "gaussian"])
def test_soft_kernels_rescale_the_overlapping_score(lib, driver, kernel, second, factor):
    scores = torch.tensor([[0.0, 0.9], [0.0, 0.7]])
    boxes = torch.tensor([[0, 0, 1, 1, 0.0, 0.0, 10.0, 10.0], [0, 0, 1, 1, *second]])
    got_scores, _, _, _ = run_nms(lib, scores, boxes, torch.zeros(2, dtype=torch.int32), -1, kernel=kernel)
    torch.testing.assert_close(got_scores, torch.tensor([0.9, 0.7 * factor]))


def test_inverted_box_fails_the_run(lib, driver):
    scores, boxes = random_detections(4, 2, 9)
    boxes[2, 4], boxes[2, 6] = 30.0, 20.0  # class 1 box of row 2: x1 > x2
    run_nms(lib, scores, boxes, torch.zeros(4, dtype=torch.int32), -1, expect=OP_FAILED)
    assert "region 2: a box has x2 < x1 or y2 < y1" in last_error(lib)


@pytest.mark.parametrize("kernel", [0, 1])
def test_the_vectorized_passes_equal_the_candidate_by_candidate_loop(kernel, monkeypatch):
    """From VECTOR_FROM candidates a pass rescales the scores as tensors: the same detections, scores
    and order as one candidate at a time, with tied scores and degenerate (NaN IoU) boxes."""
    from types import SimpleNamespace

    from executorch_nnapi.host_driver.operations import box_with_nms_limit as op

    g = torch.Generator().manual_seed(3)
    scores, boxes = random_detections(400, 4, seed=3)
    scores = (scores * 16).round() / 16   # ties
    per_class = boxes.view(400, 4, 4)
    per_class[::7, :, 2:4] = per_class[::7, :, 0:2]   # empty boxes: IoU 0 / 0
    batch = sorted(torch.randint(0, 2, (400,), generator=g).tolist())
    for max_detections in (-1, 50):
        p = SimpleNamespace(score_threshold=0.05, max_detections=max_detections, kernel=kernel, iou_threshold=0.4,
                            sigma=0.5, nms_score_threshold=0.01)
        vectorized = op._select(scores, boxes, batch, p)
        monkeypatch.setattr(op, "VECTOR_FROM", 10**9)
        one_by_one = op._select(scores, boxes, batch, p)
        monkeypatch.undo()
        assert len(vectorized) > 20 and repr(vectorized) == repr(one_by_one)
