"""Device memory (ANeuralNetworksMemoryDesc, feature level 30) in the host driver, through the C
API: a memory made for a compilation's input or output role carries data between executions and
Memory_copy, is bound whole (offset 0, length 0) in its roles only, and cannot be read before
something wrote it (host_driver/device_memory.py)."""

from __future__ import annotations

import mmap
import os
from ctypes import byref, c_void_p

import torch

from nnapi_client import BAD_DATA, BAD_STATE, NO_ERROR, OP_FAILED, Execution, Model, last_error

def _relu_compilation(lib):
    """A finished model computing relu(x) on [2, 3] float32, compiled."""
    m = Model(lib)
    x, y = m.tensor([2, 3]), m.tensor([2, 3])
    m.op("RELU", [x], [y])
    m.io([x], [y])
    m.finish()
    return m, m.compile()


def _device_memory(lib, compilation, roles, expect=NO_ERROR):
    """A memory from a descriptor with ``roles`` [(is_input, index)]; None when creation fails."""
    desc, memory = c_void_p(), c_void_p()
    assert lib.ANeuralNetworksMemoryDesc_create(byref(desc)) == NO_ERROR
    for is_input, index in roles:
        add = lib.ANeuralNetworksMemoryDesc_addInputRole if is_input else lib.ANeuralNetworksMemoryDesc_addOutputRole
        assert add(desc, compilation, index, 1.0) == NO_ERROR, last_error(lib)
    assert lib.ANeuralNetworksMemoryDesc_finish(desc) == NO_ERROR
    rc = lib.ANeuralNetworksMemory_createFromDesc(desc, byref(memory))
    lib.ANeuralNetworksMemoryDesc_free(desc)
    assert rc == expect, last_error(lib)
    return memory


def _shared(lib, data: bytes):
    fd = os.memfd_create("test")
    os.ftruncate(fd, len(data))
    view = mmap.mmap(fd, len(data))
    view[:] = data
    memory = c_void_p()
    assert lib.ANeuralNetworksMemory_createFromFd(len(data), 3, fd, 0, byref(memory)) == NO_ERROR
    os.close(fd)
    return memory, view


def test_a_device_memory_carries_an_output_into_the_next_execution(lib, driver):
    _, c = _relu_compilation(lib)
    # One memory is the output of the first run and the input of the second: relu(relu(x)).
    both = _device_memory(lib, c, [(False, 0), (True, 0)])
    x = torch.tensor([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]])
    first = Execution(lib, c)
    first.set_input(0, x)
    assert lib.ANeuralNetworksExecution_setOutputFromMemory(first.handle, 0, None, both, 0, 0) == NO_ERROR
    assert first.compute() == NO_ERROR, last_error(lib)
    out = torch.full((2, 3), float("nan"))
    second = Execution(lib, c)
    assert lib.ANeuralNetworksExecution_setInputFromMemory(second.handle, 0, None, both, 0, 0) == NO_ERROR
    second.set_output(0, out)
    assert second.compute() == NO_ERROR, last_error(lib)
    assert torch.equal(out, x.relu())
    shared, view = _shared(lib, bytes(24))
    assert lib.ANeuralNetworksMemory_copy(both, shared) == NO_ERROR
    assert torch.equal(torch.frombuffer(bytearray(view[:]), dtype=torch.float32).reshape(2, 3), x.relu())


def test_device_memory_rules(lib, driver):
    _, c = _relu_compilation(lib)
    out_only = _device_memory(lib, c, [(False, 0)])
    # Unwritten: neither an execution's input nor a copy's source.
    shared, _ = _shared(lib, bytes(24))
    assert lib.ANeuralNetworksMemory_copy(out_only, shared) == OP_FAILED
    assert "uninitialized" in last_error(lib)
    # Bound in its own roles only, whole.
    e = Execution(lib, c)
    assert lib.ANeuralNetworksExecution_setInputFromMemory(e.handle, 0, None, out_only, 0, 0) == BAD_DATA
    assert "not created for this role" in last_error(lib)
    assert lib.ANeuralNetworksExecution_setOutputFromMemory(e.handle, 0, None, out_only, 0, 24) == BAD_DATA
    assert "offset 0 and length 0" in last_error(lib)
    inp = _device_memory(lib, c, [(True, 0)])
    assert lib.ANeuralNetworksExecution_setInputFromMemory(e.handle, 0, None, inp, 0, 0) == NO_ERROR
    e.set_output(0, torch.zeros(2, 3))
    assert e.compute() == OP_FAILED and "uninitialized" in last_error(lib)
    # A descriptor needs a finished compilation and a role.
    desc = c_void_p()
    assert lib.ANeuralNetworksMemoryDesc_create(byref(desc)) == NO_ERROR
    assert lib.ANeuralNetworksMemoryDesc_finish(desc) == BAD_DATA
    assert lib.ANeuralNetworksMemoryDesc_addInputRole(desc, c, 1, 1.0) == BAD_DATA  # no input 1
    assert lib.ANeuralNetworksMemoryDesc_addInputRole(desc, c, 0, 0.0) == BAD_DATA  # frequency in (0, 1]
    lib.ANeuralNetworksMemoryDesc_free(desc)
    unfinished = c_void_p()
    m = Model(lib)
    x, y = m.tensor([2, 3]), m.tensor([2, 3])
    m.op("RELU", [x], [y])
    m.io([x], [y])
    m.finish()
    assert lib.ANeuralNetworksCompilation_create(m.handle, byref(unfinished)) == NO_ERROR
    desc = c_void_p()
    assert lib.ANeuralNetworksMemoryDesc_create(byref(desc)) == NO_ERROR
    assert lib.ANeuralNetworksMemoryDesc_addOutputRole(desc, unfinished, 0, 1.0) == BAD_STATE
    lib.ANeuralNetworksMemoryDesc_free(desc)
