"""Registers ExecuTorch's CPU kernels of the quantize / dequantize ops that a quantized program
keeps outside NNAPI (``quantized_decomposed::quantize_per_tensor.out`` and the like).

ExecuTorch's Python runtime does not register them by itself. The executorch wheel ships them
as ``executorch/lib/libexecutorch_kernels_quantized.so``, which registers them with the runtime
from a static initializer when it is loaded (``import executorch.kernels.quantized`` loads it
too, as a dependency of the export-time library, together with torch's side). Loading it here
makes ``import executorch_nnapi.runtime`` all a user needs to run a quantized .pte. On Android
the app links ExecuTorch's ``quantized_ops_lib`` (``executorch::kernels_quantized``) instead.
"""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Optional

__all__ = ["load_quantized_kernels", "quantized_kernels_error"]

_LIBRARY_NAME = "libexecutorch_kernels_quantized.so"

_lock = threading.Lock()
_library: Optional[ctypes.CDLL] = None
_error = ""


def _library_path() -> Optional[str]:
    import executorch

    for root in executorch.__path__:
        path = os.path.join(root, "lib", _LIBRARY_NAME)
        if os.path.exists(path):
            return path
    return None


def load_quantized_kernels() -> str:
    """Loads ExecuTorch's quantized CPU kernels once; returns "" or, when they cannot be loaded,
    one line saying why and what to install (also given by :func:`quantized_kernels_error`)."""
    global _library, _error
    with _lock:
        if _library is not None or _error:
            return _error
        # The kernels register into the runtime's libexecutorch.so, which must be loaded first.
        import executorch.runtime  # noqa: F401

        path = _library_path()
        if path is None:
            _error = (f"this executorch install has no quantized CPU kernels ({_LIBRARY_NAME}), so a program that "
                      "quantizes or dequantizes on the CPU cannot load: install an executorch wheel that ships "
                      "them (its executorch/kernels/quantized package)")
            return _error
        try:
            _library = ctypes.CDLL(path)
        except OSError as e:
            _error = f"ExecuTorch's quantized CPU kernels did not load ({path}: {e}); reinstall executorch"
        return _error


def quantized_kernels_error() -> str:
    """"" when ExecuTorch's quantized CPU kernels are registered, else why not (one line)."""
    return load_quantized_kernels()
