"""Runs one Android conformance case on the host driver through the NNAPI C API, as CTS does.

What CTS does with a generated model (AOSP ``TestGenerated.cpp`` / ``GeneratedTestUtils.cpp``):
every operand is added, constants are set (copied, from shared memory, omitted, or a referenced
model built and finished first), operations are added, inputs and outputs identified and the
relaxed flag set; a model that is expected to fail passes if any of those calls failed.
Otherwise ``finish`` must succeed; a valid model must then compile and execute, report each
output's dimensions and match the expected values within the tolerances of AOSP's
``TestHarness.cpp`` (checked in ``tolerances.py``); an invalid one must fail to compile or to
execute. The dynamic-output-shape variant declares the model's outputs with unknown (0)
dimensions.
"""

from __future__ import annotations

import ctypes
import dataclasses
import mmap
import os
from ctypes import POINTER, byref, c_bool, c_float, c_int32, c_uint32, c_void_p
from typing import Optional

import numpy as np

from nnapi_client import NO_ERROR, OperandType, last_error, u32_array
from executorch_nnapi.host_driver.operations import OPERATION_NAMES
from spec_cases import Case, Operand, Subgraph
from tolerances import check_outputs

OP_CODES = {name: code for code, name in OPERATION_NAMES.items()}
ANEURALNETWORKS_MEMORY_PROT = mmap.PROT_READ | mmap.PROT_WRITE
# CTS's compilation-caching run: a cache directory and a token of zeros (ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN).
CACHE_DIR = "/tmp"
CACHE_TOKEN = bytes(32)


class PerChannel(ctypes.Structure):
    """ANeuralNetworksSymmPerChannelQuantParams."""

    _fields_ = [("channelDim", c_uint32), ("scaleCount", c_uint32), ("scales", POINTER(c_float))]


@dataclasses.dataclass
class Outcome:
    """A case's result: ``passed``, and where it went wrong (the call and the driver's message)."""

    passed: bool
    status: str          # pass, wrong_result, refused, accepted_invalid, late_rejection, crash
    message: str = ""


def declare_extra_signatures(lib: ctypes.CDLL) -> None:
    """The C signatures this harness uses beyond tests/nnapi_client.py's."""
    lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams.argtypes = (c_void_p, c_int32, POINTER(PerChannel))
    lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams.restype = ctypes.c_int
    lib.ANeuralNetworksModel_relaxComputationFloat32toFloat16.argtypes = (c_void_p, c_bool)
    lib.ANeuralNetworksModel_relaxComputationFloat32toFloat16.restype = ctypes.c_int
    lib.ANeuralNetworksCompilation_setCaching.argtypes = (c_void_p, ctypes.c_char_p, ctypes.c_char_p)
    lib.ANeuralNetworksCompilation_setCaching.restype = ctypes.c_int
    lib.ANeuralNetworksExecution_burstCompute.argtypes = (c_void_p, c_void_p)
    lib.ANeuralNetworksExecution_burstCompute.restype = ctypes.c_int
    lib.ANeuralNetworksBurst_create.argtypes = (c_void_p, c_void_p)
    lib.ANeuralNetworksBurst_create.restype = ctypes.c_int
    lib.ANeuralNetworksBurst_free.argtypes = (c_void_p,)
    lib.ANeuralNetworksBurst_free.restype = None
    lib.ANeuralNetworksExecution_startComputeWithDependencies.argtypes = (
        c_void_p, c_void_p, c_uint32, ctypes.c_uint64, c_void_p)
    lib.ANeuralNetworksExecution_startComputeWithDependencies.restype = ctypes.c_int


class _ModelBuilder:
    """Builds one case's models, recording the first call that failed (CTS's Model::isValid)."""

    def __init__(self, lib: ctypes.CDLL, case: Case, dynamic_outputs: bool) -> None:
        self.lib = lib
        self.case = case
        self.dynamic_outputs = dynamic_outputs
        self.level = int(lib.ANeuralNetworks_getRuntimeFeatureLevel())
        self.first_failure: Optional[str] = None
        self.keep: list = []
        self.memory: Optional[c_void_p] = None
        self.memory_offset = 0
        self.referenced: dict[int, c_void_p] = {}
        self.handles: list[c_void_p] = []

    def call(self, what: str, rc: int) -> int:
        if rc != NO_ERROR and self.first_failure is None:
            self.first_failure = f"{what} returned {rc}: {last_error(self.lib)}"
        return rc

    def _shared_memory(self) -> c_void_p:
        """One shared-memory region for every CONSTANT_REFERENCE operand (CTS's AHardwareBuffer)."""
        if self.memory is None:
            graphs = [self.case.main, *self.case.referenced]
            size = sum(_aligned(o.data.nbytes) for g in graphs for o in g.operands
                       if o.lifetime == "CONSTANT_REFERENCE")
            fd = os.memfd_create("cts-constants")
            os.ftruncate(fd, max(size, 1))
            self.map = mmap.mmap(fd, max(size, 1))
            self.memory = c_void_p()
            self.call("Memory_createFromFd", self.lib.ANeuralNetworksMemory_createFromFd(
                max(size, 1), ANEURALNETWORKS_MEMORY_PROT, fd, 0, byref(self.memory)))
            os.close(fd)
        return self.memory

    def operand_type(self, o: Operand, is_output: bool) -> OperandType:
        dims = [0] * len(o.dims) if self.dynamic_outputs and is_output else list(o.dims)
        arr = (c_uint32 * len(dims))(*dims) if dims else None
        self.keep.append(arr)
        return OperandType(o.code, len(dims), arr, o.scale, o.zero_point)

    def build(self, graph: Subgraph, is_main: bool = True) -> c_void_p:
        handle = c_void_p()
        self.call("Model_create", self.lib.ANeuralNetworksModel_create(byref(handle)))
        self.handles.append(handle)
        for index, o in enumerate(graph.operands):
            t = self.operand_type(o, o.lifetime == "SUBGRAPH_OUTPUT")
            self.call("Model_addOperand", self.lib.ANeuralNetworksModel_addOperand(handle, byref(t)))
            if o.channel_quant is not None:
                dim, scales = o.channel_quant
                arr = (c_float * len(scales))(*scales)
                self.keep.append(arr)
                self.call("Model_setOperandSymmPerChannelQuantParams",
                          self.lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
                              handle, index, byref(PerChannel(dim, len(scales), arr))))
            self._set_value(handle, index, o)
        for name, ins, outs in graph.operations:
            self.call(f"Model_addOperation({name})", self.lib.ANeuralNetworksModel_addOperation(
                handle, OP_CODES[name], len(ins), u32_array(ins), len(outs), u32_array(outs)))
        self.call("Model_identifyInputsAndOutputs", self.lib.ANeuralNetworksModel_identifyInputsAndOutputs(
            handle, len(graph.inputs), u32_array(graph.inputs), len(graph.outputs), u32_array(graph.outputs)))
        if is_main and (self.case.relaxed or self.level >= 28):
            # CTS always sets the flag; the call exists from API 28, so a run at 27 sets it only
            # for a relaxed case (which then fails there, as it should).
            self.call("Model_relaxComputationFloat32toFloat16",
                      self.lib.ANeuralNetworksModel_relaxComputationFloat32toFloat16(handle, self.case.relaxed))
        return handle

    def _set_value(self, handle: c_void_p, index: int, o: Operand) -> None:
        if o.lifetime == "CONSTANT_COPY":
            buf = ctypes.create_string_buffer(o.data.tobytes(), max(o.data.nbytes, 1))
            self.keep.append(buf)
            self.call("Model_setOperandValue",
                      self.lib.ANeuralNetworksModel_setOperandValue(handle, index, buf, o.data.nbytes))
        elif o.lifetime == "CONSTANT_REFERENCE":
            memory = self._shared_memory()
            self.map[self.memory_offset:self.memory_offset + o.data.nbytes] = o.data.tobytes()
            self.call("Model_setOperandValueFromMemory", self.lib.ANeuralNetworksModel_setOperandValueFromMemory(
                handle, index, memory, self.memory_offset, o.data.nbytes))
            self.memory_offset += _aligned(o.data.nbytes)
        elif o.lifetime == "NO_VALUE":
            self.call("Model_setOperandValue", self.lib.ANeuralNetworksModel_setOperandValue(handle, index, None, 0))
        elif o.lifetime == "SUBGRAPH":
            ref = int(o.data[0])
            if ref not in self.referenced:
                self.referenced[ref] = self.build(self.case.referenced[ref], is_main=False)
                if self.call("Model_finish(referenced)", self.lib.ANeuralNetworksModel_finish(self.referenced[ref])):
                    return
            self.call("Model_setOperandValueFromModel",
                      self.lib.ANeuralNetworksModel_setOperandValueFromModel(handle, index, self.referenced[ref]))

    def free(self) -> None:
        for h in self.handles:
            self.lib.ANeuralNetworksModel_free(h)
        if self.memory is not None:
            self.lib.ANeuralNetworksMemory_free(self.memory)


def _aligned(n: int) -> int:
    return (n + 63) // 64 * 64


@dataclasses.dataclass(frozen=True)
class Mode:
    """How CTS compiles and executes (TestGenerated.cpp): ``compute`` is "sync", "async"
    (startCompute + Event_wait), "fenced" (startComputeWithDependencies without dependencies +
    Event_wait) or "burst" (Burst_create + burstCompute); ``caching`` compiles
    twice with setCaching and the same token, then executes the second compilation;
    ``device_memory`` binds every input and output to memory made from a descriptor of its role
    (MemoryDesc), filled and read with Memory_copy (DeviceMemoryTest)."""

    dynamic_outputs: bool = False
    compute: str = "sync"
    caching: bool = False
    device_memory: bool = False


def run_case(lib: ctypes.CDLL, case: Case, mode: Mode = Mode()) -> Outcome:
    """Runs ``case`` as CTS's GeneratedTests (or DynamicOutputShapeTest) and validation tests do."""
    return run_case_modes(lib, case, [mode])[0]


def run_case_modes(lib: ctypes.CDLL, case: Case, modes: list[Mode]) -> list[Outcome]:
    """``run_case`` under each of ``modes``, which declare the model alike (one ``dynamic_outputs``).

    CTS builds the model again for each of its tests. The calls and their results are the same
    each time, so the model is built and finished once here and compiled and executed under
    each mode (as its caching test compiles one model twice)."""
    if len({m.dynamic_outputs for m in modes}) > 1:
        raise ValueError("the modes declare the model's outputs differently")
    b = _ModelBuilder(lib, case, modes[0].dynamic_outputs)
    try:
        model = b.build(case.main)
        if b.first_failure is not None:
            if case.expect_failure:
                return [Outcome(True, "pass", f"rejected: {b.first_failure}") for _ in modes]
            return [Outcome(False, "refused", b.first_failure) for _ in modes]
        rc = lib.ANeuralNetworksModel_finish(model)
        if rc != NO_ERROR:
            status = "late_rejection" if case.expect_failure else "refused"
            message = f"Model_finish returned {rc}: {last_error(lib)}"
            return [Outcome(False, status, message) for _ in modes]
        return [_compile_and_execute(lib, case, model, mode) for mode in modes]
    finally:
        b.free()


def _compile(lib: ctypes.CDLL, model: c_void_p, compilation: c_void_p, caching: bool) -> int:
    """Compilation_create (+ setCaching) + finish; returns the first failing result code."""
    rc = lib.ANeuralNetworksCompilation_create(model, byref(compilation))
    if rc == NO_ERROR and caching:
        rc = lib.ANeuralNetworksCompilation_setCaching(compilation, CACHE_DIR.encode(), CACHE_TOKEN)
    if rc == NO_ERROR:
        rc = lib.ANeuralNetworksCompilation_finish(compilation)
    return rc


def _compute(lib: ctypes.CDLL, compilation: c_void_p, execution: c_void_p, how: str) -> int:
    if how == "sync" and lib.ANeuralNetworks_getRuntimeFeatureLevel() < 29:
        how = "async"  # Execution_compute exists from API 29; CTS of API 27-28 waits on an event
    if how == "sync":
        return lib.ANeuralNetworksExecution_compute(execution)
    if how in ("async", "fenced"):
        event = c_void_p()
        if how == "async":
            rc = lib.ANeuralNetworksExecution_startCompute(execution, byref(event))
        else:  # no dependencies, no duration: what FencedComputeTest does
            rc = lib.ANeuralNetworksExecution_startComputeWithDependencies(execution, None, 0, 0, byref(event))
        if rc == NO_ERROR:
            rc = lib.ANeuralNetworksEvent_wait(event)
            lib.ANeuralNetworksEvent_free(event)
        return rc
    burst = c_void_p()
    rc = lib.ANeuralNetworksBurst_create(compilation, byref(burst))
    if rc == NO_ERROR:
        rc = lib.ANeuralNetworksExecution_burstCompute(execution, burst)
        lib.ANeuralNetworksBurst_free(burst)
    return rc


def _compile_and_execute(lib: ctypes.CDLL, case: Case, model: c_void_p, mode: Mode) -> Outcome:
    compilation, execution = c_void_p(), c_void_p()
    binder = None
    try:
        if mode.caching:  # the first of CTS's two compilations with the same token
            first = c_void_p()
            rc = _compile(lib, model, first, True)
            lib.ANeuralNetworksCompilation_free(first)
            if rc != NO_ERROR:
                return Outcome(False, "refused", f"Compilation (cached, first) returned {rc}: {last_error(lib)}")
        rc = _compile(lib, model, compilation, mode.caching)
        if rc != NO_ERROR:
            if case.expect_failure:
                return Outcome(True, "pass", f"compilation failed: {last_error(lib)}")
            return Outcome(False, "refused", f"Compilation returned {rc}: {last_error(lib)}")
        if lib.ANeuralNetworksExecution_create(compilation, byref(execution)) != NO_ERROR:
            return Outcome(False, "refused", f"Execution_create: {last_error(lib)}")
        binder = DeviceMemories(lib, compilation) if mode.device_memory else None
        inputs, outputs = (binder.bind if binder else _bind)(lib, case, execution)
        rc = _compute(lib, compilation, execution, mode.compute)
        if binder and rc == NO_ERROR:
            binder.read_back(outputs)
        if case.expect_failure:
            if rc != NO_ERROR:
                return Outcome(True, "pass", f"execution failed: {last_error(lib)}")
            return Outcome(False, "accepted_invalid", "the invalid model compiled and executed")
        if rc != NO_ERROR:
            return Outcome(False, "refused", f"Execution_compute returned {rc}: {last_error(lib)}")
        problem = _check_dims(lib, case, execution) or check_outputs(case, outputs)
        return Outcome(problem is None, "pass" if problem is None else "wrong_result", problem or "")
    finally:
        if mode.device_memory and binder is not None:
            binder.free()
        if execution:
            lib.ANeuralNetworksExecution_free(execution)
        if compilation:
            lib.ANeuralNetworksCompilation_free(compilation)


def _bind(lib: ctypes.CDLL, case: Case, execution: c_void_p) -> tuple[list, list[np.ndarray]]:
    inputs, outputs = [], []
    for j, index in enumerate(case.main.inputs):
        data = case.main.operands[index].data
        if data.nbytes == 0:
            lib.ANeuralNetworksExecution_setInput(execution, j, None, None, 0)
            continue
        buf = np.ascontiguousarray(data)
        inputs.append(buf)
        lib.ANeuralNetworksExecution_setInput(execution, j, None, c_void_p(buf.ctypes.data), buf.nbytes)
    for j, index in enumerate(case.main.outputs):
        o = case.main.operands[index]
        # A zero-sized output still gets a one-byte buffer (CTS: a client cannot give 0 bytes).
        buf = np.zeros(max(o.data.size, 1), o.data.dtype)
        outputs.append(buf)
        lib.ANeuralNetworksExecution_setOutput(execution, j, None, c_void_p(buf.ctypes.data),
                                               max(o.data.nbytes, 1))
    return inputs, outputs


def _check_dims(lib: ctypes.CDLL, case: Case, execution: c_void_p) -> Optional[str]:
    if lib.ANeuralNetworks_getRuntimeFeatureLevel() < 29:
        return None  # getOutputOperandDimensions exists from API 29
    for j, index in enumerate(case.main.outputs):
        o = case.main.operands[index]
        if o.ignored:
            continue
        rank = c_uint32()
        if lib.ANeuralNetworksExecution_getOutputOperandRank(execution, j, byref(rank)) != NO_ERROR:
            return f"getOutputOperandRank({j}): {last_error(lib)}"
        dims = (c_uint32 * max(rank.value, 1))()
        if rank.value and lib.ANeuralNetworksExecution_getOutputOperandDimensions(execution, j, dims) != NO_ERROR:
            return f"getOutputOperandDimensions({j}): {last_error(lib)}"
        got = list(dims[:rank.value])
        if got != list(o.dims):
            return f"output {j} has dimensions {got}, expected {list(o.dims)}"
    return None


class DeviceMemories:
    """DeviceMemoryTest's binding (TestGenerated.cpp computeWithDeviceMemories): one memory per
    input and output, made from a descriptor holding that role; inputs filled from a shared
    memory with Memory_copy, outputs copied back the same way after the execution."""

    def __init__(self, lib: ctypes.CDLL, compilation: c_void_p) -> None:
        self.lib, self.compilation = lib, compilation
        self.memories: list[c_void_p] = []
        self.outputs: list[tuple[c_void_p, int]] = []

    def _device_memory(self, is_input: bool, index: int) -> c_void_p:
        desc, memory = c_void_p(), c_void_p()
        lib = self.lib
        assert lib.ANeuralNetworksMemoryDesc_create(byref(desc)) == NO_ERROR, last_error(lib)
        add = lib.ANeuralNetworksMemoryDesc_addInputRole if is_input else lib.ANeuralNetworksMemoryDesc_addOutputRole
        assert add(desc, self.compilation, index, ctypes.c_float(1.0)) == NO_ERROR, last_error(lib)
        assert lib.ANeuralNetworksMemoryDesc_finish(desc) == NO_ERROR, last_error(lib)
        assert lib.ANeuralNetworksMemory_createFromDesc(desc, byref(memory)) == NO_ERROR, last_error(lib)
        lib.ANeuralNetworksMemoryDesc_free(desc)
        self.memories.append(memory)
        return memory

    def _shared(self, nbytes: int) -> tuple[c_void_p, mmap.mmap]:
        fd = os.memfd_create("cts-device-copy")
        os.ftruncate(fd, nbytes)
        view = mmap.mmap(fd, nbytes)
        memory = c_void_p()
        assert self.lib.ANeuralNetworksMemory_createFromFd(nbytes, ANEURALNETWORKS_MEMORY_PROT, fd, 0,
                                                           byref(memory)) == NO_ERROR, last_error(self.lib)
        os.close(fd)
        self.memories.append(memory)
        return memory, view

    def bind(self, lib: ctypes.CDLL, case: Case, execution: c_void_p) -> tuple[list, list[np.ndarray]]:
        for j, index in enumerate(case.main.inputs):
            data = case.main.operands[index].data
            if data.nbytes == 0:
                lib.ANeuralNetworksExecution_setInput(execution, j, None, None, 0)
                continue
            device = self._device_memory(True, j)
            shared, view = self._shared(data.nbytes)
            view[:] = data.tobytes()
            assert lib.ANeuralNetworksMemory_copy(shared, device) == NO_ERROR, last_error(lib)
            lib.ANeuralNetworksExecution_setInputFromMemory(execution, j, None, device, 0, 0)
        outputs = []
        for j, index in enumerate(case.main.outputs):
            o = case.main.operands[index]
            device = self._device_memory(False, j)
            self.outputs.append((device, o.data.nbytes))
            outputs.append(np.zeros(o.data.size, o.data.dtype))
            lib.ANeuralNetworksExecution_setOutputFromMemory(execution, j, None, device, 0, 0)
        return [], outputs

    def read_back(self, outputs: list[np.ndarray]) -> None:
        for (device, nbytes), out in zip(self.outputs, outputs):
            shared, view = self._shared(nbytes)
            assert self.lib.ANeuralNetworksMemory_copy(device, shared) == NO_ERROR, last_error(self.lib)
            out[:] = np.frombuffer(view[:nbytes], out.dtype)

    def free(self) -> None:
        for memory in self.memories:
            self.lib.ANeuralNetworksMemory_free(memory)
