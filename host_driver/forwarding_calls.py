"""The server side of one forwarding connection: each Request run as an NNAPI C call.

The forwarding libneuralnetworks.so (``host_driver/forwarding/``) sends every NNAPI call of its
process as one Request (``host_driver/forwarding/nnapi_forwarding.fbs``). A :class:`Session`
makes the same call on the host shim, through its C functions, as any NNAPI application would,
so the host driver checks and answers it exactly as it answers the backend in a host process.
What cannot cross the socket lives here: the bytes of the operand values (kept until the model
is freed), and the buffers that executions read their inputs from and write their outputs to.
The handles this connection created are remembered so that they are freed when it ends.
"""

from __future__ import annotations

import ctypes
import importlib
from ctypes import byref, c_bool, c_char_p, c_int, c_int32, c_int64, c_size_t, c_uint32, c_uint64, c_void_p
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from .errors import BAD_DATA, NO_ERROR, OP_FAILED
from .shim import OperandTypeStruct, SymmPerChannelQuantParamsStruct

__all__ = ["FORWARDED_FUNCTIONS", "PROTOCOL_VERSION", "Answer", "ProtocolError", "Session", "bind_shim",
           "protocol_module", "protocol_table"]

PROTOCOL_VERSION = 1
"""The protocol version this server speaks (kProtocolVersion in forwarding_connection.h)."""

_PROTOCOL_PACKAGE = __package__ + ".forwarding_protocol"

_P = c_void_p
# The C functions the server calls on the shim: name -> (restype, argtypes).
_SIGNATURES: dict[str, tuple[Any, tuple]] = {
    "ANeuralNetworks_getRuntimeFeatureLevel": (c_int64, ()),
    "ANeuralNetworks_getDeviceCount": (c_int, (_P,)),
    "ANeuralNetworks_getDevice": (c_int, (c_uint32, _P)),
    "ANeuralNetworksDevice_getName": (c_int, (_P, _P)),
    "ANeuralNetworksDevice_getType": (c_int, (_P, _P)),
    "ANeuralNetworksModel_create": (c_int, (_P,)),
    "ANeuralNetworksModel_free": (None, (_P,)),
    "ANeuralNetworksModel_finish": (c_int, (_P,)),
    "ANeuralNetworksModel_addOperand": (c_int, (_P, _P)),
    "ANeuralNetworksModel_setOperandValue": (c_int, (_P, c_int32, _P, c_size_t)),
    "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams": (c_int, (_P, c_int32, _P)),
    "ANeuralNetworksModel_setOperandValueFromModel": (c_int, (_P, c_int32, _P)),
    "ANeuralNetworksModel_addOperation": (c_int, (_P, c_int32, c_uint32, _P, c_uint32, _P)),
    "ANeuralNetworksModel_identifyInputsAndOutputs": (c_int, (_P, c_uint32, _P, c_uint32, _P)),
    "ANeuralNetworksModel_relaxComputationFloat32toFloat16": (c_int, (_P, c_bool)),
    "ANeuralNetworksCompilation_create": (c_int, (_P, _P)),
    "ANeuralNetworksCompilation_createForDevices": (c_int, (_P, _P, c_uint32, _P)),
    "ANeuralNetworksCompilation_free": (None, (_P,)),
    "ANeuralNetworksCompilation_setPreference": (c_int, (_P, c_int32)),
    "ANeuralNetworksCompilation_setCaching": (c_int, (_P, c_char_p, _P)),
    "ANeuralNetworksCompilation_setPriority": (c_int, (_P, c_int)),
    "ANeuralNetworksCompilation_setTimeout": (c_int, (_P, c_uint64)),
    "ANeuralNetworksCompilation_finish": (c_int, (_P,)),
    "ANeuralNetworksExecution_create": (c_int, (_P, _P)),
    "ANeuralNetworksExecution_free": (None, (_P,)),
    "ANeuralNetworksExecution_setInput": (c_int, (_P, c_int32, _P, _P, c_size_t)),
    "ANeuralNetworksExecution_setOutput": (c_int, (_P, c_int32, _P, _P, c_size_t)),
    "ANeuralNetworksExecution_compute": (c_int, (_P,)),
    "ANeuralNetworksExecution_burstCompute": (c_int, (_P, _P)),
    "ANeuralNetworksExecution_startCompute": (c_int, (_P, _P)),
    "ANeuralNetworksExecution_setMeasureTiming": (c_int, (_P, c_bool)),
    "ANeuralNetworksExecution_getDuration": (c_int, (_P, c_int32, _P)),
    "ANeuralNetworksExecution_setTimeout": (c_int, (_P, c_uint64)),
    "ANeuralNetworksExecution_setLoopTimeout": (c_int, (_P, c_uint64)),
    "ANeuralNetworksBurst_create": (c_int, (_P, _P)),
    "ANeuralNetworksBurst_free": (None, (_P,)),
    "ANeuralNetworksEvent_wait": (c_int, (_P,)),
    "ANeuralNetworksEvent_free": (None, (_P,)),
    "executorch_nnapi_host_last_error": (c_int, (_P, c_size_t)),
    "executorch_nnapi_host_operation_durations": (c_int, (_P, _P, c_uint32, _P)),
}

FORWARDED_FUNCTIONS: tuple[str, ...] = tuple(_SIGNATURES)
"""Every C function a forwarded call ends in (the NNAPI ones and the host driver's two)."""


def bind_shim(path: str) -> ctypes.CDLL:
    """The shim library at ``path`` with the signature of every function the server calls."""
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, list(argtypes)
    return lib


def protocol_module(name: str) -> Any:
    """The module flatc generated for protocol type ``name`` (its class and builder functions)."""
    return importlib.import_module(f"{_PROTOCOL_PACKAGE}.{name}")


def protocol_table(name: str) -> type:
    """The generated class of protocol type ``name`` (``Reply``, ``ModelCreate``, ``Call``, ...)."""
    return getattr(protocol_module(name), name)


@dataclass
class Answer:
    """The fields of one Reply (nnapi_forwarding.fbs says which call fills which)."""

    result: int = NO_ERROR
    message: str = ""
    handle: int = 0
    number: int = 0
    duration: int = 0
    text: Optional[str] = None
    outputs: Optional[list[tuple[int, bytes]]] = None
    durations: Optional[list[int]] = None


class ProtocolError(Exception):
    """A request this connection cannot have sent in good order (answered OP_FAILED / BAD_DATA)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class _Execution:
    inputs: dict[int, ctypes.Array] = field(default_factory=dict)
    outputs: dict[int, ctypes.Array] = field(default_factory=dict)


def _uint32_array(values: Any) -> Optional[ctypes.Array]:
    data = list(values) if values is not None else []
    return (c_uint32 * len(data))(*data) if data else None


class Session:
    """The NNAPI objects of one connection and the calls that make and use them."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.hello = False
        # handle -> kind ("model", "compilation", "execution", "burst", "event", "device")
        self.handles: dict[int, str] = {}
        self.model_values: dict[int, list[Any]] = {}   # model -> the value buffers it may read
        self.executions: dict[int, _Execution] = {}
        self.event_execution: dict[int, int] = {}

    # -- plumbing ------------------------------------------------------------------------------
    def handler(self, call_name: str) -> Callable[[Any], Answer]:
        """The method that answers a request of union member ``call_name``."""
        return getattr(self, "_" + call_name)

    def _own(self, handle: int, kind: str) -> int:
        """``handle`` as a C pointer; a handle of another connection is refused (NULL passes, for
        the driver to report)."""
        if handle and self.handles.get(handle) != kind:
            raise ProtocolError(BAD_DATA, f"{kind} {handle:#x} is not a live {kind} of this connection")
        return handle

    def _status(self, rc: int) -> Answer:
        return Answer(result=rc, message=self._last_error() if rc != NO_ERROR else "")

    def _created(self, rc: int, out: c_void_p, kind: str) -> Answer:
        answer = self._status(rc)
        if rc == NO_ERROR:
            answer.handle = out.value or 0
            self.handles[answer.handle] = kind
        return answer

    def _last_error(self) -> str:
        buf = ctypes.create_string_buffer(4096)
        self.lib.executorch_nnapi_host_last_error(buf, len(buf))
        return buf.value.decode("utf-8", errors="replace")

    def _forget(self, handle: int) -> None:
        self.handles.pop(handle, None)

    @staticmethod
    def _operand_type(table: Any) -> Optional[OperandTypeStruct]:
        if table is None:
            return None
        dims = _uint32_array(table.DimensionsAsNumpy()) if not table.DimensionsIsNone() else None
        struct = OperandTypeStruct(table.Type(), table.DimensionsLength() if dims is not None else 0,
                                   ctypes.cast(dims, c_void_p) if dims is not None else None, table.Scale(),
                                   table.ZeroPoint())
        struct._dims = dims  # kept alive with the struct
        return struct

    # -- the connection, the runtime and its devices ---------------------------------------------
    def _Hello(self, body: Any) -> Answer:
        if body.Version() != PROTOCOL_VERSION:
            return Answer(result=OP_FAILED, message=f"the client speaks forwarding protocol version {body.Version()}, "
                                                    f"this server {PROTOCOL_VERSION}: rebuild one of them")
        self.hello = True
        return Answer()

    def _GetRuntimeFeatureLevel(self, body: Any) -> Answer:
        return Answer(number=self.lib.ANeuralNetworks_getRuntimeFeatureLevel())

    def _GetDeviceCount(self, body: Any) -> Answer:
        count = c_uint32()
        answer = self._status(self.lib.ANeuralNetworks_getDeviceCount(byref(count)))
        answer.number = count.value
        return answer

    def _GetDevice(self, body: Any) -> Answer:
        out = c_void_p()
        return self._created(self.lib.ANeuralNetworks_getDevice(body.Index(), byref(out)), out, "device")

    def _DeviceGetName(self, body: Any) -> Answer:
        name = c_char_p()
        answer = self._status(self.lib.ANeuralNetworksDevice_getName(self._own(body.Device(), "device"), byref(name)))
        if answer.result == NO_ERROR:
            answer.text = (name.value or b"").decode("utf-8", errors="replace")
        return answer

    def _DeviceGetType(self, body: Any) -> Answer:
        kind = c_int32()
        answer = self._status(self.lib.ANeuralNetworksDevice_getType(self._own(body.Device(), "device"), byref(kind)))
        answer.number = kind.value
        return answer

    # -- models --------------------------------------------------------------------------------
    def _ModelCreate(self, body: Any) -> Answer:
        out = c_void_p()
        answer = self._created(self.lib.ANeuralNetworksModel_create(byref(out)), out, "model")
        if answer.result == NO_ERROR:
            self.model_values[answer.handle] = []
        return answer

    def _ModelFree(self, body: Any) -> Answer:
        model = self._own(body.Model(), "model")
        self.lib.ANeuralNetworksModel_free(model)
        self.model_values.pop(model, None)
        self._forget(model)
        return Answer()

    def _ModelFinish(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksModel_finish(self._own(body.Model(), "model")))

    def _ModelAddOperand(self, body: Any) -> Answer:
        struct = self._operand_type(body.Type())
        if struct is None:
            raise ProtocolError(BAD_DATA, "ModelAddOperand without an operand type")
        return self._status(self.lib.ANeuralNetworksModel_addOperand(self._own(body.Model(), "model"), byref(struct)))

    def _ModelSetOperandValue(self, body: Any) -> Answer:
        model = self._own(body.Model(), "model")
        if body.ValueIsNone():
            return self._status(self.lib.ANeuralNetworksModel_setOperandValue(model, body.Index(), None, 0))
        # A copy the driver may read until Model_finish (values over 128 bytes are read then).
        value = np.array(body.ValueAsNumpy(), dtype=np.uint8, copy=True)
        self.model_values.setdefault(model, []).append(value)
        return self._status(self.lib.ANeuralNetworksModel_setOperandValue(model, body.Index(), value.ctypes.data,
                                                                          value.size))

    def _ModelSetOperandSymmPerChannelQuantParams(self, body: Any) -> Answer:
        scales = np.array(body.ScalesAsNumpy() if not body.ScalesIsNone() else [], dtype=np.float32)
        params = SymmPerChannelQuantParamsStruct(body.ChannelDim(), scales.size, scales.ctypes.data if scales.size else None)
        return self._status(self.lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
            self._own(body.Model(), "model"), body.Index(), byref(params)))

    def _ModelSetOperandValueFromModel(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksModel_setOperandValueFromModel(
            self._own(body.Model(), "model"), body.Index(), self._own(body.Value(), "model")))

    def _ModelAddOperation(self, body: Any) -> Answer:
        ins = _uint32_array(body.InputsAsNumpy() if not body.InputsIsNone() else None)
        outs = _uint32_array(body.OutputsAsNumpy() if not body.OutputsIsNone() else None)
        return self._status(self.lib.ANeuralNetworksModel_addOperation(
            self._own(body.Model(), "model"), body.Type(), len(ins or ()), ins, len(outs or ()), outs))

    def _ModelIdentifyInputsAndOutputs(self, body: Any) -> Answer:
        ins = _uint32_array(body.InputsAsNumpy() if not body.InputsIsNone() else None)
        outs = _uint32_array(body.OutputsAsNumpy() if not body.OutputsIsNone() else None)
        return self._status(self.lib.ANeuralNetworksModel_identifyInputsAndOutputs(
            self._own(body.Model(), "model"), len(ins or ()), ins, len(outs or ()), outs))

    def _ModelRelaxComputationFloat32toFloat16(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksModel_relaxComputationFloat32toFloat16(
            self._own(body.Model(), "model"), body.Allow()))

    # -- compilations ----------------------------------------------------------------------------
    def _CompilationCreate(self, body: Any) -> Answer:
        out = c_void_p()
        rc = self.lib.ANeuralNetworksCompilation_create(self._own(body.Model(), "model"), byref(out))
        return self._created(rc, out, "compilation")

    def _CompilationCreateForDevices(self, body: Any) -> Answer:
        handles = [self._own(int(h), "device") for h in (body.DevicesAsNumpy() if not body.DevicesIsNone() else [])]
        devices = (c_void_p * max(1, len(handles)))(*handles)
        out = c_void_p()
        rc = self.lib.ANeuralNetworksCompilation_createForDevices(self._own(body.Model(), "model"), devices,
                                                                   len(handles), byref(out))
        return self._created(rc, out, "compilation")

    def _CompilationFree(self, body: Any) -> Answer:
        compilation = self._own(body.Compilation(), "compilation")
        self.lib.ANeuralNetworksCompilation_free(compilation)
        self._forget(compilation)
        return Answer()

    def _CompilationSetPreference(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksCompilation_setPreference(
            self._own(body.Compilation(), "compilation"), body.Preference()))

    def _CompilationSetCaching(self, body: Any) -> Answer:
        token = bytes(body.TokenAsNumpy()) if not body.TokenIsNone() else b""
        if len(token) != 32:
            raise ProtocolError(BAD_DATA, f"the cache token has {len(token)} bytes, not 32")
        token_buffer = ctypes.create_string_buffer(token, 32)
        return self._status(self.lib.ANeuralNetworksCompilation_setCaching(
            self._own(body.Compilation(), "compilation"), body.CacheDir() or b"", token_buffer))

    def _CompilationSetPriority(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksCompilation_setPriority(
            self._own(body.Compilation(), "compilation"), body.Priority()))

    def _CompilationSetTimeout(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksCompilation_setTimeout(
            self._own(body.Compilation(), "compilation"), body.Duration()))

    def _CompilationFinish(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksCompilation_finish(self._own(body.Compilation(), "compilation")))

    # -- executions ------------------------------------------------------------------------------
    def _ExecutionCreate(self, body: Any) -> Answer:
        out = c_void_p()
        rc = self.lib.ANeuralNetworksExecution_create(self._own(body.Compilation(), "compilation"), byref(out))
        answer = self._created(rc, out, "execution")
        if answer.result == NO_ERROR:
            self.executions[answer.handle] = _Execution()
        return answer

    def _ExecutionFree(self, body: Any) -> Answer:
        execution = self._own(body.Execution(), "execution")
        self.lib.ANeuralNetworksExecution_free(execution)
        self.executions.pop(execution, None)
        self._forget(execution)
        return Answer()

    def _set_argument(self, body: Any, is_input: bool) -> Answer:
        execution = self._own(body.Execution(), "execution")
        struct = self._operand_type(body.Type())
        type_ptr = byref(struct) if struct is not None else None
        buffer = None if body.Omitted() else (ctypes.c_char * body.Length())()
        setter = self.lib.ANeuralNetworksExecution_setInput if is_input else self.lib.ANeuralNetworksExecution_setOutput
        answer = self._status(setter(execution, body.Index(), type_ptr, buffer, 0 if buffer is None else body.Length()))
        if answer.result == NO_ERROR:
            arguments = self.executions[execution].inputs if is_input else self.executions[execution].outputs
            if buffer is None:
                arguments.pop(body.Index(), None)
            else:
                arguments[body.Index()] = buffer
        return answer

    def _ExecutionSetInput(self, body: Any) -> Answer:
        return self._set_argument(body, True)

    def _ExecutionSetOutput(self, body: Any) -> Answer:
        return self._set_argument(body, False)

    def _load_inputs(self, execution: int, body: Any) -> None:
        """Copies the request's input bytes into the buffers the execution reads."""
        inputs = self.executions[execution].inputs
        for k in range(body.InputsLength()):
            item = body.Inputs(k)
            target = inputs.get(item.Index())
            data = item.DataAsNumpy() if not item.DataIsNone() else np.zeros(0, np.uint8)
            if target is None or data.size > len(target):
                raise ProtocolError(BAD_DATA, f"{data.size} bytes for input {item.Index()}, which was not set "
                                              "to a buffer of that size")
            ctypes.memmove(target, data.ctypes.data, data.size)

    def _outputs(self, execution: int) -> list[tuple[int, bytes]]:
        return [(index, buffer.raw) for index, buffer in self.executions[execution].outputs.items()]

    def _computed(self, rc: int, execution: int) -> Answer:
        answer = self._status(rc)
        if rc == NO_ERROR:
            answer.outputs = self._outputs(execution)
        return answer

    def _ExecutionCompute(self, body: Any) -> Answer:
        execution = self._own(body.Execution(), "execution")
        self._load_inputs(execution, body)
        return self._computed(self.lib.ANeuralNetworksExecution_compute(execution), execution)

    def _ExecutionBurstCompute(self, body: Any) -> Answer:
        execution = self._own(body.Execution(), "execution")
        self._load_inputs(execution, body)
        rc = self.lib.ANeuralNetworksExecution_burstCompute(execution, self._own(body.Burst(), "burst"))
        return self._computed(rc, execution)

    def _ExecutionStartCompute(self, body: Any) -> Answer:
        execution = self._own(body.Execution(), "execution")
        self._load_inputs(execution, body)
        out = c_void_p()
        answer = self._created(self.lib.ANeuralNetworksExecution_startCompute(execution, byref(out)), out, "event")
        if answer.result == NO_ERROR:
            self.event_execution[answer.handle] = execution
        return answer

    def _ExecutionSetMeasureTiming(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksExecution_setMeasureTiming(
            self._own(body.Execution(), "execution"), body.Measure()))

    def _ExecutionGetDuration(self, body: Any) -> Answer:
        duration = c_uint64()
        answer = self._status(self.lib.ANeuralNetworksExecution_getDuration(
            self._own(body.Execution(), "execution"), body.DurationCode(), byref(duration)))
        answer.duration = duration.value
        return answer

    def _ExecutionSetTimeout(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksExecution_setTimeout(
            self._own(body.Execution(), "execution"), body.Duration()))

    def _ExecutionSetLoopTimeout(self, body: Any) -> Answer:
        return self._status(self.lib.ANeuralNetworksExecution_setLoopTimeout(
            self._own(body.Execution(), "execution"), body.Duration()))

    # -- bursts, events, profiling ------------------------------------------------------------------
    def _BurstCreate(self, body: Any) -> Answer:
        out = c_void_p()
        rc = self.lib.ANeuralNetworksBurst_create(self._own(body.Compilation(), "compilation"), byref(out))
        return self._created(rc, out, "burst")

    def _BurstFree(self, body: Any) -> Answer:
        burst = self._own(body.Burst(), "burst")
        self.lib.ANeuralNetworksBurst_free(burst)
        self._forget(burst)
        return Answer()

    def _EventWait(self, body: Any) -> Answer:
        event = self._own(body.Event(), "event")
        rc = self.lib.ANeuralNetworksEvent_wait(event)
        execution = self.event_execution.get(event)
        if rc == NO_ERROR and execution in self.executions:
            return self._computed(rc, execution)
        return self._status(rc)

    def _EventFree(self, body: Any) -> Answer:
        event = self._own(body.Event(), "event")
        self.lib.ANeuralNetworksEvent_free(event)
        self.event_execution.pop(event, None)
        self._forget(event)
        return Answer()

    def _OperationDurations(self, body: Any) -> Answer:
        capacity = body.Capacity()
        durations = (c_uint64 * max(1, capacity))()
        count = c_uint32()
        answer = self._status(self.lib.executorch_nnapi_host_operation_durations(
            self._own(body.Execution(), "execution"), durations if capacity else None, capacity, byref(count)))
        if answer.result == NO_ERROR:
            answer.number = count.value
            answer.durations = list(durations[:min(capacity, count.value)])
        return answer

    # -- the end of the connection ---------------------------------------------------------------
    def close(self) -> None:
        """Frees every object this connection left behind (its process died or hung up)."""
        frees = {"event": self.lib.ANeuralNetworksEvent_free, "execution": self.lib.ANeuralNetworksExecution_free,
                 "burst": self.lib.ANeuralNetworksBurst_free, "compilation": self.lib.ANeuralNetworksCompilation_free,
                 "model": self.lib.ANeuralNetworksModel_free}
        for kind, free in frees.items():   # users before what they use
            for handle in [h for h, k in self.handles.items() if k == kind]:
                free(handle)
                self._forget(handle)
        self.executions.clear()
        self.model_values.clear()
        self.event_execution.clear()
