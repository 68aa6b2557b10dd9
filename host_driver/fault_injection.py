"""EXECUTORCH_NNAPI_HOST_FAULT=OPERATION:K: a deliberate error in one operation, for testing the
numerics debugger (docs/debugging.md). The K-th operation (counting from 0, in the model's
operation order) whose NNAPI name is OPERATION gets its output 0 perturbed, in every model
compiled while the variable is set. The host driver only: a device has no such thing."""

from __future__ import annotations

import os
from typing import Optional, Sequence

import torch

FAULT_VARIABLE = "EXECUTORCH_NNAPI_HOST_FAULT"


def fault_spec(value: Optional[str] = None) -> Optional[tuple[str, int]]:
    """(operation name, K) from the variable (or ``value``), None when unset; a malformed value
    is an error naming the variable."""
    text = os.environ.get(FAULT_VARIABLE, "") if value is None else value
    if not text:
        return None
    name, sep, k = text.rpartition(":")
    if not sep or not name or not k.isdigit():
        raise ValueError(f"{FAULT_VARIABLE}={text!r}: expected OPERATION:K, e.g. CONV_2D:1")
    return name.upper(), int(k)


def faulted_operation(names: Sequence[str], spec: Optional[tuple[str, int]]) -> Optional[int]:
    """Index (into ``names``, the model's operation names in order) of the operation to perturb."""
    if spec is None:
        return None
    matches = [i for i, n in enumerate(names) if n == spec[0]]
    return matches[spec[1]] if spec[1] < len(matches) else None


def perturb(t: torch.Tensor) -> torch.Tensor:
    """A copy of ``t`` that is clearly wrong: floats shifted by 1 + a quarter of their range,
    8-bit codes by 16 steps (saturating), other integers by 1, booleans flipped."""
    if t.dtype == torch.bool:
        return ~t
    if t.is_floating_point():
        return t + (1.0 + 0.25 * float(t.abs().max())) if t.numel() else t.clone()
    if t.dtype in (torch.uint8, torch.int8):
        info = torch.iinfo(t.dtype)
        shifted = t.to(torch.int32) + 16
        return torch.where(shifted > info.max, t.to(torch.int32) - 16, shifted).to(t.dtype)
    return t + 1
