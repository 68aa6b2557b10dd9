"""What is provable about a symbolic size over the ranges torch.export validated.

torch's value-range analysis (``ShapeEnv.bound_sympy``) bounds each sub-expression on its
own, so it is loose on sizes such as swin's ``7 * (pw // (pw // 7))  * ...`` (exactly ``pw``)
and may bound them below by 0. When the symbols' ranges are small (a Dim(min=2, max=8) has 7
values), the exact least or greatest value is found by evaluating the expression at every
point of the box instead: a proof by enumeration, not a sample.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import sympy

# Largest number of symbol assignments enumerated for one question.
MAX_ENUMERATED_POINTS = 4096


def _box(expr: sympy.Expr, shape_env: Any) -> list[tuple[sympy.Symbol, range]] | None:
    """Each free symbol of ``expr`` with its exported range, or None if a range is unbounded
    or the box has more than MAX_ENUMERATED_POINTS points."""
    box = []
    for sym in sorted(expr.free_symbols, key=str):
        vr = shape_env.var_to_range.get(sym)
        if vr is None or not (vr.lower.is_finite and vr.upper.is_finite):
            return None
        box.append((sym, range(int(vr.lower), int(vr.upper) + 1)))
    if math.prod(len(r) for _, r in box) > MAX_ENUMERATED_POINTS:
        return None
    return box


def _values(expr: sympy.Expr, box: list[tuple[sympy.Symbol, range]]):
    for point in itertools.product(*(r for _, r in box)):
        yield expr.xreplace({sym: sympy.Integer(v) for (sym, _), v in zip(box, point)})


def provably_at_least(expr: Any, bound: int, shape_env: Any) -> bool:
    """Whether the size ``expr`` (an int or a sympy expression) is >= ``bound`` for every value
    its symbols may take in the program's ranges (``shape_env``: the fake values' ShapeEnv)."""
    if isinstance(expr, int) or (isinstance(expr, sympy.Expr) and expr.is_Integer):
        return int(expr) >= bound
    if shape_env is None:
        return False
    expr = sympy.sympify(expr)
    vr = shape_env.bound_sympy(expr)
    if vr.lower >= bound:
        return True
    if vr.upper < bound:
        return False
    box = _box(expr, shape_env)
    if box is None:
        return False
    return all(v.is_Integer and int(v) >= bound for v in _values(expr, box))


def provably_at_most(expr: Any, bound: int, shape_env: Any) -> bool:
    """Whether ``expr`` <= ``bound`` for every value its symbols may take (see provably_at_least)."""
    return provably_at_least(-sympy.sympify(expr), -bound, shape_env)


def least_value(expr: Any, shape_env: Any) -> int | None:
    """The least value of ``expr`` over the program's ranges (exact when the box is small,
    else torch's value-range lower bound), or None when unbounded."""
    if isinstance(expr, int) or (isinstance(expr, sympy.Expr) and expr.is_Integer):
        return int(expr)
    expr = sympy.sympify(expr)
    box = _box(expr, shape_env)
    if box is not None:
        values = list(_values(expr, box))
        if all(v.is_Integer for v in values):
            return min(int(v) for v in values)
    lower = shape_env.bound_sympy(expr).lower
    return int(lower) if lower.is_finite else None


def greatest_value(expr: Any, shape_env: Any) -> int | None:
    """The greatest value of ``expr`` over the program's ranges (see least_value), or None."""
    least = least_value(-sympy.sympify(expr), shape_env)
    return -least if least is not None else None


__all__ = ["MAX_ENUMERATED_POINTS", "greatest_value", "least_value", "provably_at_least", "provably_at_most"]
