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

The host driver itself is ``executorch_nnapi.host_driver``, a package of its own (it is not
shipped in an app); this module only installs it when no other NNAPI library is named.
"""

from __future__ import annotations

import os

from .backend_library import last_error, load_backend, set_nnapi_library

from .method_selection import SelectedMethod, load_method, nnapi_available

_backend = load_backend()

if "EXECUTORCH_NNAPI_LIBRARY" not in os.environ:
    from executorch_nnapi.host_driver import install

    set_nnapi_library(install(feature_level=int(os.environ.get("EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL", "30"))))

__all__ = ["SelectedMethod", "last_error", "load_backend", "load_method", "nnapi_available", "set_nnapi_library"]
