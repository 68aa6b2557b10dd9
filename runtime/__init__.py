"""Runtime side of the NNAPI delegate.

``import executorch_nnapi.runtime`` registers the C++ ``NnapiBackend`` with
ExecuTorch in this process. On a Linux host it also starts the host NNAPI
driver and points the backend at its shim library, so that
``executorch.runtime.Runtime`` runs .pte files with NNAPI delegates here
exactly as an Android app would (minus the accelerator). Set
``EXECUTORCH_NNAPI_LIBRARY`` to use another NNAPI implementation instead, and
``EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL`` (default 30) to emulate an older device.

``load_method(pte)`` loads a .pte's ``forward`` method when NNAPI is available and its
``forward_cpu`` method (``executorch-nnapi export --cpu-method xnnpack``) when it is not.

``EXECUTORCH_NNAPI_DRIVER_ONLY=1`` makes this import load neither the backend nor ExecuTorch's
Python runtime: the host shim sets it when it starts the driver inside a C++ process
(nnapi_executor_runner) that already has the backend, so that only ``host_driver`` is imported there.
"""

from __future__ import annotations

import os

from .backend_library import last_error, load_backend, set_nnapi_library

if os.environ.get("EXECUTORCH_NNAPI_DRIVER_ONLY") != "1":
    # method_selection imports ExecuTorch's Python runtime, which a C++ host process already has.
    from .method_selection import SelectedMethod, load_method, nnapi_available

    _backend = load_backend()

    if "EXECUTORCH_NNAPI_LIBRARY" not in os.environ:
        from .host_driver import get_driver, install

        set_nnapi_library(install(feature_level=int(os.environ.get("EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL", "30"))))

__all__ = ["SelectedMethod", "last_error", "load_backend", "load_method", "nnapi_available", "set_nnapi_library"]
