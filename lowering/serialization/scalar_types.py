"""ExecuTorch scalar-type codes of delegate arguments, taken from ExecuTorch itself."""

from __future__ import annotations

import torch

from executorch.exir.tensor import scalar_type_table

# The dtypes a delegate argument may have (what the runtime copies in and out).
ARGUMENT_DTYPES = frozenset({
    torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.float32, torch.float64, torch.bool,
})


def scalar_type_code(dtype: torch.dtype) -> int:
    """The c10/ExecuTorch ``ScalarType`` code of ``dtype`` (``Argument.scalar_type`` in the blob).

    Raises ``ValueError`` naming the dtype when a delegate argument cannot have it.
    """
    if dtype not in ARGUMENT_DTYPES:
        supported = ", ".join(sorted(str(d) for d in ARGUMENT_DTYPES))
        raise ValueError(f"a delegate argument cannot have dtype {dtype}; supported: {supported}")
    return int(scalar_type_table[dtype])
