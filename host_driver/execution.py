"""ANeuralNetworksExecution, Event and Burst (docs/nnapi_facts.md §5.3)."""

from __future__ import annotations

import struct
import time
from typing import Any, Optional

import torch

from . import cmem
from .compilation import Compilation
from .determinism import pinned_torch_settings
from .device_memory import check_readable
from .operations._referenced import LOOP_TIMEOUT_NS
from .errors import (
    NO_ERROR, OUTPUT_INSUFFICIENT_SIZE, DriverError, bad_data, bad_state,
)
from .operand_types import (
    ELEMENT_SIZE, SCALAR_FORMAT, TENSOR_BOOL8, TORCH_DTYPE, OperandType, decode_scalar, is_tensor,
    validate_operand_type,
)

PREPARATION, COMPUTING, COMPLETED = range(3)
UINT64_MAX = 2**64 - 1
DEFAULT_LOOP_TIMEOUT_NS = 2_000_000_000
MAXIMUM_LOOP_TIMEOUT_NS = 15_000_000_000

DURATION_ON_HARDWARE, DURATION_IN_DRIVER, FENCED_DURATION_ON_HARDWARE, FENCED_DURATION_IN_DRIVER = range(4)


class Binding:
    """One setInput/setOutput: where the data is, and a tensor view of it when the shape is known."""

    __slots__ = ("omitted", "address", "length", "type", "view", "memory")

    def __init__(self, omitted: bool, address: int, length: int, t: OperandType, memory: Any = None) -> None:
        self.omitted, self.address, self.length, self.type, self.memory = omitted, address, length, t, memory
        self.view: Optional[torch.Tensor] = None


class Execution:
    """One run (or, with setReusable, several runs) of a finished compilation."""

    def __init__(self, compilation: Compilation) -> None:
        if not compilation.finished:
            raise bad_state("the compilation must be finished before an execution is created")
        self.compilation = compilation
        self.model = compilation.model
        self.inputs: list[Optional[Binding]] = [None] * len(self.model.inputs)
        self.outputs: list[Optional[Binding]] = [None] * len(self.model.outputs)
        self.state = PREPARATION
        self.reusable = False
        self.measure = False
        self.padding = False
        self.timeout_ns = 0
        self.loop_timeout_ns = DEFAULT_LOOP_TIMEOUT_NS
        self.status: Optional[int] = None
        self.out_shapes: list[Optional[tuple[int, ...]]] = [None] * len(self.model.outputs)
        self.out_insufficient = [False] * len(self.model.outputs)
        self.duration_ns: Optional[int] = None
        # Nanoseconds each operation (by model index) took in the last computation.
        self.operation_ns: list[int] = [0] * len(self.model.operations)

    # -- configuration -------------------------------------------------------------------------------
    def _settable(self, what: str) -> None:
        if self.state != PREPARATION:
            raise bad_state(f"{what} must be called before the execution starts computing")

    def set_reusable(self, reusable: bool) -> None:
        self._settable("setReusable")
        self.reusable = bool(reusable)

    def set_measure_timing(self, measure: bool) -> None:
        self._settable("setMeasureTiming")
        if not self.compilation.single_device:
            raise bad_data("setMeasureTiming needs a compilation created by createForDevices with exactly one "
                           "device")
        self.measure = bool(measure)

    def set_timeout(self, duration_ns: int) -> None:
        self._settable("setTimeout")
        if not self.compilation.single_device:
            raise bad_data("Execution_setTimeout needs a compilation created by createForDevices with exactly "
                           "one device")
        self.timeout_ns = duration_ns

    def set_loop_timeout(self, duration_ns: int) -> None:
        self._settable("setLoopTimeout")
        self.loop_timeout_ns = min(duration_ns, MAXIMUM_LOOP_TIMEOUT_NS)

    def enable_padding(self, enable: bool) -> None:
        self._settable("enableInputAndOutputPadding")
        if any(b is not None for b in (*self.inputs, *self.outputs)):
            raise bad_state("enableInputAndOutputPadding must be called before any setInput/setOutput")
        self.padding = bool(enable)

    def set_argument(self, is_input: bool, index: int, override: Optional[OperandType], address: int,
                     length: int, memory: Any = None, offset: int = 0) -> None:
        """setInput / setOutput / their FromMemory variants (address is 0 for a NULL buffer)."""
        kind = "input" if is_input else "output"
        self._settable(f"set{kind.capitalize()}")
        self.compilation.check_io_index(index, is_input)
        slots = self.inputs if is_input else self.outputs
        if slots[index] is not None:
            raise bad_state(f"{kind} {index} was already set")
        idx = (self.model.inputs if is_input else self.model.outputs)[index]
        where = f"{kind} {index} (operand {idx})"
        t = self._resolve_type(self.model.operands[idx].type, override, where)
        if memory is None and not address:
            if length:
                raise bad_data(f"{where}: buffer is NULL but length is {length}")
            slots[index] = Binding(True, 0, 0, t)  # omitted
            return
        if memory is not None:
            memory.check_range(offset, length, where)
            memory.check_access(is_input, where)
            address = memory.address + offset
        if t.fully_specified:
            need = t.byte_size()
            if length != need and not (self.padding and length > need):
                raise bad_data(f"{where}: length is {length} bytes but {t.describe()} needs exactly {need}")
        elif is_input:
            raise bad_data(f"{where}: the input's type {t.describe()} is not fully specified; pass a type "
                           "with all dimensions to setInput")
        b = Binding(False, address, length, t, memory)
        if is_tensor(t.type) and t.fully_specified:
            dtype = torch.uint8 if (is_input and t.type == TENSOR_BOOL8) else TORCH_DTYPE[t.type]
            b.view = cmem.tensor_view(address, t.byte_size(), dtype, t.dims)
        slots[index] = b

    def _resolve_type(self, declared: OperandType, override: Optional[OperandType], where: str) -> OperandType:
        """A type given to setInput/setOutput may only fill in the model's unknown dimensions."""
        if override is None:
            return declared
        validate_operand_type(override, self.model.level, where, allow_partial=False)
        if (override.type, override.scale, override.zero_point) != (declared.type, declared.scale,
                                                                    declared.zero_point):
            raise bad_data(f"{where}: type {override.describe()} differs from the model's {declared.describe()} "
                           "in more than unknown dimensions")
        if declared.dims is not None and len(declared.dims) > 0:
            if len(declared.dims) != len(override.dims or ()) or any(
                    d and d != o for d, o in zip(declared.dims, override.dims)):
                raise bad_data(f"{where}: dimensions {list(override.dims or ())} do not match the model's "
                               f"{declared.describe()}")
        return override

    # -- computing -----------------------------------------------------------------------------------
    def check_ready(self) -> None:
        """Errors a compute call returns directly (before any computation)."""
        if self.state == COMPUTING:
            raise bad_state("the execution is already computing")
        if self.state == COMPLETED and not self.reusable:
            raise bad_state("an execution computes once; create a new execution (or call setReusable(true) "
                            "before the first computation)")
        for kind, slots in (("input", self.inputs), ("output", self.outputs)):
            missing = [j for j, b in enumerate(slots) if b is None]
            if missing:
                raise bad_data(f"{kind}s {missing} were not set before computing")
        for j, b in enumerate(self.inputs):
            if b.memory is not None:
                check_readable(b.memory, f"input {j}")
        self._check_no_overlap()

    def _check_no_overlap(self) -> None:
        """An output's memory may overlap no input's and no other output's (nnapi_facts.md §5.4)."""
        def region(b: Binding) -> tuple[int, int]:
            return b.address, b.address + b.length

        inputs = [("input", j, region(b)) for j, b in enumerate(self.inputs) if not b.omitted and b.length]
        outputs = [("output", j, region(b)) for j, b in enumerate(self.outputs) if not b.omitted and b.length]
        for k, (_, j, (start, end)) in enumerate(outputs):
            for kind, i, (other_start, other_end) in inputs + outputs[k + 1:]:
                if start < other_end and other_start < end:
                    raise bad_data(f"output {j}'s memory overlaps {kind} {i}'s: an execution cannot read and "
                                   "write one region")

    def run(self) -> tuple[int, str]:
        """Compute; returns (result code, message). Leaves the execution COMPUTING."""
        self.state = COMPUTING
        self.out_insufficient = [False] * len(self.outputs)
        self.out_shapes = [None] * len(self.outputs)
        start = time.perf_counter_ns()
        try:
            code, message = self._run()
        except DriverError as e:
            code, message = e.code, e.message
        self.duration_ns = time.perf_counter_ns() - start
        self.status = code
        if code == NO_ERROR:
            for b in self.outputs:
                if b.memory is not None:
                    b.memory.initialized = True
        return code, message

    def complete(self) -> None:
        self.state = COMPLETED

    def _run(self) -> tuple[int, str]:
        model, plan = self.model, self.compilation.plan
        env = plan.env_template.copy()
        for idx, b in zip(model.inputs, self.inputs):
            if b.omitted:
                continue
            if b.view is not None:
                env[idx] = b.view if b.type.type != TENSOR_BOOL8 else b.view != 0
            else:
                env[idx] = decode_scalar(b.type.type, cmem.read_bytes(b.address, ELEMENT_SIZE[b.type.type]))
        token = LOOP_TIMEOUT_NS.set(self.loop_timeout_ns)
        try:
            with pinned_torch_settings():   # one answer per input, whatever process hosts the driver
                plan.run(env, self.operation_ns)
        finally:
            LOOP_TIMEOUT_NS.reset(token)
        code, message = NO_ERROR, ""
        for j, (idx, b) in enumerate(zip(model.outputs, self.outputs)):
            value = env[idx]
            if not isinstance(value, torch.Tensor):
                self.out_shapes[j] = ()
                if not b.omitted:
                    data = struct.pack(SCALAR_FORMAT[b.type.type], value)
                    cmem.c_buffer(b.address, len(data))[:] = data
                continue
            shape = tuple(value.shape)
            self.out_shapes[j] = shape
            if b.omitted:
                continue
            need = value.numel() * ELEMENT_SIZE[b.type.type]
            if need > b.length:
                self.out_insufficient[j] = True
                code = OUTPUT_INSUFFICIENT_SIZE
                message = (f"output {j} (operand {idx}) has shape {list(shape)} ({need} bytes) but its buffer "
                           f"holds {b.length} bytes")
                continue
            if need == 0:
                continue
            view = b.view if b.view is not None and tuple(b.view.shape) == shape else \
                cmem.tensor_view(b.address, need, TORCH_DTYPE[b.type.type], shape)
            view.copy_(value)
        return code, message

    # -- results -------------------------------------------------------------------------------------
    def _completed_output(self, index: int) -> int:
        if self.state != COMPLETED:
            raise bad_state("output shapes are available only after the computation completed")
        self.compilation.check_io_index(index, False)
        if self.status not in (NO_ERROR, OUTPUT_INSUFFICIENT_SIZE):
            raise bad_state("the computation failed; there are no output shapes")
        if self.out_insufficient[index]:
            raise DriverError(OUTPUT_INSUFFICIENT_SIZE, f"output {index}'s buffer was too small")
        return index

    def output_rank(self, index: int) -> int:
        return len(self.out_shapes[self._completed_output(index)])

    def output_dims(self, index: int) -> tuple[int, ...]:
        shape = self.out_shapes[self._completed_output(index)]
        if not is_tensor(self.model.operands[self.model.outputs[index]].type.type):
            raise bad_data(f"output {index} is a scalar; it has no dimensions")
        return shape

    def duration(self, code: int) -> int:
        if self.state != COMPLETED:
            raise bad_state("getDuration is available only after the computation completed")
        if code not in (DURATION_ON_HARDWARE, DURATION_IN_DRIVER, FENCED_DURATION_ON_HARDWARE,
                        FENCED_DURATION_IN_DRIVER):
            raise bad_data(f"unknown duration code {code}")
        if code >= FENCED_DURATION_ON_HARDWARE and self.model.level < 30:
            raise bad_data(f"duration code {code} needs feature level 30")
        if not self.measure or self.status != NO_ERROR or self.duration_ns is None:
            return UINT64_MAX
        return self.duration_ns


class Event:
    """The (already computed) result of startCompute; Event_wait reports it and completes the execution."""

    def __init__(self, execution: Optional[Execution], code: int, message: str) -> None:
        self.execution, self.code, self.message = execution, code, message

    def wait(self) -> None:
        if self.execution is not None:
            self.execution.complete()
        if self.code != NO_ERROR:
            raise DriverError(self.code, self.message)


class Burst:
    def __init__(self, compilation: Compilation) -> None:
        if not compilation.finished:
            raise bad_state("the compilation must be finished before a burst is created")
        self.compilation = compilation
