"""AXIS_ALIGNED_BBOX_TRANSFORM (41): per region and class, the box's centre moved by
(dx * w, dy * h) and its size scaled by (exp(dw), exp(dh)), then clipped to its image's
[0, width] x [0, height]; float32 as Android's reference implementation computes it (a region
with x2 < x1, y2 < y1 or a batch index out of range fails the execution). The 16-bit form
(boxes and image sizes in eighths of a pixel, 8-bit deltas) converts to float32 and back."""

from __future__ import annotations

import torch

from ..errors import op_failed
from ._box_quant import check_box_quant, dequantize, quantize
from .common import F16, F32, I32T, Q16A, QA8, QA8S, Ctx

NAME, CODE, SINCE = "AXIS_ALIGNED_BBOX_TRANSFORM", 41, 29
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    c.counts((4,))
    quantized = c.tensor(0, {F32: 29, F16: 29, Q16A: 29}, "regions") == Q16A
    if quantized:
        c.tensor(1, {QA8: 29, QA8S: 30}, "deltas")
    else:
        c.same_type(1, 0, "deltas")
    c.tensor(2, {I32T: 29}, "batch indices")
    c.same_type(3, 0, "image sizes")
    c.out_like(0, 0, same_q=False)
    rois, deltas, batch, sizes = c.dims(0), c.dims(1), c.dims(2), c.dims(3)
    if len(rois) != 2 or rois[1] != 4:
        c.fail(f"input 0 (regions) must be [num_rois, 4], got {list(rois)}")
    if len(deltas) != 2 or deltas[0] != rois[0] or deltas[1] < 4 or deltas[1] % 4:
        c.fail(f"input 1 (deltas) must be [{rois[0]}, 4 * num_classes], got {list(deltas)}")
    if list(batch) != [rois[0]]:
        c.fail(f"input 2 (batch indices) must be [{rois[0]}], got {list(batch)}")
    if len(sizes) != 2 or sizes[1] != 2 or sizes[0] < 1:
        c.fail(f"input 3 (image sizes) must be [num_batches, 2], got {list(sizes)}")
    if quantized:
        check_box_quant(c, 0, "regions")
        check_box_quant(c, 3, "image sizes")
        check_box_quant(c, 0, "regions", output=True)
    c.set_out(0, deltas)


def decode_boxes(rois: torch.Tensor, deltas: torch.Tensor, batch: torch.Tensor, sizes: torch.Tensor) -> torch.Tensor:
    """The float32 transform: boxes [K, 4], deltas [K, 4 * classes], batch indices [K], image
    (height, width) [B, 2]; returns [K, 4 * classes]. Raises op_failed on a malformed region."""
    count = rois.shape[0]
    ordered = ((rois[:, 0] <= rois[:, 2]) & (rois[:, 1] <= rois[:, 3])).tolist()
    for k, (b, fine) in enumerate(zip(batch.tolist(), ordered)):
        if not 0 <= b < sizes.shape[0]:
            raise op_failed(f"region {k}: batch index {b} is outside [0, {sizes.shape[0]})")
        if not fine:
            raise op_failed(f"region {k}: box {rois[k].tolist()} has x2 < x1 or y2 < y1")
    d = deltas.reshape(count, deltas.shape[1] // 4, 4)
    w = (rois[:, 2] - rois[:, 0])[:, None]
    h = (rois[:, 3] - rois[:, 1])[:, None]
    cx = ((rois[:, 0] + rois[:, 2]) / 2)[:, None]
    cy = ((rois[:, 1] + rois[:, 3]) / 2)[:, None]
    half_w = torch.exp(d[..., 2]) * w / 2
    half_h = torch.exp(d[..., 3]) * h / 2
    px, py = cx + d[..., 0] * w, cy + d[..., 1] * h
    image = sizes[batch.long()] if count else sizes[:0]
    height, width = image[:, 0:1], image[:, 1:2]
    out = torch.stack([(px - half_w).clamp(min=0).minimum(width), (py - half_h).clamp(min=0).minimum(height),
                       (px + half_w).clamp(min=0).minimum(width), (py + half_h).clamp(min=0).minimum(height)], -1)
    return out.reshape(deltas.shape)


def compute(ins, p):
    rois, deltas, batch, sizes = ins
    if rois.dtype == torch.uint16:
        (s_roi, zp_roi), (s_d, zp_d), _, (s_img, zp_img) = p.in_q
        out = decode_boxes(dequantize(rois, s_roi, zp_roi), dequantize(deltas, s_d, zp_d), batch,
                           dequantize(sizes, s_img, zp_img))
        return [quantize(out, *p.out_q[0], torch.uint16)]
    return [decode_boxes(rois.float(), deltas.float(), batch, sizes.float()).to(deltas.dtype)]
