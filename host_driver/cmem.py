"""Reading and writing C memory given as integer addresses (ctypes), without numpy."""

from __future__ import annotations

import ctypes
from typing import Sequence

import torch


def read_bytes(address: int, length: int) -> bytes:
    return ctypes.string_at(address, length) if length else b""


def c_buffer(address: int, length: int) -> ctypes.Array:
    """A writable ctypes view of `length` bytes at `address` (no copy)."""
    return (ctypes.c_char * length).from_address(address)


def tensor_view(address: int, length: int, dtype: torch.dtype, shape: Sequence[int]) -> torch.Tensor:
    """A tensor sharing the C memory at `address` (the caller keeps that memory alive)."""
    if length == 0:
        return torch.empty(tuple(shape), dtype=dtype)
    return torch.frombuffer(c_buffer(address, length), dtype=dtype).view(tuple(shape))


def tensor_copy(address: int, length: int, dtype: torch.dtype, shape: Sequence[int]) -> torch.Tensor:
    """A tensor holding a copy of the C memory at `address`."""
    return tensor_view(address, length, dtype, shape).clone()


def write_pointer(address: int, value: int) -> None:
    ctypes.c_void_p.from_address(address).value = value


def write_uint32(address: int, value: int) -> None:
    ctypes.c_uint32.from_address(address).value = value


def write_int32(address: int, value: int) -> None:
    ctypes.c_int32.from_address(address).value = value


def write_int64(address: int, value: int) -> None:
    ctypes.c_int64.from_address(address).value = value


def write_uint64(address: int, value: int) -> None:
    ctypes.c_uint64.from_address(address).value = value


def write_bools(address: int, values: Sequence[bool]) -> None:
    if values:
        ctypes.memmove(address, bytes(1 if v else 0 for v in values), len(values))


def write_uint32s(address: int, values: Sequence[int]) -> None:
    if values:
        arr = (ctypes.c_uint32 * len(values))(*values)
        ctypes.memmove(address, arr, ctypes.sizeof(arr))


def read_uint32s(address: int, count: int) -> list[int]:
    return list((ctypes.c_uint32 * count).from_address(address)) if count else []


def read_floats(address: int, count: int) -> list[float]:
    return list((ctypes.c_float * count).from_address(address)) if count else []


def read_pointers(address: int, count: int) -> list[int]:
    return [p or 0 for p in (ctypes.c_void_p * count).from_address(address)] if count else []
