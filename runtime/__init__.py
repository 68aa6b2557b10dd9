"""Runtime side of the NNAPI delegate.

``import executorch_nnapi.runtime`` registers the C++ ``NnapiBackend`` with
ExecuTorch in this process. On a Linux host it also starts the host NNAPI
driver and points the backend at its shim library, so that
``executorch.runtime.Runtime`` runs .pte files with NNAPI delegates here
exactly as an Android app would (minus the accelerator). Set
``EXECUTORCH_NNAPI_LIBRARY`` to use another NNAPI implementation instead, and
``EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL`` (default 30) to emulate an older device.

It also registers ExecuTorch's CPU kernels of the quantize / dequantize ops that a quantized
program keeps outside NNAPI (``quantized_kernels.py``): nothing else is to be imported.

``load_method(pte)`` loads a .pte's ``forward`` method when NNAPI is available and its
``forward_cpu`` method (``executorch-nnapi export --cpu-method xnnpack``) when it is not.

The host driver itself is ``executorch_nnapi.host_driver``, a package of its own (it is not
shipped in an app); this module only installs it when no other NNAPI library is named.
"""

from __future__ import annotations

import os

from .backend_library import last_error, load_backend, set_nnapi_library

from .method_selection import SelectedMethod, load_method, nnapi_available
from .quantized_kernels import load_quantized_kernels, quantized_kernels_error

_backend = load_backend()
# The quantize / dequantize a quantized program leaves on the CPU need these; a float program
# does not, so their absence is reported where such a program fails to load.
load_quantized_kernels()

if "EXECUTORCH_NNAPI_LIBRARY" not in os.environ:
    from executorch_nnapi.host_driver import install

    set_nnapi_library(install(feature_level=int(os.environ.get("EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL", "30"))))

__all__ = ["SelectedMethod", "last_error", "load_backend", "load_method", "load_quantized_kernels", "nnapi_available",
           "quantized_kernels_error", "set_nnapi_library"]
