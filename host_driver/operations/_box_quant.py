"""The 8- and 16-bit forms of the box operations (AXIS_ALIGNED_BBOX_TRANSFORM, BOX_WITH_NMS_LIMIT,
GENERATE_PROPOSALS, HEATMAP_MAX_KEYPOINT, ROI_POOLING's boxes): Android's reference converts the
codes to float32, computes as for float32 and converts the results back. These are its two
conversions, in its float32 arithmetic, and the quantization its 16-bit boxes must have."""

from __future__ import annotations

import torch

from ..operand_types import type_name
from .common import Ctx, f32

# Code range of each quantized storage dtype.
CODE_RANGE = {torch.uint8: (0, 255), torch.int8: (-128, 127), torch.uint16: (0, 65535), torch.int16: (-32768, 32767)}

# TENSOR_QUANT16_ASYMM boxes are in eighths of a pixel (checked when the operation is prepared).
BOX_Q = (0.125, 0)


def dequantize(q: torch.Tensor, scale: float, zero_point: int) -> torch.Tensor:
    """(float(q) - zeroPoint) * scale in float32 (convertQuantToFloat32)."""
    return (q.to(torch.float32) - float(zero_point)) * f32(scale)


def quantize(x: torch.Tensor, scale: float, zero_point: int, dtype: torch.dtype) -> torch.Tensor:
    """round(x / scale + zeroPoint) in float32, half away from zero, saturated to ``dtype``
    (convertFloat32ToQuant: the zero point is added before rounding)."""
    # float64 division rounded once to float32 is float32's correctly rounded quotient.
    v = (x.to(torch.float64) / f32(scale)).to(torch.float32) + float(zero_point)
    v = v.to(torch.float64)
    rounded = torch.sign(v) * torch.floor(v.abs() + 0.5)
    lo, hi = CODE_RANGE[dtype]
    return rounded.clamp(lo, hi).to(dtype)


def check_box_quant(c: Ctx, operand: int, what: str, output: bool = False) -> None:
    """A 16-bit box operand (input, or output when ``output``) must have scale 0.125 and zeroPoint 0."""
    o = c.out_operand(operand) if output else c.operand(operand)
    if (o.scale, o.zero_point) != BOX_Q:
        where = f"output {operand}" if output else f"input {operand}"
        c.fail(f"{where} ({what}) of type {type_name(o.type)} must have scale 0.125 and zeroPoint 0, "
               f"got {o.scale:g} and {o.zero_point}")
