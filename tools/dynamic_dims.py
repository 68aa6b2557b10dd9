"""The CLI's ``--dynamic DIM:NAME:MIN:MAX`` dims: parsing, torch ``Dim``\\ s, and torch.export's
constraint violations explained in the same terms.

When a model cannot run over a requested range (resnet18 needs H, W > 32: at 32 or less its
stride-32 downsampling leaves a 1x1 map, which torch specializes), ``torch.export`` raises a long
``Constraints violated`` error naming each dim, the range asked for and the guard the model's
code generated; sometimes it also lists "Suggested fixes". :func:`explain_constraint_violation`
turns that into one line per ``--dynamic`` option: the range asked for, the guard, the range
that satisfies it (computed from the guard when torch's message allows) and torch's suggestion.
"""

from __future__ import annotations

import ast
import dataclasses
import operator
import re
from typing import Callable, Optional, Sequence

from torch.export import Dim

__all__ = ["DynamicDim", "explain_constraint_violation", "parse_dynamic", "torch_dynamic_shapes"]


@dataclasses.dataclass(frozen=True)
class DynamicDim:
    """One ``--dynamic`` option: input dim ``dim`` is named ``name`` and ranges over [min, max]."""

    dim: int
    name: str
    min: int
    max: int

    def option(self, lo: Optional[int] = None, hi: Optional[int] = None) -> str:
        """The option as typed (with other bounds if given)."""
        return f"--dynamic {self.dim}:{self.name}:{self.min if lo is None else lo}:{self.max if hi is None else hi}"


def parse_dynamic(text: str) -> DynamicDim:
    """Parses ``DIM:NAME:MIN:MAX``; ValueError with a one-line reason for anything else."""
    parts = text.split(":")
    if len(parts) != 4:
        raise ValueError(f"bad --dynamic '{text}': expected DIM:NAME:MIN:MAX, e.g. 2:h:16:1024")
    dim, name, lo, hi = parts
    try:
        dim_index, lo_value, hi_value = int(dim), int(lo), int(hi)
    except ValueError:
        raise ValueError(f"bad --dynamic '{text}': DIM, MIN and MAX must be integers (DIM:NAME:MIN:MAX, "
                         "e.g. 2:h:16:1024)") from None
    if not name.isidentifier():
        raise ValueError(f"bad --dynamic '{text}': NAME '{name}' must be a Python identifier, e.g. h")
    if lo_value > hi_value:
        raise ValueError(f"bad --dynamic '{text}': min > max ({lo_value} > {hi_value})")
    if lo_value < 0:
        raise ValueError(f"bad --dynamic '{text}': min must be >= 0")
    return DynamicDim(dim_index, name, lo_value, hi_value)


def torch_dynamic_shapes(dims: Sequence[DynamicDim], shape: Sequence[int]) -> tuple[dict[int, Dim]]:
    """``dynamic_shapes`` for ``torch.export.export`` of a one-input model with example ``shape``.

    Options with the same name and range share one ``Dim`` (the sizes are then equal, e.g. a
    square input). ValueError with a one-line reason for options that contradict the shape or
    each other.
    """
    by_dim: dict[int, Dim] = {}
    by_name: dict[str, DynamicDim] = {}
    named: dict[str, Dim] = {}
    for d in dims:
        if not 0 <= d.dim < len(shape):
            raise ValueError(f"{d.option()}: dim {d.dim} is outside the input's rank {len(shape)} "
                             f"(--input-shape {','.join(map(str, shape))})")
        if d.dim in by_dim:
            raise ValueError(f"{d.option()}: dim {d.dim} is given twice")
        if not d.min <= shape[d.dim] <= d.max:
            raise ValueError(f"{d.option()}: the example input's size {shape[d.dim]} of dim {d.dim} is outside "
                             f"[{d.min}, {d.max}]; widen the range or change --input-shape")
        earlier = by_name.get(d.name)
        if earlier is not None and (earlier.min, earlier.max) != (d.min, d.max):
            raise ValueError(f"{d.option()}: '{d.name}' is also {earlier.option()} with another range; "
                             "use one range for equal dims or distinct names")
        by_name[d.name] = d
        named.setdefault(d.name, Dim(d.name, min=d.min, max=d.max))
        by_dim[d.dim] = named[d.name]
    return (by_dim,)


# "  - Not all values of h = L['x'].size()[2] in the specified range 32 <= h <= 512 satisfy the
#    generated guard 33 <= L['x'].size()[2] and L['x'].size()[2] <= 512"
_VIOLATION = re.compile(r"Not all values of (\w+) = L\[.+?\]\.size\(\)\[(\d+)\] in the specified range .*? "
                        r"satisfy the generated guard (.+)$")
# "  - You marked h as dynamic but your code specialized it to be a constant (224). ..."
_SPECIALIZED = re.compile(r"You marked (\w+) as dynamic but your code specialized it to be a constant \((\d+)\)")
_SIZE_REF = re.compile(r"L\[[^\]]+\]\.size\(\)\[(\d+)\]")
_SUGGESTION = re.compile(r"^\s+(\w+) = (.+)$")


def _suggested_fixes(message: str) -> dict[str, str]:
    """torch's "Suggested fixes:" block: name -> its suggested definition, as torch wrote it."""
    _, found, block = message.partition("Suggested fixes:")
    fixes = {}
    for line in block.splitlines()[1:] if found else []:
        match = _SUGGESTION.match(line)
        if not match:
            break
        fixes[match.group(1)] = match.group(2).strip()
    return fixes


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


_ALLOWED_NODES = (ast.Load, ast.BinOp, ast.UnaryOp, ast.USub, ast.Not, ast.BoolOp, ast.And, ast.Or, ast.Compare,
                  *_BINARY, *_COMPARE)


def _guard_predicate(guard: str, name: str) -> Optional[Callable[[int], bool]]:
    """``guard`` (torch's Python text over one size, here called ``name``) as a function of that
    size, or None if it uses anything beyond integer arithmetic, comparisons and and/or/not.
    Walks the AST itself (no eval) so that only those operations can run."""
    try:
        tree = ast.parse(guard, mode="eval").body
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        is_operand = (isinstance(node, ast.Name) and node.id == name) or (
            isinstance(node, ast.Constant) and type(node.value) is int)
        if not is_operand and not isinstance(node, _ALLOWED_NODES):
            return None

    def value(node: ast.AST, size: int):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return size
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](value(node.left, size), value(node.right, size))
        if isinstance(node, ast.UnaryOp):
            operand = value(node.operand, size)
            return -operand if isinstance(node.op, ast.USub) else not operand
        if isinstance(node, ast.BoolOp):
            results = (value(v, size) for v in node.values)
            return all(results) if isinstance(node.op, ast.And) else any(results)
        left, holds = value(node.left, size), True  # ast.Compare, possibly chained
        for op, right_node in zip(node.ops, node.comparators):
            right = value(right_node, size)
            holds, left = holds and _COMPARE[type(op)](left, right), right
        return holds

    return lambda size: bool(value(tree, size))


# Above this many sizes the admissible range is not searched (the guard is still printed).
_MAX_SIZES_TO_SCAN = 1 << 16


def _admissible_range(predicates: Sequence[Callable[[int], bool]], d: DynamicDim,
                      example_size: int) -> Optional[tuple[int, int]]:
    """The widest [a, b] within [d.min, d.max] around ``example_size`` where every guard holds."""
    if d.max - d.min > _MAX_SIZES_TO_SCAN:
        return None

    def holds(size: int) -> bool:
        try:
            return all(p(size) for p in predicates)
        except ZeroDivisionError:
            return False

    if not holds(example_size):
        return None
    lo = hi = example_size
    while lo - 1 >= d.min and holds(lo - 1):
        lo -= 1
    while hi + 1 <= d.max and holds(hi + 1):
        hi += 1
    return lo, hi


def explain_constraint_violation(message: str, dims: Sequence[DynamicDim], shape: Sequence[int]) -> list[str]:
    """One line per ``--dynamic`` option that torch.export's constraint violation names.

    Args:
        message: ``str()`` of torch.export's ``Constraints violated`` error.
        dims: the ``--dynamic`` options of the export.
        shape: the example input's shape (the sizes torch traced with).
    """
    guards: dict[int, list[str]] = {}
    specialized: dict[str, str] = {}
    for line in message.splitlines():
        if match := _VIOLATION.search(line):
            guard = match.group(3).strip()
            guards.setdefault(int(match.group(2)), []).append(guard[:-1] if guard.endswith(".") else guard)
        elif match := _SPECIALIZED.search(line):
            specialized[match.group(1)] = match.group(2)
    fixes = _suggested_fixes(message)
    lines = []
    for d in dims:
        suggestion = f" (torch suggests {d.name} = {fixes[d.name]})" if d.name in fixes else ""
        if d.name in specialized:
            lines.append(f"{d.option()}: the model only exports with size {specialized[d.name]} in dim {d.dim} "
                         f"(torch specialized it); drop this --dynamic")
            continue
        if d.dim not in guards:
            continue
        readable = [_SIZE_REF.sub(lambda m: _dim_name(dims, int(m.group(1))), g) for g in guards[d.dim]]
        predicates = [_guard_predicate(g, d.name) for g in readable]
        found = None if None in predicates else _admissible_range(predicates, d, shape[d.dim])
        fix = f"; it exports for [{found[0]}, {found[1]}]: use {d.option(*found)}" if found else ""
        lines.append(f"{d.option()}: the model does not export for every {d.name} in [{d.min}, {d.max}] "
                     f"(it needs {' and '.join(readable)}){fix}{suggestion}")
    named = {d.name for d in dims}
    lines += [f"torch suggests {name} = {fix}" for name, fix in fixes.items() if name not in named]
    return lines or [message.splitlines()[0]]


def _dim_name(dims: Sequence[DynamicDim], index: int) -> str:
    return next((d.name for d in dims if d.dim == index), f"size{index}")
