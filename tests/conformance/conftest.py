"""Fixtures of the conformance tests: the host shim at feature level 30 (Android 11, the level of
the V1_3 specs), and this folder on sys.path for the harness's modules."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nnapi_client import host_driver_at, open_shim  # noqa: E402


@pytest.fixture(scope="module")
def lib() -> ctypes.CDLL:
    return open_shim(30)


@pytest.fixture
def driver(lib):
    with host_driver_at(30) as d:
        yield d
