"""The host driver's memory objects (ANeuralNetworksMemory from a file descriptor): constants,
inputs and outputs given from memory, constants read where the memory is mapped (not copied when
the model is finished), and the rule that an execution's output may not overlap its inputs."""

from __future__ import annotations

from ctypes import byref, c_void_p

import torch

from nnapi_client import BAD_DATA, NO_ERROR, Execution, Model
from nnapi_client import last_error as _last


def test_fd_memory_for_constants_inputs_and_outputs(lib, driver, tmp_path):
    import mmap
    import os

    weights = torch.arange(8, dtype=torch.float32)
    path = tmp_path / "memory.bin"
    path.write_bytes(weights.numpy().tobytes() + bytes(mmap.PAGESIZE - 32) + torch.ones(8).numpy().tobytes()
                     + bytes(32))
    fd = os.open(path, os.O_RDWR)
    mem = c_void_p()
    try:
        assert lib.ANeuralNetworksMemory_createFromFd(mmap.PAGESIZE + 64, 3, fd, 0, byref(mem)) == NO_ERROR, \
            _last(lib)
    finally:
        os.close(fd)  # the driver keeps its mapping
    m = Model(lib)
    a, w, out = m.tensor([8]), m.tensor([8]), m.tensor([8])
    assert lib.ANeuralNetworksModel_setOperandValueFromMemory(m.handle, w, mem, 2, 32) == BAD_DATA  # misaligned
    assert lib.ANeuralNetworksModel_setOperandValueFromMemory(m.handle, w, mem, 0, 32) == NO_ERROR
    m.op("ADD", [a, w, m.i32(0)], [out])
    m.io([a], [out])
    m.finish()
    ex = Execution(lib, m.compile())
    assert lib.ANeuralNetworksExecution_setInputFromMemory(ex.handle, 0, None, mem, mmap.PAGESIZE, 32) == NO_ERROR
    assert lib.ANeuralNetworksExecution_setOutputFromMemory(ex.handle, 0, None, mem, mmap.PAGESIZE + 64, 32) \
        == BAD_DATA  # past the end
    assert lib.ANeuralNetworksExecution_setOutputFromMemory(ex.handle, 0, None, mem, mmap.PAGESIZE + 32, 32) \
        == NO_ERROR
    lib.ANeuralNetworksMemory_free(mem)  # still referenced by the model and the execution
    assert ex.compute() == NO_ERROR, _last(lib)
    data = path.read_bytes()
    result = torch.frombuffer(bytearray(data[mmap.PAGESIZE + 32:mmap.PAGESIZE + 64]), dtype=torch.float32)
    assert torch.equal(result, weights + 1)


def test_an_output_overlapping_an_input_is_refused(lib, driver):
    """NNAPI forbids an execution's output to overlap its inputs or another output; a delegate that
    updates state keeps the old and the new value in two regions (runtime/src/delegate_state.cpp)."""
    m = Model(lib)
    a, out = m.tensor([8]), m.tensor([8])
    m.op("RELU", [a], [out])
    m.io([a], [out])
    m.finish()
    compilation = m.compile()
    shared = torch.zeros(16)
    ex = Execution(lib, compilation)
    ex.set_input(0, shared[:8])
    ex.set_output(0, shared[4:12])
    assert ex.compute() == BAD_DATA
    assert "output 0's memory overlaps input 0's" in driver.last_error
    ex = Execution(lib, compilation)
    ex.set_input(0, shared[:8])
    ex.set_output(0, shared[8:])
    assert ex.compute() == NO_ERROR, _last(lib)


def test_constants_from_memory_are_read_where_mapped(lib, driver, tmp_path):
    """A constant given with setOperandValueFromMemory is read from the memory's mapping at every
    computation, not copied at finish (as a device maps a memory pool): a large model given its
    weights from the program's file holds no second copy of them."""
    import mmap
    import os

    path = tmp_path / "weights.bin"
    path.write_bytes(torch.full((64,), 2.0).numpy().tobytes() + bytes(mmap.PAGESIZE - 256))
    fd = os.open(path, os.O_RDONLY)
    mem = c_void_p()
    try:
        assert lib.ANeuralNetworksMemory_createFromFd(mmap.PAGESIZE, 1, fd, 0, byref(mem)) == NO_ERROR, _last(lib)
    finally:
        os.close(fd)
    m = Model(lib)
    a, w, out = m.tensor([64]), m.tensor([64]), m.tensor([64])
    assert lib.ANeuralNetworksModel_setOperandValueFromMemory(m.handle, w, mem, 0, 256) == NO_ERROR
    m.op("MUL", [a, w, m.i32(0)], [out])
    m.io([a], [out])
    m.finish()
    compilation = m.compile()
    with open(path, "r+b") as f, mmap.mmap(f.fileno(), mmap.PAGESIZE) as view:
        view[:256] = torch.full((64,), 3.0).numpy().tobytes()  # the file's pages, after finish
    ex = Execution(lib, compilation)
    res = torch.zeros(64)
    ex.set_input(0, torch.ones(64))
    ex.set_output(0, res)
    assert ex.compute() == NO_ERROR, _last(lib)
    assert torch.equal(res, torch.full((64,), 3.0))
    lib.ANeuralNetworksMemory_free(mem)
