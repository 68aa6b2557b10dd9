"""Symbolic sizes from torch.export, compiled into the blob's shape program.

torch.export describes a dynamic size as a sympy expression over symbols
(``s0``, ``s0 - 2``, ``((s0 - 1)//2) + 1``...). The runtime cannot run sympy,
so every expression becomes a short stack-machine program (``ShapeOp`` in the
schema) evaluated over the delegate's actual input sizes at execute time.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence, Union

import sympy
import torch
from torch.utils._sympy import functions as torch_sympy

INT64_MAX = 2**63 - 1


class ShapeOp:
    """Instruction codes; must match ``enum ShapeOp`` in nnapi_blob.fbs."""

    PUSH_CONST = 0
    PUSH_INPUT_DIM = 1
    PUSH_SYMBOL = 2
    ADD = 3
    SUB = 4
    MUL = 5
    FLOOR_DIV = 6
    CEIL_DIV = 7
    MOD = 8
    MAX = 9
    MIN = 10
    NEG = 11


class UnsupportedShapeExpression(ValueError):
    """A symbolic size uses a sympy construct the shape program cannot express."""


# A dimension as builders see it: a Python int, or a sympy expression over symbols.
Dim = Union[int, sympy.Expr]


def as_dim(size: "int | torch.SymInt | sympy.Expr") -> Dim:
    """Normalizes a size from node.meta['val'] to an int or a sympy expression."""
    if isinstance(size, torch.SymInt):
        expr = size.node.expr
        return int(expr) if expr.is_Integer else expr
    if isinstance(size, sympy.Expr):
        return int(size) if size.is_Integer else size
    return int(size)


def is_static(dim: Dim) -> bool:
    return isinstance(dim, int)


def _check_expressible(expr: sympy.Expr) -> None:
    """Raises UnsupportedShapeExpression if ``expr`` cannot be compiled."""
    _compile(expr, lambda s: [(ShapeOp.PUSH_SYMBOL, 0, 0)])


def describe_unsupported(dims: Sequence[Dim]) -> str | None:
    """Returns a reason if any symbolic dim cannot be expressed, else None."""
    for d in dims:
        if not is_static(d):
            try:
                _check_expressible(d)
            except UnsupportedShapeExpression as e:
                return str(e)
    return None


def _compile(expr: sympy.Expr, push_symbol) -> list[tuple[int, int, int]]:
    """Post-order translation of a sympy integer expression to instructions."""
    code: list[tuple[int, int, int]] = []

    def fold(op: int, args) -> None:
        emit(args[0])
        for a in args[1:]:
            emit(a)
            code.append((op, 0, 0))

    def emit(e: sympy.Expr) -> None:
        if e.is_Integer:
            code.append((ShapeOp.PUSH_CONST, 0, int(e)))
        elif e.is_Symbol:
            code.extend(push_symbol(e))
        elif isinstance(e, sympy.Add):
            fold(ShapeOp.ADD, e.args)
        elif isinstance(e, sympy.Mul):
            if any(a.is_Rational and not a.is_Integer for a in e.args):
                raise UnsupportedShapeExpression(f"symbolic size {e} has a fractional coefficient")
            fold(ShapeOp.MUL, e.args)
        elif isinstance(e, (torch_sympy.FloorDiv, torch_sympy.CleanDiv)):
            fold(ShapeOp.FLOOR_DIV, e.args)
        elif isinstance(e, torch_sympy.CeilDiv):
            fold(ShapeOp.CEIL_DIV, e.args)
        elif isinstance(e, (torch_sympy.Mod, torch_sympy.PythonMod, sympy.Mod)):
            fold(ShapeOp.MOD, e.args)
        elif isinstance(e, (torch_sympy.Max, sympy.Max)):
            fold(ShapeOp.MAX, e.args)
        elif isinstance(e, (torch_sympy.Min, sympy.Min)):
            fold(ShapeOp.MIN, e.args)
        elif isinstance(e, torch_sympy.ModularIndexing):
            base, divisor, modulus = e.args
            emit(base)
            emit(divisor)
            code.append((ShapeOp.FLOOR_DIV, 0, 0))
            emit(modulus)
            code.append((ShapeOp.MOD, 0, 0))
        elif isinstance(e, (sympy.Pow, torch_sympy.PowByNatural)) and e.args[1].is_Integer and int(e.args[1]) >= 1:
            for i in range(int(e.args[1])):
                emit(e.args[0])
                if i:
                    code.append((ShapeOp.MUL, 0, 0))
        elif isinstance(e, (torch_sympy.Identity,)):
            emit(e.args[0])
        else:
            raise UnsupportedShapeExpression(
                f"symbolic size {e} uses {type(e).__name__}, which the shape program cannot express"
            )

    emit(sympy.sympify(expr))
    return code


@dataclasses.dataclass
class SymbolDef:
    name: str
    definition: int  # expression index
    min: int
    max: int


@dataclasses.dataclass
class DimCheck:
    arg: int
    dim: int
    expression: int


@dataclasses.dataclass
class Expression:
    code: list[tuple[int, int, int]]
    text: str


class ShapeProgramBuilder:
    """Collects the symbols of a partition and the expressions its operands need.

    Symbols are defined from the delegate's input sizes (``bind_input``); any
    other expression may then refer to them.
    """

    def __init__(self, range_constraints: dict | None = None,
                 export_ranges: dict[str, tuple[int, int]] | None = None) -> None:
        self._ranges = {}
        for sym, vr in (range_constraints or {}).items():
            self._ranges[str(sym)] = (vr.lower, vr.upper)
        # Ranges as torch.export validated them take precedence over the edge
        # program's, which to_edge narrows (a Dim(min=1) comes back as [2, ...]).
        self._ranges.update(export_ranges or {})
        self.symbols: list[SymbolDef] = []
        self._symbol_index: dict[str, int] = {}
        self.expressions: list[Expression] = []
        self._expression_index: dict[str, int] = {}
        self.checks: list[DimCheck] = []
        self._pending_checks: list[tuple[int, int, sympy.Expr]] = []

    @property
    def is_dynamic(self) -> bool:
        return bool(self.symbols)

    def _add_expression(self, code: list[tuple[int, int, int]], text: str) -> int:
        key = repr(code)
        if key not in self._expression_index:
            self._expression_index[key] = len(self.expressions)
            self.expressions.append(Expression(code, text))
        return self._expression_index[key]

    def _bounds(self, name: str) -> tuple[int, int]:
        lo, hi = self._ranges.get(name, (0, INT64_MAX))

        def clamp(v, default):
            try:
                return int(v)
            except (TypeError, OverflowError):
                return default

        return clamp(lo, 0), min(clamp(hi, INT64_MAX), INT64_MAX)

    def bind_input(self, arg: int, sizes: Sequence[Dim]) -> None:
        """Defines the symbols that input ``arg``'s sizes reveal and checks the rest."""
        for d, size in enumerate(sizes):
            if is_static(size):
                continue
            expr = sympy.sympify(size)
            if expr.is_Symbol and str(expr) not in self._symbol_index:
                idx = self._add_expression([(ShapeOp.PUSH_INPUT_DIM, arg, d)], f"input {arg} dim {d}")
                lo, hi = self._bounds(str(expr))
                self._symbol_index[str(expr)] = len(self.symbols)
                self.symbols.append(SymbolDef(str(expr), idx, lo, hi))
                continue
            solved = self._solve_linear(expr)
            if solved is not None:
                sym, scale, offset = solved
                if str(sym) not in self._symbol_index:
                    # dim = scale * sym + offset  =>  sym = (dim - offset) // scale
                    code = [(ShapeOp.PUSH_INPUT_DIM, arg, d), (ShapeOp.PUSH_CONST, 0, offset),
                            (ShapeOp.SUB, 0, 0), (ShapeOp.PUSH_CONST, 0, scale), (ShapeOp.FLOOR_DIV, 0, 0)]
                    idx = self._add_expression(code, f"(input {arg} dim {d} - {offset}) // {scale}")
                    lo, hi = self._bounds(str(sym))
                    self._symbol_index[str(sym)] = len(self.symbols)
                    self.symbols.append(SymbolDef(str(sym), idx, lo, hi))
            # Every symbolic input size is checked against the symbols once all are known.
            self._pending_checks.append((arg, d, expr))

    @staticmethod
    def _solve_linear(expr: sympy.Expr):
        syms = list(expr.free_symbols)
        if len(syms) != 1:
            return None
        sym = syms[0]
        poly = sympy.Poly(expr, sym) if expr.is_polynomial(sym) else None
        if poly is None or poly.degree() != 1:
            return None
        scale, offset = poly.all_coeffs()
        if not (scale.is_Integer and offset.is_Integer) or int(scale) <= 0:
            return None
        return sym, int(scale), int(offset)

    def finish_inputs(self) -> None:
        """Turns the pending input-size checks into DimChecks (call after all bind_input)."""
        for arg, d, expr in self._pending_checks:
            self.checks.append(DimCheck(arg, d, self.expression(expr)))
        self._pending_checks.clear()

    def expression(self, dim: Dim) -> int:
        """Index of the expression computing ``dim`` (compiled once, deduplicated)."""
        expr = sympy.sympify(dim)

        def push_symbol(sym):
            name = str(sym)
            if name not in self._symbol_index:
                raise UnsupportedShapeExpression(
                    f"symbolic size {expr} depends on {name}, which no input of the partition reveals"
                )
            return [(ShapeOp.PUSH_SYMBOL, self._symbol_index[name], 0)]

        return self._add_expression(_compile(expr, push_symbol), str(expr))


def evaluate(code: Sequence[tuple[int, int, int]], symbols: Sequence[int] = (),
             input_dims: Sequence[Sequence[int]] = ()) -> int:
    """Reference evaluator of one expression (the C++ runtime implements the same)."""
    stack: list[int] = []
    for op, arg, value in code:
        if op == ShapeOp.PUSH_CONST:
            stack.append(value)
        elif op == ShapeOp.PUSH_INPUT_DIM:
            stack.append(input_dims[arg][value])
        elif op == ShapeOp.PUSH_SYMBOL:
            stack.append(symbols[arg])
        elif op == ShapeOp.NEG:
            stack.append(-stack.pop())
        else:
            b, a = stack.pop(), stack.pop()
            if op == ShapeOp.ADD:
                stack.append(a + b)
            elif op == ShapeOp.SUB:
                stack.append(a - b)
            elif op == ShapeOp.MUL:
                stack.append(a * b)
            elif op == ShapeOp.FLOOR_DIV:
                stack.append(a // b)
            elif op == ShapeOp.CEIL_DIV:
                stack.append(-((-a) // b))
            elif op == ShapeOp.MOD:
                stack.append(a % b)
            elif op == ShapeOp.MAX:
                stack.append(max(a, b))
            elif op == ShapeOp.MIN:
                stack.append(min(a, b))
            else:
                raise ValueError(f"unknown shape instruction {op}")
    if len(stack) != 1:
        raise ValueError("malformed shape expression")
    return stack[0]
