"""A ctypes client of the host NNAPI shim: the NNAPI C API called as a C program would.

Tests share it (``from nnapi_client import Model, ...``, as with op_harness): ``open_shim``
loads the shim with every C signature declared, ``host_driver_at`` pins the driver's feature
level, ``Model`` and ``Execution`` wrap the model and execution calls and assert their result
codes.
"""

from __future__ import annotations

import contextlib
import ctypes
from ctypes import POINTER, byref, c_bool, c_char_p, c_float, c_int, c_int32, c_int64, c_size_t, c_uint32, c_void_p
from typing import Iterator, Optional, Sequence

import torch

from executorch_nnapi import host_driver
from executorch_nnapi.host_driver import HostDriver
from executorch_nnapi.host_driver.operations import OPERATION_NAMES


# Result codes (ANEURALNETWORKS_NO_ERROR, ...).
NO_ERROR, UNEXPECTED_NULL, BAD_DATA, OP_FAILED, BAD_STATE, OUTPUT_INSUFFICIENT_SIZE = 0, 3, 4, 5, 6, 8
# Operand types: scalars, then tensors (TENSOR_FLOAT32, TENSOR_INT32, TENSOR_QUANT8_ASYMM, TENSOR_FLOAT16,
# TENSOR_BOOL8).
FLOAT32, INT32, BOOL = 0, 1, 6
TF32, TI32, QA8, TF16, TB8 = 3, 4, 5, 8, 9
# ANEURALNETWORKS_MODEL: an operand referring to another model (IF / WHILE bodies).
MODEL_TYPE = 15
# Operation name -> code, from the driver's own table.
OP = {name: code for code, name in OPERATION_NAMES.items()}
# ANEURALNETWORKS_FEATURE_LEVEL_6.
FL6 = 1000006


class OperandType(ctypes.Structure):
    """ANeuralNetworksOperandType."""

    _fields_ = [("type", c_int32), ("dimensionCount", c_uint32), ("dimensions", POINTER(c_uint32)),
                ("scale", c_float), ("zeroPoint", c_int32)]


def declare_signatures(lib: ctypes.CDLL) -> None:
    """Gives every NNAPI function of ``lib`` its exact C signature (int result; void for *_free)."""
    p = c_void_p
    sigs = {
        "ANeuralNetworksModel_create": (p,),
        "ANeuralNetworksModel_free": (p,),
        "ANeuralNetworksModel_finish": (p,),
        "ANeuralNetworksModel_addOperand": (p, POINTER(OperandType)),
        "ANeuralNetworksModel_setOperandValue": (p, c_int32, p, c_size_t),
        "ANeuralNetworksModel_setOperandValueFromMemory": (p, c_int32, p, c_size_t, c_size_t),
        "ANeuralNetworksModel_setOperandValueFromModel": (p, c_int32, p),
        "ANeuralNetworksExecution_setLoopTimeout": (p, ctypes.c_uint64),
        "ANeuralNetworksMemory_createFromFd": (c_size_t, c_int, c_int, c_size_t, p),
        "ANeuralNetworksMemory_free": (p,),
        "ANeuralNetworksExecution_setInputFromMemory": (p, c_int32, POINTER(OperandType), p, c_size_t, c_size_t),
        "ANeuralNetworksExecution_setOutputFromMemory": (p, c_int32, POINTER(OperandType), p, c_size_t, c_size_t),
        "ANeuralNetworksModel_addOperation": (p, c_int32, c_uint32, POINTER(c_uint32), c_uint32, POINTER(c_uint32)),
        "ANeuralNetworksModel_identifyInputsAndOutputs": (p, c_uint32, POINTER(c_uint32), c_uint32,
                                                          POINTER(c_uint32)),
        "ANeuralNetworksModel_getSupportedOperationsForDevices": (p, POINTER(p), c_uint32, POINTER(c_bool)),
        "ANeuralNetworksCompilation_create": (p, p),
        "ANeuralNetworksCompilation_createForDevices": (p, POINTER(p), c_uint32, p),
        "ANeuralNetworksCompilation_finish": (p,),
        "ANeuralNetworksCompilation_free": (p,),
        "ANeuralNetworksExecution_create": (p, p),
        "ANeuralNetworksExecution_free": (p,),
        "ANeuralNetworksExecution_setInput": (p, c_int32, POINTER(OperandType), p, c_size_t),
        "ANeuralNetworksExecution_setOutput": (p, c_int32, POINTER(OperandType), p, c_size_t),
        "ANeuralNetworksExecution_compute": (p,),
        "ANeuralNetworksExecution_startCompute": (p, p),
        "ANeuralNetworksExecution_setReusable": (p, c_bool),
        "ANeuralNetworksExecution_getOutputOperandRank": (p, c_int32, POINTER(c_uint32)),
        "ANeuralNetworksExecution_getOutputOperandDimensions": (p, c_int32, POINTER(c_uint32)),
        "ANeuralNetworksEvent_wait": (p,),
        "ANeuralNetworksEvent_free": (p,),
        "ANeuralNetworks_getDeviceCount": (POINTER(c_uint32),),
        "ANeuralNetworks_getDevice": (c_uint32, p),
        "ANeuralNetworksDevice_getName": (p, POINTER(c_char_p)),
        "ANeuralNetworksDevice_getType": (p, POINTER(c_int32)),
        "ANeuralNetworksDevice_getVersion": (p, POINTER(c_char_p)),
        "ANeuralNetworksDevice_getFeatureLevel": (p, POINTER(c_int64)),
        "ANeuralNetworksMemoryDesc_create": (p,),
        "ANeuralNetworksMemoryDesc_free": (p,),
        "ANeuralNetworksMemoryDesc_finish": (p,),
        "ANeuralNetworksMemoryDesc_addInputRole": (p, p, c_uint32, c_float),
        "ANeuralNetworksMemoryDesc_addOutputRole": (p, p, c_uint32, c_float),
        "ANeuralNetworksMemoryDesc_setDimensions": (p, c_uint32, p),
        "ANeuralNetworksMemory_createFromDesc": (p, p),
        "ANeuralNetworksMemory_copy": (p, p),
        "executorch_nnapi_host_last_error": (ctypes.c_char_p, c_size_t),
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = None if name.endswith("_free") else c_int
    lib.ANeuralNetworks_getRuntimeFeatureLevel.argtypes = ()
    lib.ANeuralNetworks_getRuntimeFeatureLevel.restype = c_int64


def open_shim(feature_level: int = 30) -> ctypes.CDLL:
    """Installs the host driver at ``feature_level`` and opens its shim with the signatures declared."""
    lib = ctypes.CDLL(host_driver.install(feature_level))
    declare_signatures(lib)
    return lib


@contextlib.contextmanager
def host_driver_at(feature_level: int = 30) -> Iterator[HostDriver]:
    """The installed driver at ``feature_level``, set back to it afterwards (tests may change it)."""
    d = host_driver.get_driver()
    d.feature_level = feature_level
    try:
        yield d
    finally:
        d.feature_level = feature_level


def u32_array(values: Sequence[int]) -> ctypes.Array:
    """A uint32_t[] for ``values`` (one element at least, so that it is never NULL)."""
    return (c_uint32 * max(len(values), 1))(*values)


class Model:
    """Builds an NNAPI model through the C API; each call asserts the expected result code."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.handle = c_void_p()
        assert lib.ANeuralNetworksModel_create(byref(self.handle)) == NO_ERROR
        self.count = 0
        self.keep: list = []

    def operand(self, type_: int, dims: Optional[Sequence[int]] = None, scale: float = 0.0, zp: int = 0,
                expect: int = NO_ERROR) -> int:
        """addOperand; returns the new operand's index."""
        dims = list(dims or [])
        arr = (c_uint32 * len(dims))(*dims) if dims else None
        t = OperandType(type_, len(dims), arr, scale, zp)
        assert self.lib.ANeuralNetworksModel_addOperand(self.handle, byref(t)) == expect, last_error(self.lib)
        if expect == NO_ERROR:
            self.count += 1
        return self.count - 1

    def tensor(self, dims: Sequence[int], type_: int = TF32, **kw) -> int:
        """Adds a tensor operand (TENSOR_FLOAT32 unless told)."""
        return self.operand(type_, dims, **kw)

    def set_value(self, index: int, data: bytes, expect: int = NO_ERROR) -> int:
        """setOperandValue with a copy of ``data`` kept alive for the model's life."""
        buf = ctypes.create_string_buffer(data, len(data))
        self.keep.append(buf)
        rc = self.lib.ANeuralNetworksModel_setOperandValue(self.handle, index, buf, len(data))
        assert rc == expect, last_error(self.lib)
        return rc

    def const(self, value: torch.Tensor, type_: Optional[int] = None, **kw) -> int:
        """Adds a constant tensor holding ``value``."""
        type_ = type_ if type_ is not None else {torch.float32: TF32, torch.int32: TI32,
                                                 torch.float16: TF16, torch.bool: TB8}[value.dtype]
        idx = self.tensor(list(value.shape), type_, **kw)
        self.set_value(idx, value.contiguous().numpy().tobytes())
        return idx

    def i32(self, v: int) -> int:
        """Adds an INT32 constant."""
        idx = self.operand(INT32)
        self.set_value(idx, int(v).to_bytes(4, "little", signed=True))
        return idx

    def f32(self, v: float) -> int:
        """Adds a FLOAT32 constant."""
        idx = self.operand(FLOAT32)
        self.set_value(idx, torch.tensor([v], dtype=torch.float32).numpy().tobytes())
        return idx

    def bool(self, v: bool) -> int:
        """Adds a BOOL constant."""
        idx = self.operand(BOOL)
        self.set_value(idx, bytes([1 if v else 0]))
        return idx

    def reference(self, model: "Model", expect: int = NO_ERROR) -> int:
        """Adds a MODEL operand referring to the finished ``model`` (setOperandValueFromModel)."""
        idx = self.operand(MODEL_TYPE)
        self.keep.append(model)
        rc = self.lib.ANeuralNetworksModel_setOperandValueFromModel(self.handle, idx, model.handle)
        assert rc == expect, last_error(self.lib)
        return idx

    def omitted(self, type_: int, dims=None) -> int:
        """Adds an omitted optional operand (setOperandValue(NULL, 0))."""
        idx = self.operand(type_, dims)
        assert self.lib.ANeuralNetworksModel_setOperandValue(self.handle, idx, None, 0) == NO_ERROR
        return idx

    def op(self, name: str, ins: Sequence[int], outs: Sequence[int], expect: int = NO_ERROR) -> int:
        """addOperation by name."""
        rc = self.lib.ANeuralNetworksModel_addOperation(self.handle, OP[name], len(ins), u32_array(ins), len(outs),
                                                        u32_array(outs))
        assert rc == expect, last_error(self.lib)
        return rc

    def io(self, ins: Sequence[int], outs: Sequence[int], expect: int = NO_ERROR) -> None:
        """identifyInputsAndOutputs."""
        rc = self.lib.ANeuralNetworksModel_identifyInputsAndOutputs(self.handle, len(ins), u32_array(ins), len(outs),
                                                                    u32_array(outs))
        assert rc == expect, last_error(self.lib)
        self.inputs, self.outputs = list(ins), list(outs)

    def finish(self, expect: int = NO_ERROR) -> int:
        """ANeuralNetworksModel_finish."""
        rc = self.lib.ANeuralNetworksModel_finish(self.handle)
        assert rc == expect, last_error(self.lib)
        return rc

    def compile(self) -> c_void_p:
        """Creates and finishes a compilation of the model."""
        c = c_void_p()
        assert self.lib.ANeuralNetworksCompilation_create(self.handle, byref(c)) == NO_ERROR, last_error(self.lib)
        assert self.lib.ANeuralNetworksCompilation_finish(c) == NO_ERROR, last_error(self.lib)
        return c

    def run(self, inputs: Sequence[torch.Tensor], out_shapes: Sequence[Sequence[int]],
            out_dtype: torch.dtype = torch.float32, expect: int = NO_ERROR) -> list[torch.Tensor]:
        """Finish, compile, execute once; returns the outputs."""
        self.finish()
        comp = self.compile()
        ex = Execution(self.lib, comp)
        for j, x in enumerate(inputs):
            ex.set_input(j, x)
        outs = [torch.full(tuple(s), float("nan")).to(out_dtype) for s in out_shapes]
        for j, o in enumerate(outs):
            ex.set_output(j, o)
        assert ex.compute() == expect, last_error(self.lib)
        return outs


class Execution:
    """Runs a compilation through the C API; each call asserts the expected result code."""

    def __init__(self, lib: ctypes.CDLL, compilation: c_void_p) -> None:
        self.lib = lib
        self.handle = c_void_p()
        assert lib.ANeuralNetworksExecution_create(compilation, byref(self.handle)) == NO_ERROR, last_error(lib)
        self.keep: list = []

    def set_input(self, j: int, x: torch.Tensor, length: Optional[int] = None, type_=None,
                  expect: int = NO_ERROR) -> None:
        """setInput from ``x``'s memory (``type_``: an optional ANeuralNetworksOperandType*)."""
        x = x.contiguous()
        self.keep.append(x)
        n = x.numel() * x.element_size() if length is None else length
        rc = self.lib.ANeuralNetworksExecution_setInput(self.handle, j, type_, c_void_p(x.data_ptr()), n)
        assert rc == expect, last_error(self.lib)

    def set_output(self, j: int, x: torch.Tensor, length: Optional[int] = None, expect: int = NO_ERROR) -> None:
        """setOutput into ``x``'s memory."""
        self.keep.append(x)
        n = x.numel() * x.element_size() if length is None else length
        rc = self.lib.ANeuralNetworksExecution_setOutput(self.handle, j, None, c_void_p(x.data_ptr()), n)
        assert rc == expect, last_error(self.lib)

    def compute(self) -> int:
        """ANeuralNetworksExecution_compute; returns its result code."""
        return self.lib.ANeuralNetworksExecution_compute(self.handle)


def last_error(lib: ctypes.CDLL) -> str:
    """The shim's message about its last failed call."""
    buf = ctypes.create_string_buffer(4096)
    lib.executorch_nnapi_host_last_error(buf, len(buf))
    return buf.value.decode()


def nhwc(x: torch.Tensor) -> torch.Tensor:
    """NCHW -> NHWC, contiguous (NNAPI's layout)."""
    return x.permute(0, 2, 3, 1).contiguous()


def nchw(x: torch.Tensor) -> torch.Tensor:
    """NHWC -> NCHW (a view)."""
    return x.permute(0, 3, 1, 2)


