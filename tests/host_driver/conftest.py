"""Fixtures of the host-driver tests: the shim library (loaded once per module, driven through
its C API by tests/nnapi_client.py) and a fresh host driver acting as a feature-level-30 device
for each test."""

from __future__ import annotations

import ctypes

import pytest
import torch

from nnapi_client import host_driver_at, open_shim


@pytest.fixture(scope="module")
def lib() -> ctypes.CDLL:
    return open_shim(30)


@pytest.fixture
def driver(lib):
    with host_driver_at(30) as d:
        yield d


@pytest.fixture
def at_thread_counts():
    """compute() -> compute() at the compiled kernels' pool sizes 1, 2 and 3: asserts the same bytes
    each time and returns the result (the pool's size is restored)."""
    from executorch_nnapi.host_driver.operations import _native

    native = _native.kernels()
    assert native is not None, f"{_native.library_path()} did not load: build the package"

    def run(compute) -> torch.Tensor:
        before = native.threads
        try:
            results = []
            for threads in (1, 2, 3):
                native.set_threads(threads)
                results.append(compute())
        finally:
            native.set_threads(before)
        for r in results[1:]:
            assert torch.equal(r.view(torch.int32), results[0].view(torch.int32))
        return results[0]

    return run
