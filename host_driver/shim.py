"""The C side of the driver: one Python function per NNAPI C function, installed into the shim library.

Each function here has the exact C signature (as ctypes types), decodes its pointer arguments,
calls the driver objects and writes the out-parameters. `install_callbacks` points the shim's
`executorch_nnapi_host_impl_<Name>` pointers at them. Every call returns an NNAPI result code; a
Python exception never crosses into C (it becomes OP_FAILED with the message in last_error).
"""

from __future__ import annotations

import ctypes
import logging
from ctypes import c_bool, c_float, c_int, c_int32, c_int64, c_size_t, c_uint16, c_uint32, c_uint64, c_void_p
from typing import Any, Callable, Optional

from . import cmem
from .compilation import BYTE_SIZE_OF_CACHE_TOKEN, Compilation
from .device_memory import MemoryDesc, check_binding, check_readable
from .driver import Device, HostDriver, Memory
from .errors import (
    OP_FAILED, DriverError, bad_data, bad_state, feature_level_name, summarize_exception, unexpected_null,
)
from .execution import (
    COMPLETED, COMPUTING, DEFAULT_LOOP_TIMEOUT_NS, MAXIMUM_LOOP_TIMEOUT_NS, Burst, Event, Execution,
)
from .model import Model
from .operand_types import OperandType

logger = logging.getLogger("executorch_nnapi.host_driver")


class OperandTypeStruct(ctypes.Structure):
    """ANeuralNetworksOperandType."""

    _fields_ = [("type", c_int32), ("dimensionCount", c_uint32), ("dimensions", c_void_p),
                ("scale", c_float), ("zeroPoint", c_int32)]


class SymmPerChannelQuantParamsStruct(ctypes.Structure):
    """ANeuralNetworksSymmPerChannelQuantParams."""

    _fields_ = [("channelDim", c_uint32), ("scaleCount", c_uint32), ("scales", c_void_p)]


def read_operand_type(address: int, where: str) -> OperandType:
    s = OperandTypeStruct.from_address(address)
    count, dims_ptr = s.dimensionCount, s.dimensions
    if count and not dims_ptr:
        raise bad_data(f"{where}: dimensionCount is {count} but dimensions is NULL")
    if not count and dims_ptr:
        raise bad_data(f"{where}: dimensions must be NULL when dimensionCount is 0")
    dims = tuple(cmem.read_uint32s(dims_ptr, count)) if count else None
    return OperandType(s.type, dims, float(s.scale), int(s.zeroPoint))


# name -> (since, restype, argtypes, function)
_API: dict[str, tuple[int, Any, tuple, Callable]] = {}


def _c(since: int, restype: Any, *argtypes: Any) -> Callable:
    """Declare a C function: its feature level, return type and argument types."""

    def register(fn: Callable) -> Callable:
        _API[fn.__name__] = (since, restype, argtypes, fn)
        return fn

    return register


def _unsupported(what: str) -> DriverError:
    return DriverError(OP_FAILED, f"{what} is not supported by the host driver")


def _need(pointer: Optional[int], what: str) -> int:
    if not pointer:
        raise unexpected_null(what)
    return pointer


def _index(value: int, what: str = "index") -> int:
    if value < 0:
        raise bad_data(f"{what} {value} is negative")
    return value


class CApi:
    """The NNAPI C functions over one HostDriver (method name = C function name)."""

    def __init__(self, driver: HostDriver) -> None:
        self.d = driver

    def _out_handle(self, out: Optional[int], obj: Any, what: str) -> None:
        _need(out, what)
        cmem.write_pointer(out, self.d.new_handle(obj))

    def _devices(self, devices: Optional[int], count: int) -> list[Device]:
        _need(devices, "devices")
        if count == 0:
            raise bad_data("numDevices is 0")
        handles = cmem.read_pointers(devices, count)
        if len(set(handles)) != len(handles):
            raise bad_data("the device list contains a device twice")
        return [self.d.lookup(h, Device, "device") for h in handles]

    # -- Memory --------------------------------------------------------------------------------------
    @_c(27, c_int, c_size_t, c_int, c_int, c_size_t, c_void_p)
    def ANeuralNetworksMemory_createFromFd(self, size, protect, fd, offset, out):
        _need(out, "memory")
        self._out_handle(out, Memory(size, protect, fd, offset), "memory")

    @_c(29, c_int, c_void_p, c_void_p)
    def ANeuralNetworksMemory_createFromAHardwareBuffer(self, ahwb, out):
        raise _unsupported("AHardwareBuffer memory (there is no AHardwareBuffer on the host)")

    @_c(27, None, c_void_p)
    def ANeuralNetworksMemory_free(self, memory):
        self.d.release(memory, Memory)

    def _desc(self, handle) -> MemoryDesc:
        return self.d.lookup(handle, MemoryDesc, "memory descriptor")

    @_c(30, c_int, c_void_p)
    def ANeuralNetworksMemoryDesc_create(self, out):
        self._out_handle(out, MemoryDesc(), "desc")

    @_c(30, None, c_void_p)
    def ANeuralNetworksMemoryDesc_free(self, desc):
        self.d.release(desc, MemoryDesc)

    @_c(30, c_int, c_void_p, c_void_p, c_uint32, c_float)
    def ANeuralNetworksMemoryDesc_addInputRole(self, desc, compilation, index, frequency):
        self._desc(desc).add_role(self._compilation(compilation), True, index, frequency)

    @_c(30, c_int, c_void_p, c_void_p, c_uint32, c_float)
    def ANeuralNetworksMemoryDesc_addOutputRole(self, desc, compilation, index, frequency):
        self._desc(desc).add_role(self._compilation(compilation), False, index, frequency)

    @_c(30, c_int, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksMemoryDesc_setDimensions(self, desc, rank, dims):
        if rank and not dims:
            raise unexpected_null("dimensions")
        self._desc(desc).set_dimensions(cmem.read_uint32s(dims, rank) if rank else ())

    @_c(30, c_int, c_void_p)
    def ANeuralNetworksMemoryDesc_finish(self, desc):
        self._desc(desc).finish()

    @_c(30, c_int, c_void_p, c_void_p)
    def ANeuralNetworksMemory_createFromDesc(self, desc, out):
        _need(out, "memory")
        self._out_handle(out, self._desc(desc).create_memory(), "memory")

    @_c(30, c_int, c_void_p, c_void_p)
    def ANeuralNetworksMemory_copy(self, src, dst):
        s = self.d.lookup(src, Memory, "src")
        t = self.d.lookup(dst, Memory, "dst")
        if s.size != t.size:
            raise bad_data(f"memory sizes differ ({s.size} and {t.size} bytes)")
        s.check_access(True, "src")
        t.check_access(False, "dst")
        check_readable(s, "src")
        ctypes.memmove(t.address, s.address, s.size)
        t.initialized = True

    # -- Model ---------------------------------------------------------------------------------------
    def _model(self, handle) -> Model:
        return self.d.lookup(handle, Model, "model")

    @_c(27, c_int, c_void_p)
    def ANeuralNetworksModel_create(self, out):
        _need(out, "model")
        self._out_handle(out, Model(self.d.feature_level), "model")

    @_c(27, None, c_void_p)
    def ANeuralNetworksModel_free(self, model):
        self.d.release(model, Model)

    @_c(27, c_int, c_void_p)
    def ANeuralNetworksModel_finish(self, model):
        self._model(model).finish()
        self.d.models_finished += 1

    @_c(27, c_int, c_void_p, c_void_p)
    def ANeuralNetworksModel_addOperand(self, model, type_ptr):
        m = self._model(model)
        _need(type_ptr, "type")
        m.add_operand(read_operand_type(type_ptr, f"operand {len(m.operands)}"))

    @_c(27, c_int, c_void_p, c_int32, c_void_p, c_size_t)
    def ANeuralNetworksModel_setOperandValue(self, model, index, buffer, length):
        self._model(model).set_operand_value(_index(index, "operand index"), buffer or 0, length)

    @_c(29, c_int, c_void_p, c_int32, c_void_p)
    def ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(self, model, index, params):
        m = self._model(model)
        _need(params, "channelQuant")
        s = SymmPerChannelQuantParamsStruct.from_address(params)
        if s.scaleCount and not s.scales:
            raise unexpected_null("channelQuant->scales")
        m.set_channel_quant(_index(index, "operand index"), s.channelDim, cmem.read_floats(s.scales, s.scaleCount))

    @_c(27, c_int, c_void_p, c_int32, c_void_p, c_size_t, c_size_t)
    def ANeuralNetworksModel_setOperandValueFromMemory(self, model, index, memory, offset, length):
        m = self._model(model)
        mem = self.d.lookup(memory, Memory, "memory")
        m.set_operand_value_from_memory(_index(index, "operand index"), mem, offset, length)

    @_c(30, c_int, c_void_p, c_int32, c_void_p)
    def ANeuralNetworksModel_setOperandValueFromModel(self, model, index, value):
        referenced = self.d.lookup(value, Model, "referenced model")
        self._model(model).set_operand_value_from_model(_index(index, "operand index"), referenced)

    @_c(27, c_int, c_void_p, c_int32, c_uint32, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksModel_addOperation(self, model, code, n_in, ins, n_out, outs):
        m = self._model(model)
        if n_in and not ins:
            raise unexpected_null("inputs")
        if n_out and not outs:
            raise unexpected_null("outputs")
        m.add_operation(code, cmem.read_uint32s(ins, n_in), cmem.read_uint32s(outs, n_out))

    @_c(27, c_int, c_void_p, c_uint32, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksModel_identifyInputsAndOutputs(self, model, n_in, ins, n_out, outs):
        m = self._model(model)
        if n_in and not ins:
            raise unexpected_null("inputs")
        if n_out and not outs:
            raise unexpected_null("outputs")
        m.identify_inputs_and_outputs(cmem.read_uint32s(ins, n_in), cmem.read_uint32s(outs, n_out))

    @_c(28, c_int, c_void_p, c_bool)
    def ANeuralNetworksModel_relaxComputationFloat32toFloat16(self, model, allow):
        self._model(model).relax(allow)
        self.d.record_call("relaxComputationFloat32toFloat16", allow=bool(allow))

    @_c(29, c_int, c_void_p, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksModel_getSupportedOperationsForDevices(self, model, devices, count, supported):
        m = self._model(model)
        self._devices(devices, count)
        _need(supported, "supportedOps")
        if not m.finished:
            raise bad_state("the model must be finished")
        cmem.write_bools(supported, [m.operation_supported(op) for op in m.operations])

    # -- vendor extensions ---------------------------------------------------------------------------
    @_c(29, c_int, c_void_p, c_void_p, c_void_p)
    def ANeuralNetworksDevice_getExtensionSupport(self, device, name, out):
        self.d.lookup(device, Device, "device")
        _need(name, "extensionName")
        _need(out, "isExtensionSupported")
        cmem.write_bools(out, [False])

    @_c(29, c_int, c_void_p, c_void_p, c_uint16, c_void_p)
    def ANeuralNetworksModel_getExtensionOperandType(self, model, name, code, out):
        self._model(model)
        raise bad_data(f"extension {ctypes.string_at(_need(name, 'extensionName')).decode(errors='replace')!r} "
                       "is not supported by the host driver")

    @_c(29, c_int, c_void_p, c_void_p, c_uint16, c_void_p)
    def ANeuralNetworksModel_getExtensionOperationType(self, model, name, code, out):
        self._model(model)
        raise bad_data(f"extension {ctypes.string_at(_need(name, 'extensionName')).decode(errors='replace')!r} "
                       "is not supported by the host driver")

    @_c(29, c_int, c_void_p, c_int32, c_void_p, c_size_t)
    def ANeuralNetworksModel_setOperandExtensionData(self, model, index, data, length):
        self._model(model)
        raise bad_data("extension operands are not supported by the host driver")

    # -- Compilation ---------------------------------------------------------------------------------
    def _compilation(self, handle) -> Compilation:
        return self.d.lookup(handle, Compilation, "compilation")

    @_c(27, c_int, c_void_p, c_void_p)
    def ANeuralNetworksCompilation_create(self, model, out):
        m = self._model(model)
        _need(out, "compilation")
        self._out_handle(out, Compilation(m), "compilation")

    @_c(29, c_int, c_void_p, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksCompilation_createForDevices(self, model, devices, count, out):
        m = self._model(model)
        devs = self._devices(devices, count)
        _need(out, "compilation")
        self._out_handle(out, Compilation(m, devs), "compilation")
        self.d.record_call("createForDevices", devices=[d.name_str for d in devs])

    @_c(27, None, c_void_p)
    def ANeuralNetworksCompilation_free(self, compilation):
        self.d.release(compilation, Compilation)

    @_c(27, c_int, c_void_p, c_int32)
    def ANeuralNetworksCompilation_setPreference(self, compilation, preference):
        self._compilation(compilation).set_preference(preference)
        self.d.record_call("setPreference", preference=preference)

    @_c(29, c_int, c_void_p, c_void_p, c_void_p)
    def ANeuralNetworksCompilation_setCaching(self, compilation, cache_dir, token):
        c = self._compilation(compilation)
        _need(cache_dir, "cacheDir")
        _need(token, "token")
        directory = ctypes.string_at(cache_dir).decode(errors="replace")
        c.set_caching(directory, cmem.read_bytes(token, BYTE_SIZE_OF_CACHE_TOKEN))
        self.d.record_call("setCaching", cache_dir=directory, token=c.cache[1].hex())

    @_c(30, c_int, c_void_p, c_int)
    def ANeuralNetworksCompilation_setPriority(self, compilation, priority):
        self._compilation(compilation).set_priority(priority)
        self.d.record_call("setPriority", priority=priority)

    @_c(30, c_int, c_void_p, c_uint64)
    def ANeuralNetworksCompilation_setTimeout(self, compilation, duration):
        self._compilation(compilation).set_timeout(duration)
        self.d.record_call("Compilation_setTimeout", duration_ns=duration)

    @_c(27, c_int, c_void_p)
    def ANeuralNetworksCompilation_finish(self, compilation):
        self._compilation(compilation).finish()
        self.d.compilations_finished += 1

    def _preferred(self, compilation, index, out, is_input: bool, value: int) -> None:
        c = self._compilation(compilation)
        _need(out, "out")
        if not c.finished:
            raise bad_state("the compilation must be finished")
        c.check_io_index(index, is_input)
        cmem.write_uint32(out, value)

    # Host buffers have no alignment or padding needs beyond a cache line; these are hints.
    @_c(31, c_int, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(self, compilation, index, out):
        self._preferred(compilation, index, out, True, 64)

    @_c(31, c_int, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(self, compilation, index, out):
        self._preferred(compilation, index, out, True, 1)

    @_c(31, c_int, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(self, compilation, index, out):
        self._preferred(compilation, index, out, False, 64)

    @_c(31, c_int, c_void_p, c_uint32, c_void_p)
    def ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(self, compilation, index, out):
        self._preferred(compilation, index, out, False, 1)

    # -- Execution -----------------------------------------------------------------------------------
    def _execution(self, handle) -> Execution:
        return self.d.lookup(handle, Execution, "execution")

    @_c(27, c_int, c_void_p, c_void_p)
    def ANeuralNetworksExecution_create(self, compilation, out):
        c = self._compilation(compilation)
        _need(out, "execution")
        self._out_handle(out, Execution(c), "execution")

    @_c(27, None, c_void_p)
    def ANeuralNetworksExecution_free(self, execution):
        self.d.release(execution, Execution)

    def _set(self, execution, index, type_ptr, is_input, address, length, memory=None, offset=0):
        e = self._execution(execution)
        kind = "input" if is_input else "output"
        override = read_operand_type(type_ptr, f"{kind} {index} type") if type_ptr else None
        e.set_argument(is_input, _index(index, f"{kind} index"), override, address or 0, length, memory, offset)

    @_c(27, c_int, c_void_p, c_int32, c_void_p, c_void_p, c_size_t)
    def ANeuralNetworksExecution_setInput(self, execution, index, type_ptr, buffer, length):
        self._set(execution, index, type_ptr, True, buffer, length)

    @_c(27, c_int, c_void_p, c_int32, c_void_p, c_void_p, c_size_t, c_size_t)
    def ANeuralNetworksExecution_setInputFromMemory(self, execution, index, type_ptr, memory, offset, length):
        self._set_from_memory(execution, index, type_ptr, True, memory, offset, length)

    @_c(27, c_int, c_void_p, c_int32, c_void_p, c_void_p, c_size_t)
    def ANeuralNetworksExecution_setOutput(self, execution, index, type_ptr, buffer, length):
        self._set(execution, index, type_ptr, False, buffer, length)

    @_c(27, c_int, c_void_p, c_int32, c_void_p, c_void_p, c_size_t, c_size_t)
    def ANeuralNetworksExecution_setOutputFromMemory(self, execution, index, type_ptr, memory, offset, length):
        self._set_from_memory(execution, index, type_ptr, False, memory, offset, length)

    def _set_from_memory(self, execution, index, type_ptr, is_input, memory, offset, length):
        mem = self.d.lookup(memory, Memory, "memory")
        if mem.roles is not None:  # a device memory: bound whole, in one of its roles
            kind = "input" if is_input else "output"
            length = check_binding(mem, self._execution(execution).compilation, is_input, index, offset, length,
                                   f"{kind} {index}")
        self._set(execution, index, type_ptr, is_input, 0, length, mem, offset)

    def _start(self, e: Execution) -> Event:
        """Run now; the result is reported by Event_wait (the host computes synchronously)."""
        e.check_ready()
        self.d.executions_computed += 1
        code, message = e.run()
        return Event(e, code, message)

    @_c(27, c_int, c_void_p, c_void_p)
    def ANeuralNetworksExecution_startCompute(self, execution, out):
        e = self._execution(execution)
        _need(out, "event")
        self._out_handle(out, self._start(e), "event")

    @_c(29, c_int, c_void_p)
    def ANeuralNetworksExecution_compute(self, execution):
        self._start(self._execution(execution)).wait()

    @_c(29, c_int, c_void_p, c_void_p)
    def ANeuralNetworksExecution_burstCompute(self, execution, burst):
        e = self._execution(execution)
        b = self.d.lookup(burst, Burst, "burst")
        if b.compilation is not e.compilation:
            raise bad_data("the burst and the execution come from different compilations")
        self._start(e).wait()
        self.d.record_call("burstCompute")

    @_c(30, c_int, c_void_p, c_void_p, c_uint32, c_uint64, c_void_p)
    def ANeuralNetworksExecution_startComputeWithDependencies(self, execution, deps, n_deps, duration, out):
        e = self._execution(execution)
        _need(out, "event")
        if n_deps and not deps:
            raise unexpected_null("dependencies")
        events = [self.d.lookup(h, Event, "dependency") for h in cmem.read_pointers(deps, n_deps)]
        if duration and not e.compilation.single_device:
            raise bad_data("a non-zero duration needs a compilation created by createForDevices with exactly one "
                           "device")
        unknown = [j for j, b in enumerate(e.outputs) if b is not None and not b.type.fully_specified]
        if unknown:
            raise bad_data(f"outputs {unknown} are not fully specified (required by startComputeWithDependencies)")
        failed = [ev for ev in events if ev.code != 0]
        if failed:
            e.check_ready()
            e.state = COMPUTING  # a failed dependency fails this execution
            self._out_handle(out, Event(e, OP_FAILED, f"a dependency failed: {failed[0].message}"), "event")
            return
        self._out_handle(out, self._start(e), "event")

    @_c(29, c_int, c_void_p, c_int32, c_void_p)
    def ANeuralNetworksExecution_getOutputOperandRank(self, execution, index, out):
        e = self._execution(execution)
        _need(out, "rank")
        cmem.write_uint32(out, e.output_rank(_index(index, "output index")))

    @_c(29, c_int, c_void_p, c_int32, c_void_p)
    def ANeuralNetworksExecution_getOutputOperandDimensions(self, execution, index, out):
        e = self._execution(execution)
        _need(out, "dimensions")
        cmem.write_uint32s(out, e.output_dims(_index(index, "output index")))

    @_c(29, c_int, c_void_p, c_bool)
    def ANeuralNetworksExecution_setMeasureTiming(self, execution, measure):
        self._execution(execution).set_measure_timing(measure)

    @_c(29, c_int, c_void_p, c_int32, c_void_p)
    def ANeuralNetworksExecution_getDuration(self, execution, code, out):
        e = self._execution(execution)
        _need(out, "duration")
        cmem.write_uint64(out, e.duration(code))

    @_c(30, c_int, c_void_p, c_uint64)
    def ANeuralNetworksExecution_setTimeout(self, execution, duration):
        self._execution(execution).set_timeout(duration)
        self.d.record_call("Execution_setTimeout", duration_ns=duration)

    @_c(30, c_int, c_void_p, c_uint64)
    def ANeuralNetworksExecution_setLoopTimeout(self, execution, duration):
        self._execution(execution).set_loop_timeout(duration)

    @_c(31, c_int, c_void_p, c_bool)
    def ANeuralNetworksExecution_enableInputAndOutputPadding(self, execution, enable):
        self._execution(execution).enable_padding(enable)

    @_c(31, c_int, c_void_p, c_bool)
    def ANeuralNetworksExecution_setReusable(self, execution, reusable):
        self._execution(execution).set_reusable(reusable)

    # -- Burst, Event ---------------------------------------------------------------------------------
    @_c(29, c_int, c_void_p, c_void_p)
    def ANeuralNetworksBurst_create(self, compilation, out):
        c = self._compilation(compilation)
        _need(out, "burst")
        self._out_handle(out, Burst(c), "burst")
        self.d.record_call("Burst_create")

    @_c(29, None, c_void_p)
    def ANeuralNetworksBurst_free(self, burst):
        self.d.release(burst, Burst)

    @_c(27, c_int, c_void_p)
    def ANeuralNetworksEvent_wait(self, event):
        self.d.lookup(event, Event, "event").wait()

    @_c(27, None, c_void_p)
    def ANeuralNetworksEvent_free(self, event):
        self.d.release(event, Event)

    @_c(30, c_int, c_int, c_void_p)
    def ANeuralNetworksEvent_createFromSyncFenceFd(self, fd, out):
        raise _unsupported("sync fence events")

    @_c(30, c_int, c_void_p, c_void_p)
    def ANeuralNetworksEvent_getSyncFenceFd(self, event, out):
        self.d.lookup(event, Event, "event")
        _need(out, "sync_fence_fd")
        cmem.write_int32(out, -1)
        raise bad_data("the event is not backed by a sync fence")

    # -- Devices and globals --------------------------------------------------------------------------
    def _device(self, handle) -> Device:
        return self.d.lookup(handle, Device, "device")

    @_c(29, c_int, c_void_p)
    def ANeuralNetworks_getDeviceCount(self, out):
        cmem.write_uint32(_need(out, "numDevices"), len(self.d.device_handles))

    @_c(29, c_int, c_uint32, c_void_p)
    def ANeuralNetworks_getDevice(self, index, out):
        _need(out, "device")
        handles = self.d.device_handles
        if index >= len(handles):
            raise bad_data(f"device index {index} is out of range ({len(handles)} devices)")
        cmem.write_pointer(out, handles[index])

    @_c(29, c_int, c_void_p, c_void_p)
    def ANeuralNetworksDevice_getName(self, device, out):
        dev = self._device(device)
        cmem.write_pointer(_need(out, "name"), ctypes.addressof(dev.name))

    @_c(29, c_int, c_void_p, c_void_p)
    def ANeuralNetworksDevice_getType(self, device, out):
        cmem.write_int32(_need(out, "type"), self._device(device).type)

    @_c(29, c_int, c_void_p, c_void_p)
    def ANeuralNetworksDevice_getVersion(self, device, out):
        dev = self._device(device)
        cmem.write_pointer(_need(out, "version"), ctypes.addressof(dev.version))

    @_c(29, c_int, c_void_p, c_void_p)
    def ANeuralNetworksDevice_getFeatureLevel(self, device, out):
        self._device(device)
        cmem.write_int64(_need(out, "featureLevel"), self.d.feature_level)

    @_c(30, c_int, c_void_p)
    def ANeuralNetworksDevice_wait(self, device):
        self._device(device)

    @_c(30, c_uint64)
    def ANeuralNetworks_getDefaultLoopTimeout(self):
        return DEFAULT_LOOP_TIMEOUT_NS

    @_c(30, c_uint64)
    def ANeuralNetworks_getMaximumLoopTimeout(self):
        return MAXIMUM_LOOP_TIMEOUT_NS

    # The host runtime is as new as the configured level (the C++ backend asks this first).
    @_c(27, c_int64)
    def ANeuralNetworks_getRuntimeFeatureLevel(self):
        return self.d.feature_level

    @_c(27, c_int, c_void_p, c_size_t)
    def executorch_nnapi_host_last_error(self, buf, length):
        data = self.d.last_error.encode(errors="replace")
        if buf and length:
            n = min(len(data), length - 1)
            ctypes.memmove(buf, data, n)
            ctypes.c_char.from_address(buf + n).value = b"\0"
        return len(data)

    @_c(27, c_int, c_void_p, c_void_p, c_uint32, c_void_p)
    def executorch_nnapi_host_operation_durations(self, execution, durations, capacity, count):
        # Not NNAPI: the profiling extension (runtime/include/nnapi_c_api.h, docs/debugging.md).
        e = self._execution(execution)
        if e.state != COMPLETED:
            raise bad_state("operation durations are available only after the computation completed")
        times = e.operation_ns
        cmem.write_uint32s(_need(count, "count"), [len(times)])
        if durations and capacity:
            for k, ns in enumerate(times[:capacity]):
                cmem.write_uint64(durations + 8 * k, ns)


# Functions that neither check the feature level nor reset last_error.
_PASSIVE = frozenset({"executorch_nnapi_host_last_error", "ANeuralNetworks_getRuntimeFeatureLevel",
                      "ANeuralNetworks_getDefaultLoopTimeout", "ANeuralNetworks_getMaximumLoopTimeout"})


def _wrap(driver: HostDriver, name: str, since: int, restype: Any, fn: Callable) -> Callable:
    """Serialize, gate by feature level, and turn every exception into a result code."""
    if restype is None:
        def void_call(*args):
            with driver.lock:
                try:
                    fn(*args)
                except BaseException as e:  # never raise into C
                    driver.last_error = f"{name}: internal error: {summarize_exception(e)}"
                    logger.exception("%s failed", name)
        return void_call

    if name in _PASSIVE:
        def passive_call(*args):
            with driver.lock:
                try:
                    return fn(*args)
                except BaseException:
                    logger.exception("%s failed", name)
                    return 0
        return passive_call

    def call(*args):
        with driver.lock:
            driver.last_error = ""
            try:
                if since > driver.feature_level:
                    raise DriverError(OP_FAILED, f"not available at feature level {driver.level_name()} "
                                                 f"(introduced at {feature_level_name(since)})")
                result = fn(*args)
                return 0 if result is None else result
            except DriverError as e:
                return driver.record(name, e)
            except BaseException as e:  # never raise into C
                driver.last_error = f"{name}: internal error: {summarize_exception(e)}"
                logger.exception("%s failed", name)
                return OP_FAILED
    return call


IMPL_PREFIX = "executorch_nnapi_host_impl_"


def install_callbacks(lib: ctypes.CDLL, driver: HostDriver) -> list:
    """Point every `executorch_nnapi_host_impl_<Name>` of the shim at the driver.

    Returns the ctypes callback objects: the caller must keep them alive as long as the shim may
    call them.
    """
    api = CApi(driver)
    keep = []
    for name, (since, restype, argtypes, fn) in _API.items():
        proto = ctypes.CFUNCTYPE(restype, *argtypes)
        callback = proto(_wrap(driver, name, since, restype, getattr(api, name)))
        c_void_p.in_dll(lib, IMPL_PREFIX + name).value = ctypes.cast(callback, c_void_p).value
        keep.append(callback)
    return keep


def uninstall_callbacks(lib: ctypes.CDLL) -> None:
    """Reset the shim's pointers (calls then return OP_FAILED)."""
    for name in _API:
        c_void_p.in_dll(lib, IMPL_PREFIX + name).value = None


C_FUNCTIONS: tuple[str, ...] = tuple(_API)
