"""Loads a .pte's NNAPI method, or its CPU method when NNAPI cannot run it.

A .pte exported with ``executorch-nnapi export --cpu-method xnnpack`` (or
``to_nnapi_program(ep, cpu_method="xnnpack")``) has two methods: ``forward``, with NNAPI
delegates, and ``forward_cpu``, lowered for the CPU. :func:`load_method` picks ``forward``
when the NNAPI backend is available and loads, and ``forward_cpu`` otherwise::

    from executorch_nnapi.runtime import load_method

    method = load_method("model.pte")
    print(method.name, method.reason)
    out = method.execute([x])[0]

NNAPI is unavailable when its library cannot be loaded (no ``libneuralnetworks.so`` on the
device; on a Linux host, no host shim): the backend's ``is_available()`` is false. To see the
fallback on a host, point the backend at a missing library, e.g.
``EXECUTORCH_NNAPI_LIBRARY=/nonexistent/libneuralnetworks.so`` before importing
``executorch_nnapi.runtime``, or ``set_nnapi_library("/nonexistent/libneuralnetworks.so")``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from typing import Any, BinaryIO, Sequence, Union

from executorch.runtime import Method, Program, Runtime

from .backend_library import clear_last_error, last_error, load_backend
from .input_checks import execution_failure, input_problem
from .quantized_kernels import quantized_kernels_error

__all__ = ["NNAPI_BACKEND_NAME", "SelectedMethod", "load_method", "nnapi_available"]

NNAPI_BACKEND_NAME = "NnapiBackend"

_log = logging.getLogger(__name__)

PteSource = Union[bytes, bytearray, str, os.PathLike, BinaryIO]

# ExecuTorch's pybindings point C++'s std::cout / std::cerr at Python's streams for the length of
# every call and restore them after (pybind11's scoped_ostream_redirect). A call that reaches the
# host NNAPI driver runs Python inside it, where another thread can take the GIL and make its own
# call: the two restores then happen out of order, std::cout is left pointing at a freed buffer,
# and the process crashes at exit (found by tests/runtime/test_threads.py). The calls that reach
# NNAPI (loading a method, running one) take turns here; the GIL serializes them anyway.
_executorch_calls = threading.RLock()


@dataclasses.dataclass
class SelectedMethod:
    """A loaded method of a .pte and why it was chosen."""

    name: str
    """``"forward"`` (NNAPI) or ``"forward_cpu"`` (CPU), or the names passed to :func:`load_method`."""
    reason: str
    """One line: why this method (e.g. the reason NNAPI is unavailable)."""
    uses_nnapi: bool
    """True when ``method`` (the NNAPI one) was loaded with NNAPI available."""
    method: Method
    program: Program
    """Kept here because an ExecuTorch ``Method`` does not keep its ``Program`` alive."""

    def execute(self, inputs: Sequence[Any]) -> Sequence[Any]:
        """Runs the method on ``inputs`` (a list of tensors) and returns its outputs.

        Raises:
            ValueError: an input the method's metadata rules out (missing, wrong dtype or rank, a
                size larger than its largest), in one line naming it, what was given and what the
                method takes (input_checks.py).
            RuntimeError: the run failed; one line: the backend's reason (a size outside the
                exported range names the input, the size and the range) or the static input
                ExecuTorch refused to resize.
            In both cases the method stays usable.
        """
        with _executorch_calls:
            meta = self.program.metadata(self.name)
            problem = input_problem(self.name, meta, inputs)
            if problem is not None:
                raise ValueError(problem)
            clear_last_error()
            try:
                return self.method.execute(inputs)
            except RuntimeError as e:
                raise RuntimeError(execution_failure(self.name, meta, inputs, last_error(), e)) from e


def nnapi_available() -> bool:
    """True if the NNAPI backend is registered and its NNAPI library loads.

    When false, :func:`executorch_nnapi.runtime.last_error` says why.
    """
    load_backend()
    return Runtime.get().backend_registry.is_available(NNAPI_BACKEND_NAME)


def _load_program(pte: PteSource) -> Program:
    if isinstance(pte, os.PathLike):
        pte = os.fspath(pte)
    return Runtime.get().load_program(pte)


def _load_failure(e: RuntimeError) -> str:
    """Why a method did not load: the backend's reason, else ExecuTorch's; with the missing
    quantized CPU kernels, if they are (ExecuTorch's own error names no operator)."""
    why = last_error() or str(e)
    missing = quantized_kernels_error()
    return f"{why} (perhaps: {missing})" if missing else why


def load_method(pte: PteSource, *, method: str = "forward", cpu_method: str = "forward_cpu") -> SelectedMethod:
    """Loads ``method`` of the .pte ``pte`` if NNAPI can run it, else ``cpu_method``.

    ``forward`` is chosen when the NNAPI backend is available and the method loads (its NNAPI
    models compile). ``forward_cpu`` is chosen when NNAPI is unavailable, or when loading
    ``forward`` fails and the program has ``forward_cpu`` (logged as a warning with the
    backend's reason: e.g. no NNAPI device can run the model).

    Args:
        pte: the .pte's bytes, its path, or an open binary file.
        method: the NNAPI method's name.
        cpu_method: the CPU method's name (written by ``--cpu-method``).

    Raises:
        ValueError: the program has no method named ``method``.
        RuntimeError: neither method can be loaded; the message says why and what to do.
    """
    program = _load_program(pte)
    with _executorch_calls:
        return _select_method(program, method, cpu_method)


def _select_method(program: Program, method: str, cpu_method: str) -> SelectedMethod:
    """load_method's choice for a loaded program (its calls reach NNAPI: see _executorch_calls)."""
    names = program.method_names
    if method not in names:
        raise ValueError(f"the program has no method '{method}' (it has: {', '.join(sorted(names))})")
    has_cpu_method = cpu_method in names

    clear_last_error()
    if nnapi_available():
        try:
            return SelectedMethod(method, "NNAPI is available", True, program.load_method(method), program)
        except RuntimeError as e:
            why = _load_failure(e)
            if not has_cpu_method:
                raise RuntimeError(f"cannot load method '{method}': {why}") from e
            _log.warning("method '%s' did not load (%s); running '%s' on the CPU", method, why, cpu_method)
            return SelectedMethod(cpu_method, f"'{method}' did not load: {why}", False,
                                  program.load_method(cpu_method), program)

    why = last_error() or "the NnapiBackend is not available"
    if has_cpu_method:
        _log.info("%s; running '%s' on the CPU", why, cpu_method)
        return SelectedMethod(cpu_method, why, False, program.load_method(cpu_method), program)
    # Without NNAPI a method with no NNAPI delegate still loads; one with delegates cannot.
    try:
        return SelectedMethod(method, f"{why}; '{method}' has no NNAPI delegate", False,
                              program.load_method(method), program)
    except RuntimeError as e:
        raise RuntimeError(
            f"{why}, and the program has no '{cpu_method}' method to run instead: export it with "
            "`executorch-nnapi export ... --cpu-method xnnpack` (or to_nnapi_program(..., cpu_method='xnnpack'))"
        ) from e
