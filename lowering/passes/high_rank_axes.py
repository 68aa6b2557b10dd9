"""The axis algebra of ``high_rank_regions``: every dim of size > 1 of a value is a row-major list
of *axes*, atomic sizes shared by every value holding the same data.

A view regroups a value's axes into new dims and splits an axis where a dim ends inside it (the
split holds for every value with that axis); a broadcasting operation identifies (unifies) the
axes its operands have at each position of its result. Axes are kept in a union-find whose roots
may be refined into sub-axes, so a split or a unification made late applies to every value read
before it: a value's current axes are always ``leaves`` of the ones it was given.
"""

from __future__ import annotations

from collections import deque
from typing import Sequence


class AxisMismatch(Exception):
    """The sizes cannot be matched axis by axis (a view mixing dims, an impossible broadcast)."""


class Axes:
    """Union-find over axes, each root possibly refined into sub-axes (outer first)."""

    def __init__(self) -> None:
        self.size: dict[int, int] = {}
        self._parent: dict[int, int] = {}
        self._split: dict[int, tuple[int, int]] = {}

    def new(self, size: int) -> int:
        axis = len(self.size)
        self.size[axis] = size
        self._parent[axis] = axis
        return axis

    def find(self, axis: int) -> int:
        root = axis
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[axis] != root:  # path compression
            self._parent[axis], axis = root, self._parent[axis]
        return root

    def leaves(self, axes: Sequence[int]) -> list[int]:
        """The current atomic axes of ``axes``, in row-major order."""
        out: list[int] = []
        stack = [self.find(a) for a in reversed(axes)]
        while stack:
            axis = stack.pop()
            if axis in self._split:
                outer, inner = self._split[axis]
                stack.extend((self.find(inner), self.find(outer)))
            else:
                out.append(axis)
        return out

    def split(self, axis: int, outer_size: int) -> tuple[int, int]:
        """Refines leaf ``axis`` into (outer of ``outer_size``, inner)."""
        axis = self.find(axis)
        size = self.size[axis]
        if outer_size <= 1 or outer_size >= size or size % outer_size:
            raise AxisMismatch(f"an axis of size {size} cannot be split at {outer_size}")
        parts = (self.new(outer_size), self.new(size // outer_size))
        self._split[axis] = parts
        return parts

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self._parent[b] = a

    def unify(self, xs: Sequence[int], ys: Sequence[int]) -> None:
        """Identifies two axis lists of the same total size, leaf by leaf (splitting as needed)."""
        left, right = deque(self.leaves(xs)), deque(self.leaves(ys))
        while left and right:
            a, b = self.leaves([left.popleft()]), self.leaves([right.popleft()])
            if len(a) > 1 or len(b) > 1:  # refined since listed: look again at the parts
                left.extendleft(reversed(a))
                right.extendleft(reversed(b))
                continue
            a, b = a[0], b[0]
            if a == b:
                continue
            size_a, size_b = self.size[a], self.size[b]
            if size_a > size_b:
                outer, inner = self.split(a, size_b)
                a = outer
                left.appendleft(inner)
            elif size_b > size_a:
                outer, inner = self.split(b, size_a)
                b = outer
                right.appendleft(inner)
            self.union(a, b)
        if left or right:
            raise AxisMismatch("the operands' sizes do not match axis by axis")

    def regroup(self, axes: Sequence[int], shape: Sequence[int]) -> list[list[int]]:
        """``axes`` (a value's, in element order) grouped into the dims of a view of ``shape``."""
        pending = deque(self.leaves(axes))
        dims: list[list[int]] = []
        for size in shape:
            need, dim = size, []
            while need > 1:
                if not pending:
                    raise AxisMismatch(f"view to {list(shape)} does not match the element count")
                axis = self.leaves([pending.popleft()])
                if len(axis) > 1:
                    pending.extendleft(reversed(axis))
                    continue
                axis = axis[0]
                have = self.size[axis]
                if need % have == 0:
                    dim.append(axis)
                    need //= have
                elif have % need == 0:
                    outer, inner = self.split(axis, need)
                    dim.append(outer)
                    pending.appendleft(inner)
                    need = 1
                else:
                    raise AxisMismatch(f"view to {list(shape)} splits an axis of size {have} unevenly")
            dims.append(dim)
        if pending:
            raise AxisMismatch(f"view to {list(shape)} does not match the element count")
        return dims
