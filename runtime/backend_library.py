"""Loads the C++ NNAPI backend (``libexecutorch_nnapi_backend.so``) into the process.

The shared library registers the ExecuTorch backend ``"NnapiBackend"`` from a
static initializer when it is loaded. It must land in the same backend registry
that :mod:`executorch.runtime` uses, so ExecuTorch's own runtime library is loaded
first (by importing :mod:`executorch.runtime`) and ours is loaded with
``RTLD_GLOBAL`` so that it binds to that copy.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import threading
from typing import Optional

__all__ = ["backend_library_path", "runner_path", "load_backend", "set_nnapi_library", "last_error", "clear_last_error",
           "compilation_stats", "TransferStats", "transfer_stats", "constant_stats"]

_LIBRARY_NAME = "libexecutorch_nnapi_backend.so"

_lock = threading.Lock()
_library: Optional[ctypes.CDLL] = None


def backend_library_path() -> str:
    """Returns the path of ``libexecutorch_nnapi_backend.so``.

    The build installs it next to this file (``site-packages/executorch_nnapi/runtime/``).
    The environment variable ``EXECUTORCH_NNAPI_BACKEND_LIBRARY`` overrides the location
    (useful for a library built outside pip, e.g. with plain CMake).
    """
    override = os.environ.get("EXECUTORCH_NNAPI_BACKEND_LIBRARY")
    if override:
        return override
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), _LIBRARY_NAME)


def runner_path() -> str:
    """Returns the path of the installed ``nnapi_executor_runner`` (the C++ runner)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "nnapi_executor_runner")


def load_backend() -> ctypes.CDLL:
    """Loads the NNAPI backend library once and returns it.

    After this call ``executorch.runtime.Runtime.get().load_program(...)`` can run
    programs with ``NnapiBackend`` delegates. Calling it again returns the same handle.

    Raises:
        FileNotFoundError: the library is not where the build installs it.
        OSError: the library exists but cannot be loaded.
    """
    global _library
    with _lock:
        if _library is not None:
            return _library
        # The runtime's libexecutorch.so must already be loaded, so our library's
        # register_backend() call lands in the registry Runtime uses.
        import executorch.runtime  # noqa: F401

        path = backend_library_path()
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"The NNAPI backend library is missing: {path}. Reinstall executorch-nnapi "
                "(pip install --no-build-isolation .) or set EXECUTORCH_NNAPI_BACKEND_LIBRARY."
            )
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        lib.executorch_nnapi_set_library_path.argtypes = [ctypes.c_char_p]
        lib.executorch_nnapi_set_library_path.restype = None
        lib.executorch_nnapi_last_error.argtypes = []
        lib.executorch_nnapi_last_error.restype = ctypes.c_char_p
        lib.executorch_nnapi_clear_last_error.argtypes = []
        lib.executorch_nnapi_clear_last_error.restype = None
        _library = lib
        return lib


def set_nnapi_library(path: Optional[str]) -> None:
    """Makes the backend dlopen ``path`` as its NNAPI library.

    The default is ``libneuralnetworks.so`` (or ``$EXECUTORCH_NNAPI_LIBRARY``). On a
    Linux host, pass the host driver's shim library. Takes effect for programs loaded
    afterwards; ``None`` or ``""`` restores the default.
    """
    lib = load_backend()
    lib.executorch_nnapi_set_library_path(os.fsencode(path) if path else None)


def last_error() -> str:
    """Returns the last error message the backend logged, or ``""``.

    ExecuTorch's Python exceptions only carry an error code; this gives the reason
    (bad blob, shape out of the exported range, NNAPI error with the driver's message).
    """
    lib = load_backend()
    raw = lib.executorch_nnapi_last_error()
    return raw.decode("utf-8", errors="replace") if raw else ""


def clear_last_error() -> None:
    """Forgets the last error message (so a later :func:`last_error` is fresh)."""
    load_backend().executorch_nnapi_clear_last_error()


def compilation_stats() -> tuple[int, float]:
    """(NNAPI compilations this process has made, seconds they took in total): the backend
    compiles a model at load for static shapes, and at execute for each new set of sizes."""
    lib = load_backend()
    total_ns, count = ctypes.c_uint64(0), ctypes.c_uint32(0)
    lib.executorch_nnapi_compilation_stats(ctypes.byref(total_ns), ctypes.byref(count))
    return int(count.value), total_ns.value / 1e9


@dataclasses.dataclass(frozen=True)
class TransferStats:
    """What the backend's executions in this process moved, summed (see :func:`transfer_stats`)."""

    executions: int
    # Input and output tensors handed to NNAPI by pointer: on a device, NNAPI copies them through
    # shared memory to a driver in another process.
    pointer_bytes: int
    # Values the runtime computes at every execution (GATHER indices at a position), also by pointer.
    run_time_bytes: int
    # Bytes the backend copied itself (permuting, narrowing int64 to int32, widening back).
    staged_bytes: int
    # Delegate state (a KV cache the delegate keeps) bound as NNAPI memory: not copied.
    memory_bytes: int

    def __sub__(self, other: "TransferStats") -> "TransferStats":
        return TransferStats(*(getattr(self, f.name) - getattr(other, f.name) for f in dataclasses.fields(self)))


def transfer_stats() -> TransferStats:
    """The backend's transfer counters (subtract two readings to measure some executions)."""
    lib = load_backend()
    values = [ctypes.c_uint64(0) for _ in range(5)]
    lib.executorch_nnapi_transfer_stats(*(ctypes.byref(v) for v in values))
    return TransferStats(*(int(v.value) for v in values))


def constant_stats() -> tuple[int, int]:
    """(bytes, bytes) of constants longer than NNAPI's 128-byte immediate limit that the NNAPI
    models built in this process were given from NNAPI memory mapping the program's file, and by
    pointer (which NNAPI copies into shared memory when a model is finished). A program loaded
    from a file gives them from memory; one loaded from a buffer by pointer."""
    lib = load_backend()
    memory, pointer = ctypes.c_uint64(0), ctypes.c_uint64(0)
    lib.executorch_nnapi_constant_stats(ctypes.byref(memory), ctypes.byref(pointer))
    return int(memory.value), int(pointer.value)
