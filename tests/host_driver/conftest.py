"""Fixtures of the host-driver tests: the shim library (loaded once per module, driven through
its C API by tests/nnapi_client.py) and a fresh host driver acting as a feature-level-30 device
for each test."""

from __future__ import annotations

import ctypes

import pytest

from nnapi_client import host_driver_at, open_shim


@pytest.fixture(scope="module")
def lib() -> ctypes.CDLL:
    return open_shim(30)


@pytest.fixture
def driver(lib):
    with host_driver_at(30) as d:
        yield d
