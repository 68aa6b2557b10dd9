"""The comparisons (TENSOR_BOOL8 result) and LOGICAL_AND / LOGICAL_OR, broadcasting (docs/nnapi_facts.md §7.5):
one table row each. LOGICAL_NOT is in elementwise_unary.py.
"""

from __future__ import annotations

from typing import Callable

import torch

from .common import B8T, F16, F32, I32T, QA8, QA8S, Ctx, OperationDef
from .elementwise_binary import validate_binary

# AOSP Comparisons.cpp: every comparison takes BOOL8 as well; quantized inputs may have their own
# scale/zeroPoint: they compare the real values, each float32((code - zeroPoint) * scale).
COMPARISON_TYPES = {B8T: 29, F16: 29, F32: 29, I32T: 29, QA8: 29, QA8S: 30}


def _bool_result(name: str, code: int, types: dict[int, int], fn: Callable) -> OperationDef:
    """A broadcasting operation of two same-type tensors with a TENSOR_BOOL8 output (API 29)."""

    def validate(c: Ctx) -> None:
        validate_binary(c, types, fused=False, max_rank=None, out_type=B8T)

    def compute(ins, p):
        a, b = ins
        if a.dtype in (torch.uint8, torch.int8):
            a, b = _real(a, p.in_q[0]), _real(b, p.in_q[1])
        return [fn(a, b)]

    return OperationDef(name, code, 29, validate, compute, QUANT_COMPUTE=bool(set(types) & {QA8, QA8S}))


def _real(codes: torch.Tensor, q: tuple[float, int]) -> torch.Tensor:
    """The float32 value of each code, as the reference computes it: one float32 product."""
    scale, zero_point = q
    return (codes.to(torch.int32) - zero_point).to(torch.float32) * torch.tensor(scale, dtype=torch.float32)


OPERATIONS: tuple[OperationDef, ...] = (
    _bool_result("EQUAL", 48, COMPARISON_TYPES, torch.eq),
    _bool_result("NOT_EQUAL", 68, COMPARISON_TYPES, torch.ne),
    _bool_result("GREATER", 53, COMPARISON_TYPES, torch.gt),
    _bool_result("GREATER_EQUAL", 54, COMPARISON_TYPES, torch.ge),
    _bool_result("LESS", 58, COMPARISON_TYPES, torch.lt),
    _bool_result("LESS_EQUAL", 59, COMPARISON_TYPES, torch.le),
    _bool_result("LOGICAL_AND", 61, {B8T: 29}, torch.logical_and),
    _bool_result("LOGICAL_OR", 63, {B8T: 29}, torch.logical_or),
)
