"""DEQUANTIZE (6): 8-bit codes to float, scale · (q − zp) in float32, per-channel scales too (docs/nnapi_facts.md §9.4)."""

import torch

from ..operand_types import type_name
from .common import F16, F32, QA8, QA8S, QS8, QS8PC, Ctx

NAME, CODE, SINCE = "DEQUANTIZE", 6, 27
QUANT_COMPUTE = True
TYPES = {QA8: 27, QS8: 29, QS8PC: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    c.counts((1,))
    t = c.tensor(0, TYPES, "input")
    out = c.out_type(0)
    if out not in (F32, F16):
        c.fail(f"output 0 must be TENSOR_FLOAT32 or TENSOR_FLOAT16, got {type_name(out)}")
    if out == F16:
        c.require_level(29, "a TENSOR_FLOAT16 output")
    r = c.max_rank(0)
    op = c.operand(0)
    c.p.scale, c.p.zp = op.scale, op.zero_point
    if t == QS8PC:
        axis, scales = c.channel_quant(0)
        shape = [1] * r
        shape[axis] = -1
        c.p.scale, c.p.zp = torch.tensor(scales, dtype=torch.float32).view(shape), 0
    c.set_out(0, c.dims(0))


def compute(ins, p):
    # float32 (q - zp) times the float32 scale: one float32 rounding, as AOSP's loop.
    return [(ins[0].to(torch.int64) - p.zp).to(torch.float32) * torch.as_tensor(p.scale, dtype=torch.float32)]
