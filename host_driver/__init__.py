"""The host NNAPI driver: NNAPI's C API implemented in Python on torch kernels.

An independent implementation of NNAPI, used only to check the delegate on Linux: it imports
nothing from lowering, the partitioner or the quantizer, so a lowering bug cannot hide in it.
On Linux the C++ backend dlopens our shim library (``libnnapi_host_shim.so``, inside this
package) instead of ``libneuralnetworks.so``; the shim forwards every NNAPI call here. The driver
behaves like a strict NNAPI device of a configurable feature level::

    from executorch_nnapi import host_driver
    path = host_driver.install(feature_level=30)   # the shim's path, for the backend to dlopen
    host_driver.get_driver().executions_computed
"""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Optional, Sequence

from .driver import API_LEVEL_FEATURE_LEVELS, DEFAULT_DEVICES, FEATURE_LEVELS, HostDriver, parse_devices
from .errors import DriverError

__all__ = ["API_LEVEL_FEATURE_LEVELS", "FEATURE_LEVELS", "DriverError", "HostDriver", "default_shim_path", "get_driver", "install"]

SHIM_FILENAME = "libnnapi_host_shim.so"

_lock = threading.Lock()
_driver: Optional[HostDriver] = None
_lib: Optional[ctypes.CDLL] = None
_lib_path: Optional[str] = None
_callbacks: list = []  # the ctypes callbacks the shim points to must outlive it


def default_shim_path() -> str:
    """Where the installed shim is: $EXECUTORCH_NNAPI_HOST_SHIM, else executorch_nnapi/host_driver/."""
    env = os.environ.get("EXECUTORCH_NNAPI_HOST_SHIM")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), SHIM_FILENAME)


def install(feature_level: int = 30, shim_path: Optional[str] = None,
            devices: Optional[Sequence[tuple[str, str]]] = None) -> str:
    """Load the shim, connect it to the (process-wide) driver and return the shim's path.

    ``devices``: the (name, type) devices to present, type one of cpu/gpu/accelerator/other;
    default $EXECUTORCH_NNAPI_HOST_DEVICES ("name:type,...") or one CPU device.
    Calling it again keeps the same driver and its live objects and only changes the feature level
    and, if given, the devices (models created afterwards use them).
    """
    global _driver, _lib, _lib_path, _callbacks
    from .shim import install_callbacks

    path = os.path.abspath(shim_path or default_shim_path())
    with _lock:
        if devices is None and os.environ.get("EXECUTORCH_NNAPI_HOST_DEVICES"):
            devices = parse_devices(os.environ["EXECUTORCH_NNAPI_HOST_DEVICES"])
        if _driver is None:
            _driver = HostDriver(feature_level, devices or DEFAULT_DEVICES)
        else:
            _driver.feature_level = feature_level
            if devices:
                _driver.set_devices(devices)
        if _lib_path != path:
            if not os.path.exists(path):
                raise FileNotFoundError(f"the host NNAPI shim {path} does not exist (build the package with "
                                        "EXECUTORCH_NNAPI_BUILD_HOST_SHIM=ON or set EXECUTORCH_NNAPI_HOST_SHIM)")
            lib = ctypes.CDLL(path)
            _callbacks = install_callbacks(lib, _driver) + _callbacks
            _lib, _lib_path = lib, path
    return path


def get_driver() -> HostDriver:
    """The driver behind the shim (install() must have been called)."""
    if _driver is None:
        raise RuntimeError("the host NNAPI driver is not installed; call install() first")
    return _driver
