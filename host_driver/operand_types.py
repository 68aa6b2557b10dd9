"""NNAPI operand types: codes, sizes, storage dtypes and the addOperand validation (docs/nnapi_facts.md §3)."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Optional

import torch

from .errors import bad_data, feature_level_name

# OperandCode.
FLOAT32 = 0
INT32 = 1
UINT32 = 2
TENSOR_FLOAT32 = 3
TENSOR_INT32 = 4
TENSOR_QUANT8_ASYMM = 5
BOOL = 6
TENSOR_QUANT16_SYMM = 7
TENSOR_FLOAT16 = 8
TENSOR_BOOL8 = 9
FLOAT16 = 10
TENSOR_QUANT8_SYMM_PER_CHANNEL = 11
TENSOR_QUANT16_ASYMM = 12
TENSOR_QUANT8_SYMM = 13
TENSOR_QUANT8_ASYMM_SIGNED = 14
MODEL = 15

NAMES = {
    FLOAT32: "FLOAT32",
    INT32: "INT32",
    UINT32: "UINT32",
    TENSOR_FLOAT32: "TENSOR_FLOAT32",
    TENSOR_INT32: "TENSOR_INT32",
    TENSOR_QUANT8_ASYMM: "TENSOR_QUANT8_ASYMM",
    BOOL: "BOOL",
    TENSOR_QUANT16_SYMM: "TENSOR_QUANT16_SYMM",
    TENSOR_FLOAT16: "TENSOR_FLOAT16",
    TENSOR_BOOL8: "TENSOR_BOOL8",
    FLOAT16: "FLOAT16",
    TENSOR_QUANT8_SYMM_PER_CHANNEL: "TENSOR_QUANT8_SYMM_PER_CHANNEL",
    TENSOR_QUANT16_ASYMM: "TENSOR_QUANT16_ASYMM",
    TENSOR_QUANT8_SYMM: "TENSOR_QUANT8_SYMM",
    TENSOR_QUANT8_ASYMM_SIGNED: "TENSOR_QUANT8_ASYMM_SIGNED",
    MODEL: "MODEL",
}

# Feature level that introduced each type.
SINCE = {
    FLOAT32: 27, INT32: 27, UINT32: 27, TENSOR_FLOAT32: 27, TENSOR_INT32: 27,
    TENSOR_QUANT8_ASYMM: 27, BOOL: 29, TENSOR_QUANT16_SYMM: 29, TENSOR_FLOAT16: 29,
    TENSOR_BOOL8: 29, FLOAT16: 29, TENSOR_QUANT8_SYMM_PER_CHANNEL: 29,
    TENSOR_QUANT16_ASYMM: 29, TENSOR_QUANT8_SYMM: 29, TENSOR_QUANT8_ASYMM_SIGNED: 30, MODEL: 30,
}

SCALARS = frozenset({FLOAT32, INT32, UINT32, BOOL, FLOAT16})

ELEMENT_SIZE = {
    FLOAT32: 4, INT32: 4, UINT32: 4, TENSOR_FLOAT32: 4, TENSOR_INT32: 4, TENSOR_QUANT8_ASYMM: 1,
    BOOL: 1, TENSOR_QUANT16_SYMM: 2, TENSOR_FLOAT16: 2, TENSOR_BOOL8: 1, FLOAT16: 2,
    TENSOR_QUANT8_SYMM_PER_CHANNEL: 1, TENSOR_QUANT16_ASYMM: 2, TENSOR_QUANT8_SYMM: 1,
    TENSOR_QUANT8_ASYMM_SIGNED: 1,
}

# How a tensor's bytes are viewed by torch. BOOL8 is read as uint8 and compared with 0
# (NNAPI: any nonzero byte is true).
TORCH_DTYPE = {
    TENSOR_FLOAT32: torch.float32,
    TENSOR_INT32: torch.int32,
    TENSOR_QUANT8_ASYMM: torch.uint8,
    TENSOR_QUANT16_SYMM: torch.int16,
    TENSOR_FLOAT16: torch.float16,
    TENSOR_BOOL8: torch.bool,
    TENSOR_QUANT8_SYMM_PER_CHANNEL: torch.int8,
    TENSOR_QUANT16_ASYMM: torch.uint16,
    TENSOR_QUANT8_SYMM: torch.int8,
    TENSOR_QUANT8_ASYMM_SIGNED: torch.int8,
}

SCALAR_FORMAT = {FLOAT32: "<f", INT32: "<i", UINT32: "<I", BOOL: "<B", FLOAT16: "<e"}

QUANTIZED = frozenset({
    TENSOR_QUANT8_ASYMM, TENSOR_QUANT16_SYMM, TENSOR_QUANT8_SYMM_PER_CHANNEL,
    TENSOR_QUANT16_ASYMM, TENSOR_QUANT8_SYMM, TENSOR_QUANT8_ASYMM_SIGNED,
})
FLOAT_TENSORS = frozenset({TENSOR_FLOAT32, TENSOR_FLOAT16})

# Zero-point ranges of the asymmetric types; symmetric types need zp == 0.
_ZP_RANGE = {
    TENSOR_QUANT8_ASYMM: (0, 255),
    TENSOR_QUANT16_ASYMM: (0, 65535),
    TENSOR_QUANT8_ASYMM_SIGNED: (-128, 127),
}
_SYMMETRIC = frozenset({TENSOR_QUANT16_SYMM, TENSOR_QUANT8_SYMM})

MAX_BYTES = 0xFFFFFFFF


def type_name(code: int) -> str:
    return NAMES.get(code, f"type {code}")


def is_tensor(code: int) -> bool:
    return code not in SCALARS and code != MODEL


@dataclass
class OperandType:
    """An operand's declared type. `dims` is None for an unknown rank; a 0 entry is an unknown dim."""

    type: int
    dims: Optional[tuple[int, ...]]
    scale: float = 0.0
    zero_point: int = 0

    @property
    def fully_specified(self) -> bool:
        if not is_tensor(self.type):
            return True
        return self.dims is not None and len(self.dims) > 0 and all(d > 0 for d in self.dims)

    def element_count(self) -> int:
        return math.prod(self.dims) if self.dims else 1

    def byte_size(self) -> int:
        """Byte size of a fully specified operand."""
        return ELEMENT_SIZE[self.type] * self.element_count()

    def describe(self) -> str:
        if not is_tensor(self.type):
            return type_name(self.type)
        dims = "?" if self.dims is None else "[" + ", ".join(str(d) if d else "?" for d in self.dims) + "]"
        q = f" scale={self.scale:g} zp={self.zero_point}" if self.type in QUANTIZED else ""
        return f"{type_name(self.type)}{dims}{q}"


def validate_operand_type(t: OperandType, level: int, where: str, *, allow_partial: bool = True) -> None:
    """Raise BAD_DATA unless `t` is a valid operand type at feature `level` (AOSP validateOperandType)."""
    code = t.type
    if code not in NAMES:
        if code >= 10000 and code < 0x10000:
            raise bad_data(f"{where}: OEM operand type {code} is not supported")
        if code >= 0x10000:
            raise bad_data(f"{where}: extension operand type {code:#x} is not supported by the host driver")
        raise bad_data(f"{where}: unknown operand type {code}")
    if SINCE[code] > level:
        raise bad_data(
            f"{where}: operand type {type_name(code)} needs feature level {feature_level_name(SINCE[code])} "
            f"(configured: {feature_level_name(level)})")
    if not is_tensor(code):
        if t.dims:
            raise bad_data(f"{where}: {type_name(code)} is a scalar but has dimensionCount {len(t.dims)}")
    else:
        if t.dims is None or len(t.dims) == 0:
            if not allow_partial:
                raise bad_data(f"{where}: {type_name(code)} must have a known rank here")
            if level < 29:
                raise bad_data(f"{where}: tensors of unknown rank need feature level 29 "
                               f"(configured: {feature_level_name(level)})")
        elif not allow_partial and any(d == 0 for d in t.dims):
            raise bad_data(f"{where}: {t.describe()} must be fully specified here (no 0 dimensions)")
        if t.dims and all(d > 0 for d in t.dims) and code in ELEMENT_SIZE:
            if ELEMENT_SIZE[code] * math.prod(t.dims) > MAX_BYTES:
                raise bad_data(f"{where}: {t.describe()} is larger than 4 GiB")
    if not math.isfinite(t.scale):
        raise bad_data(f"{where}: scale {t.scale} is not finite")
    if code in _ZP_RANGE:
        lo, hi = _ZP_RANGE[code]
        if not t.scale > 0:
            raise bad_data(f"{where}: {type_name(code)} needs scale > 0, got {t.scale:g}")
        if not lo <= t.zero_point <= hi:
            raise bad_data(f"{where}: {type_name(code)} needs zeroPoint in [{lo}, {hi}], got {t.zero_point}")
    elif code in _SYMMETRIC:
        if not t.scale > 0:
            raise bad_data(f"{where}: {type_name(code)} needs scale > 0, got {t.scale:g}")
        if t.zero_point != 0:
            raise bad_data(f"{where}: {type_name(code)} needs zeroPoint 0, got {t.zero_point}")
    elif code == TENSOR_INT32:
        pass  # Quantized biases carry a scale; AOSP does not validate TENSOR_INT32's scale/zp.
    elif t.scale != 0 or t.zero_point != 0:
        raise bad_data(f"{where}: {type_name(code)} needs scale 0 and zeroPoint 0, "
                       f"got scale={t.scale:g} zeroPoint={t.zero_point}")


def decode_scalar(code: int, data: bytes) -> int | float | bool:
    """Python value of a scalar operand's bytes."""
    value = struct.unpack(SCALAR_FORMAT[code], data)[0]
    return bool(value) if code == BOOL else value
