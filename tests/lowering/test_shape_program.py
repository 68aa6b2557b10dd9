"""Symbolic sizes -> shape-program instructions, checked against sympy."""

from __future__ import annotations

import itertools

import pytest
import sympy
from torch.utils._sympy.functions import CeilDiv, FloorDiv, Max, Min, ModularIndexing, PythonMod

from executorch_nnapi.lowering.shape_program import (
    ShapeProgramBuilder, UnsupportedShapeExpression, describe_unsupported, evaluate,
)

s0, s1 = sympy.symbols("s0 s1", integer=True, positive=True)


@pytest.mark.parametrize("expr", [
    s0, s0 - 2, 2 * s0 + 3, s0 * s1, FloorDiv(s0 - 1, 2) + 1, CeilDiv(s0, 3), PythonMod(s0, 7),
    Max(s0, s1), Min(s0 - 4, 9), ModularIndexing(s0 * s1, 2, 5), s0**2, -s0 + s1 + 100,
])
def test_expression_matches_sympy(expr):
    program = ShapeProgramBuilder()
    program.bind_input(0, [1, s0, s1])
    program.finish_inputs()
    index = program.expression(expr)
    code = program.expressions[index].code
    for a, b in itertools.product([1, 7, 16, 33, 1024], [2, 5, 64]):
        symbols = [evaluate(program.expressions[s.definition].code, [], [[1, a, b]]) for s in program.symbols]
        assert evaluate(code, symbols, [[1, a, b]]) == int(expr.subs({s0: a, s1: b}))


def test_symbols_defined_from_affine_input_sizes_and_checked():
    program = ShapeProgramBuilder()
    program.bind_input(0, [2 * s0 + 1])
    program.bind_input(1, [s0, 4])
    program.finish_inputs()
    (sym,) = program.symbols
    value = evaluate(program.expressions[sym.definition].code, [], [[21], [10, 4]])
    assert value == 10
    # input 1 dim 0 must equal s0, input 0 dim 0 must equal 2*s0+1
    checks = {(c.arg, c.dim): evaluate(program.expressions[c.expression].code, [value], [[21], [10, 4]])
              for c in program.checks}
    assert checks == {(0, 0): 21, (1, 0): 10}


def test_unrevealed_symbol_is_refused():
    program = ShapeProgramBuilder()
    program.bind_input(0, [s0])
    program.finish_inputs()
    with pytest.raises(UnsupportedShapeExpression, match="s1"):
        program.expression(s0 + s1)


def test_fractional_coefficient_is_reported():
    assert "fractional" in describe_unsupported([sympy.Rational(1, 2) * s0])
    assert describe_unsupported([3, s0 + 1]) is None


def test_sympy_floor_and_ceiling_of_a_quotient_read_as_integer_division():
    """A program read back from an ETRecord spells x // 2 as floor(x/2): as_dim gives torch's form,
    which the shape program compiles; a floor of a non-integer quotient is left alone."""
    from executorch_nnapi.lowering.shape_program import as_dim

    assert as_dim(sympy.floor(s0 / 2)) == FloorDiv(s0, 2)
    assert as_dim(sympy.ceiling((s0 + s1) / 3) + 1) == CeilDiv(s0 + s1, 3) + 1
    assert describe_unsupported([as_dim(sympy.floor(s0 / 2) - 1)]) is None
    half = sympy.Symbol("h", real=True)
    assert as_dim(sympy.floor(half / 2)) == sympy.floor(half / 2)


def test_an_unbounded_range_end_binds_as_the_widest_bound():
    """A symbol whose exported range is unbounded above (sympy's oo, which int() cannot convert:
    transformers' Flaubert exported its sequence length so) gets the widest bound, not an error."""
    from torch.utils._sympy.value_ranges import ValueRanges

    program = ShapeProgramBuilder({"s0": ValueRanges(sympy.Integer(2), sympy.oo)})
    program.bind_input(0, [s0])
    program.finish_inputs()
    (sym,) = program.symbols
    assert (sym.min, sym.max) == (2, 2**63 - 1)
