"""EMBEDDING_LOOKUP (7): rows of a table selected by a list of indices.

Inputs: 0 lookups, a 1-D TENSOR_INT32; 1 values, a tensor of rank >= 2 (F32 since 27; I32T, QA8
since 29; F16, QA8S since 30, as Android's validation has it). Output 0 has the values' type and
quantization and shape [len(lookups), *values.shape[1:]]. An index outside [0, rows) fails the model
when the lookups are constant, else the execution (as Android's reference does).
"""

import torch

from .common import F16, F32, I32T, QA8, QA8S, Ctx

NAME, CODE, SINCE = "EMBEDDING_LOOKUP", 7, 27
QUANT_COMPUTE = True  # data movement only

_VALUE_TYPES = {F32: 27, I32T: 29, QA8: 29, F16: 30, QA8S: 30}


def validate(c: Ctx) -> None:
    """Check types, ranks and (when constant) the indices; record the output shape."""
    c.counts((2,))
    c.tensor(0, {I32T: 27}, "lookups")
    c.tensor(1, _VALUE_TYPES, "values")
    c.out_like(0, 1)
    if len(c.partial_dims(0)) != 1:
        c.fail(f"input 0 (lookups) must be 1-D, got rank {len(c.partial_dims(0))}")
    if len(c.partial_dims(1)) < 2:
        c.fail(f"input 1 (values) must have rank >= 2, got rank {len(c.partial_dims(1))}")
    values, lookups = c.dims(1), c.dims(0)
    c.p.rows = values[0]
    const = c.const_tensor(0)
    if const is not None:
        check_indices(const, values[0], c.fail)
    c.p.checked = const is not None
    c.set_out(0, (lookups[0], *values[1:]))


def check_indices(indices: torch.Tensor, rows: int, fail) -> None:
    """Fail (with `fail(message)`) when an index is outside [0, rows)."""
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= rows):
        fail(f"input 0 (lookups) must be in [0, {rows}), "
             f"got values in [{int(indices.min())}, {int(indices.max())}]")


def _fail(msg: str):
    raise IndexError(f"{NAME}: {msg}")


def compute(ins, p):
    lookups, values = ins
    if not p.checked:
        check_indices(lookups, p.rows, _fail)
    return [torch.index_select(values, 0, lookups.long())]
