"""One line for an input a method cannot take: which input, what was given, what the method takes.

ExecuTorch refuses a wrong number of inputs, a wrong dtype or rank and a size its planned memory
cannot hold with an error code only (its reason goes to its log); the NNAPI backend refuses sizes
outside the exported range and says so in :func:`~executorch_nnapi.runtime.last_error`.
:meth:`SelectedMethod.execute <executorch_nnapi.runtime.SelectedMethod.execute>` checks what the
method's metadata allows before running (:func:`input_problem`) and words a refusal during the run
(:func:`execution_failure`), so every bad input is one ``ValueError`` line. Values are not checked:
NaN and Inf are inputs like any other (a float program propagates them as eager torch does).
"""

from __future__ import annotations

from typing import Any, Sequence

import torch

__all__ = ["execution_failure", "input_problem"]

# c10::ScalarType codes (TensorInfo.dtype()) of the dtypes a program input can have.
_DTYPES = {0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64, 5: torch.float16,
           6: torch.float32, 7: torch.float64, 11: torch.bool, 15: torch.bfloat16}


def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"


def _given(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"{value.dtype} {_sizes(value.shape)}"
    return f"{type(value).__name__} {value!r}"


def _inputs(count: int) -> str:
    return f"{count} input" if count == 1 else f"{count} inputs"


def _dtype(info: Any) -> Any:
    return _DTYPES.get(info.dtype(), f"dtype code {info.dtype()}")


def _tensor_meta(meta: Any, index: int) -> Any:
    """TensorInfo of input ``index``, or None when that input is not a tensor."""
    try:
        return meta.input_tensor_meta(index)
    except (RuntimeError, ValueError):
        return None


def _at_most(info: Any) -> str:
    # The metadata's sizes are an input's own when static and its maxima when dynamic.
    return f"{_dtype(info)} of at most {_sizes(info.sizes())}"


def input_problem(method_name: str, meta: Any, inputs: Sequence[Any]) -> str | None:
    """What is wrong with ``inputs`` for the method whose ``MethodMeta`` is ``meta``, in one line,
    or None: their number, a tensor's dtype or rank, a size larger than the method's largest
    (its planned memory holds no more)."""
    count = meta.num_inputs()
    method = f"method '{method_name}'"
    if len(inputs) < count:
        missing = _tensor_meta(meta, len(inputs))
        what = _at_most(missing) if missing is not None else "a value that is not a tensor"
        return (f"input {len(inputs)} is missing: {method} takes {_inputs(count)} (input {len(inputs)}: "
                f"{what}), {len(inputs)} given")
    if len(inputs) > count:
        return f"{method} takes {_inputs(count)}, {len(inputs)} given"
    for i, value in enumerate(inputs):
        info = _tensor_meta(meta, i)
        if info is None:
            continue  # not a tensor input: ExecuTorch checks it
        if not isinstance(value, torch.Tensor):
            return f"input {i}: given {_given(value)}; {method} takes a tensor, {_at_most(info)}"
        if _dtype(info) != value.dtype:
            return f"input {i}: given {_given(value)}; {method} takes {_dtype(info)}"
        largest = list(info.sizes())
        if value.dim() != len(largest):
            return (f"input {i}: given {_given(value)} (rank {value.dim()}); {method} takes rank "
                    f"{len(largest)}, {_at_most(info)}")
        larger = [d for d, (n, m) in enumerate(zip(value.shape, largest)) if n > m]
        if larger:
            return f"input {i}: given {_given(value)}; {method} takes {_at_most(info)} (dimension {larger[0]} is larger)"
    return None


def execution_failure(method_name: str, meta: Any, inputs: Sequence[Any], backend_reason: str,
                      error: Exception) -> str:
    """One line for a run of a method that failed on inputs :func:`input_problem` let through:
    the NNAPI backend's reason (a size outside the exported range names its input, the size and
    the range), or, when ExecuTorch refused to resize an input, the input whose sizes differ from
    the method's: those of a static input."""
    if backend_reason:
        return f"method '{method_name}': {backend_reason.removeprefix('NnapiBackend: ')}"
    if "set_inputs" not in str(error):  # not a refusal of the inputs (ExecuTorch's wording)
        return f"method '{method_name}' failed: {error}"
    for i, value in enumerate(inputs):
        info = _tensor_meta(meta, i)
        if info is not None and isinstance(value, torch.Tensor) and list(value.shape) != list(info.sizes()):
            return (f"input {i}: given {_given(value)}; method '{method_name}' takes exactly {_dtype(info)} "
                    f"{_sizes(info.sizes())} (its sizes are static)")
    return f"method '{method_name}' failed: {error}"
