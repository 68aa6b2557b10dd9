"""Reuse of intermediate tensors' memory between the operations of a plan.

Allocating a fresh multi-megabyte tensor for every operation is what made the host driver slow on
transformer models: glibc hands large blocks back to the kernel when they are freed, so every new
result page-faults its memory in again (about 10x the cost of the arithmetic for an element-wise
operation). A real NNAPI driver plans its memory at compilation time; this pool does the same at
run time, for the operations that can write into a given tensor (`compute_into`, see
operations/common.py).

Ownership: the pool lends a buffer to one operation, then counts the operands whose value shares
that buffer's storage (the result itself and any views of it such as RESHAPE's). The plan releases
an operand after its last reader; when no live operand uses a buffer, it goes back to the free
list. Storage the pool did not lend (model inputs, constants, other kernels' results) is never
touched.
"""

from __future__ import annotations

from typing import Any

import torch


class BufferPool:
    """Free tensors by (dtype, element count), and the live operand count of each lent buffer.

    A buffer is a contiguous tensor owning its whole storage, kept in the shape it was made with.
    """

    __slots__ = ("free", "lent", "runs")

    def __init__(self) -> None:
        self.free: dict[tuple[torch.dtype, int], list[torch.Tensor]] = {}
        # storage address -> [the buffer, number of live operands using it]
        self.lent: dict[int, list[Any]] = {}
        # The native runs' replays and buffers of this pool's executions (native_runs.py)
        self.runs: Any = None

    def take(self, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        """A contiguous tensor of `shape` whose contents are undefined."""
        numel = 1
        for d in shape:
            numel *= d
        if numel == 0:
            return torch.empty(shape, dtype=dtype)
        stack = self.free.get((dtype, numel))
        buf = stack.pop() if stack else torch.empty(shape, dtype=dtype)
        self.lent[buf.untyped_storage().data_ptr()] = [buf, 0]
        # A view costs microseconds: most buffers come back for the same shape.
        return buf if buf.shape == shape else buf.view(shape)

    def give_back(self, tensors: list[torch.Tensor]) -> None:
        """Return buffers from `take` that no operand received (the kernel did not use them)."""
        for t in tensors:
            entry = self.lent.get(t.untyped_storage().data_ptr()) if t.numel() else None
            if entry is not None and entry[1] == 0:
                self._recycle(t.untyped_storage().data_ptr(), entry[0])

    def adopt(self, value: Any) -> None:
        """An operand now holds `value`: count it if it uses a lent buffer."""
        if isinstance(value, torch.Tensor) and value.numel():
            entry = self.lent.get(value.untyped_storage().data_ptr())
            if entry is not None:
                entry[1] += 1

    def release(self, value: Any) -> None:
        """An operand holding `value` is dead: recycle the buffer when it was its last user."""
        if isinstance(value, torch.Tensor) and value.numel():
            ptr = value.untyped_storage().data_ptr()
            entry = self.lent.get(ptr)
            if entry is not None:
                entry[1] -= 1
                if entry[1] <= 0:
                    self._recycle(ptr, entry[0])

    def end_run(self) -> None:
        """Forget the buffers still in use (model outputs the caller copies out): they are freed
        normally once dropped, never lent again."""
        self.lent.clear()

    def _recycle(self, ptr: int, buf: torch.Tensor) -> None:
        del self.lent[ptr]
        self.free.setdefault((buf.dtype, buf.numel()), []).append(buf)
