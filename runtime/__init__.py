"""Runtime side of the NNAPI delegate.

``import executorch_nnapi.runtime`` registers the C++ ``NnapiBackend`` with
ExecuTorch in this process. On a Linux host it also starts the host NNAPI
driver and points the backend at its shim library, so that
``executorch.runtime.Runtime`` runs .pte files with NNAPI delegates here
exactly as an Android app would (minus the accelerator). Set
``EXECUTORCH_NNAPI_LIBRARY`` to use another NNAPI implementation instead, and
``EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL`` (default 30) to emulate an older device.

``EXECUTORCH_NNAPI_DRIVER_ONLY=1`` makes this import do nothing: the host shim sets it when
it starts the driver inside a C++ process (nnapi_executor_runner) that already has the
backend, so that only ``host_driver`` is imported there.
"""

from __future__ import annotations

import os

from .backend_library import last_error, load_backend, set_nnapi_library

if os.environ.get("EXECUTORCH_NNAPI_DRIVER_ONLY") != "1":
    _backend = load_backend()

    if "EXECUTORCH_NNAPI_LIBRARY" not in os.environ:
        from .host_driver import get_driver, install

        set_nnapi_library(install(feature_level=int(os.environ.get("EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL", "30"))))

__all__ = ["last_error", "load_backend", "set_nnapi_library"]
