"""CAST (45): convert between F16, F32, TENSOR_INT32 and QUANT8_ASYMM (quantization ignored)."""

import torch

from ..operand_types import type_name
from .common import B8T, F16, F32, I32T, Q16A, Q16S, QA8, QA8S, QS8, Ctx

NAME, CODE, SINCE = "CAST", 45, 29
QUANT_COMPUTE = True  # quantized values are cast as plain integers by definition
CONVERTIBLE = {F16, F32, I32T, QA8}
IDENTITY_30 = {B8T, I32T, Q16A, Q16S, QA8S, QS8}
_RANGE = {torch.int32: (-2**31, 2**31 - 1), torch.uint8: (0, 255)}


def validate(c: Ctx) -> None:
    c.counts((1,))
    t, o = c.type(0), c.out_type(0)
    if not (t in CONVERTIBLE and o in CONVERTIBLE):
        if t == o and t in IDENTITY_30:
            c.require_level(30, f"an identity CAST of {type_name(t)}")
        else:
            c.fail(f"cannot cast {type_name(t)} to {type_name(o)}")
    c.p.dtype = {F16: torch.float16, F32: torch.float32, I32T: torch.int32, QA8: torch.uint8}.get(o)
    c.p.to_int = o in (I32T, QA8) and t in (F16, F32)
    c.p.saturate = o == QA8 and t == I32T
    c.set_out(0, c.dims(0))


def compute(ins, p):
    x = ins[0]
    if p.dtype is None or x.dtype == p.dtype:
        return [x]
    if p.to_int or p.saturate:
        # Out-of-range values saturate instead of wrapping (C conversion is undefined there).
        # float64 holds both int32 bounds exactly; conversion then truncates toward zero.
        lo, hi = _RANGE[p.dtype]
        x = x.double().clamp(lo, hi) if x.is_floating_point() else x.clamp(lo, hi)
    return [x.to(p.dtype)]
