"""Device memory (feature level 30): ANeuralNetworksMemoryDesc and Memory_createFromDesc.

A memory descriptor names the roles a memory will play: inputs and outputs of finished
compilations, each with a usage frequency, and optionally the dimensions. The memory made from
it has the size of that operand and may be used only in those roles, bound with offset 0 and
length 0; it starts uninitialized, and reading it (as an input or the source of Memory_copy)
fails until an execution has written it as an output or Memory_copy has filled it. On a phone
the driver may keep such memory on the accelerator; the host keeps it in shared memory like any
other, so what this adds is the rules.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

from .driver import Memory
from .errors import DriverError, OP_FAILED, bad_data, bad_state
from .operand_types import OperandType

PROT_READ_WRITE = 0x3


class MemoryDesc:
    """The roles and dimensions of a device memory to be (ANeuralNetworksMemoryDesc)."""

    def __init__(self) -> None:
        self.roles: set[tuple[int, bool, int]] = set()   # (id of the compilation, is input, index)
        self.compilations: list[Any] = []
        self.type: Optional[OperandType] = None
        self.dims: Optional[tuple[int, ...]] = None
        self.finished = False

    def add_role(self, compilation: Any, is_input: bool, index: int, frequency: float) -> None:
        """addInputRole / addOutputRole."""
        kind = "input" if is_input else "output"
        if self.finished:
            raise bad_state("the memory descriptor is finished")
        if not compilation.finished:
            raise bad_state(f"add{kind.capitalize()}Role: the compilation is not finished")
        compilation.check_io_index(index, is_input)
        if not 0.0 < frequency <= 1.0:
            raise bad_data(f"add{kind.capitalize()}Role: frequency {frequency} must be in (0, 1]")
        role = (id(compilation), is_input, index)
        if role in self.roles:
            raise bad_data(f"{kind} {index} of this compilation was already added as a role")
        model = compilation.model
        t = model.operands[(model.inputs if is_input else model.outputs)[index]].type
        if self.type is not None and (t.type, t.scale, t.zero_point) != (self.type.type, self.type.scale,
                                                                        self.type.zero_point):
            raise bad_data(f"{kind} {index} has type {t.describe()}, unlike the descriptor's earlier role "
                           f"{self.type.describe()}")
        self.dims = _merge(self.dims, t.dims, f"{kind} {index}")
        self.type = t
        self.roles.add(role)
        self.compilations.append(compilation)  # keeps id() of the roles unique while the desc lives

    def set_dimensions(self, dims: Sequence[int]) -> None:
        """setDimensions: may only fill in what the roles left unknown."""
        if self.finished:
            raise bad_state("the memory descriptor is finished")
        self.dims = _merge(self.dims, tuple(dims), "setDimensions")

    def finish(self) -> None:
        if self.finished:
            raise bad_state("the memory descriptor is already finished")
        if not self.roles:
            raise bad_data("a memory descriptor needs at least one input or output role before finish")
        self.finished = True

    def create_memory(self) -> Memory:
        """Memory_createFromDesc: shared memory of the operand's size, uninitialized."""
        if not self.finished:
            raise bad_state("Memory_createFromDesc: the memory descriptor is not finished")
        t = OperandType(self.type.type, self.dims, self.type.scale, self.type.zero_point)
        if not t.fully_specified:
            raise DriverError(OP_FAILED, f"device memory of {t.describe()}: the host driver allocates device "
                                         "memory only for fully specified dimensions (setDimensions)")
        fd = os.memfd_create("nnapi-device-memory")
        try:
            os.ftruncate(fd, t.byte_size())
            memory = Memory(t.byte_size(), PROT_READ_WRITE, fd, 0)
        finally:
            os.close(fd)
        memory.roles = frozenset(self.roles)
        memory.initialized = False
        memory.keep = list(self.compilations)
        return memory


def _merge(known: Optional[tuple[int, ...]], other: Optional[tuple[int, ...]], where: str) -> Optional[tuple[int, ...]]:
    """Dimensions agreeing with both (0 = unknown), or BAD_DATA naming ``where``."""
    if not other:
        return known
    if not known:
        return tuple(other)
    if len(known) != len(other) or any(a and b and a != b for a, b in zip(known, other)):
        raise bad_data(f"{where}: dimensions {list(other)} are incompatible with {list(known)}")
    return tuple(a or b for a, b in zip(known, other))


def check_binding(memory: Memory, compilation: Any, is_input: bool, index: int, offset: int,
                  length: int, where: str) -> int:
    """setInputFromMemory / setOutputFromMemory on a device memory: its role, offset 0 and
    length 0; returns the length to bind (the memory's size)."""
    if (id(compilation), is_input, index) not in memory.roles:
        raise bad_data(f"{where}: the device memory was not created for this role of this compilation")
    if offset or length:
        raise bad_data(f"{where}: a device memory is bound with offset 0 and length 0 (got {offset} and {length})")
    return memory.size


def check_readable(memory: Memory, where: str) -> None:
    """Reading an uninitialized device memory fails (as an input, or as Memory_copy's source)."""
    if not getattr(memory, "initialized", True):
        raise DriverError(OP_FAILED, f"{where}: the device memory is uninitialized (write it by Memory_copy or "
                                     "as an execution's output first)")
