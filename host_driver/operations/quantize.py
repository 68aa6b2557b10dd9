"""QUANTIZE (72): float to 8-bit codes, zp + round_half_away(x / scale) in float32 (docs/nnapi_facts.md §9.4)."""

from ..operand_types import type_name
from . import _qkernels as qk
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "QUANTIZE", 72, 29
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    c.counts((1,))
    c.tensor(0, {F32: 29, F16: 29}, "input")
    out = c.out_operand(0)
    if out.type not in (QA8, QA8S):
        c.fail(f"output 0 must be TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED, got {type_name(out.type)}")
    if out.type == QA8S:
        c.require_level(30, "a TENSOR_QUANT8_ASYMM_SIGNED output")
    c.p.q_out = (out.scale, out.zero_point, qk.DTYPE_OF[out.type])
    c.set_out(0, c.dims(0))


def compute(ins, p):
    return [qk.quantize(ins[0], *p.q_out)]
