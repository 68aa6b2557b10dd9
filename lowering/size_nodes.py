"""Nodes that compute sizes, not tensors, and how a partition computes them itself.

A language model exported with a KV cache reads its position as a number
(``input_pos[0].item()``: ``select_copy`` then ``_local_scalar_dense``, which torch.export
gives an unbacked symbol ``u0``), adds the token count to it (``operator.add`` on SymInts),
reads sizes (``sym_size``) and checks ranges (``operator.le`` feeding ``_assert_scalar``).
None of these is an NNAPI operation. A partition takes them when its shape program can do their
work: a number read from a tensor the delegate receives becomes a symbol the runtime reads
from the tensor's data (``PUSH_INPUT_VALUE``), size arithmetic becomes the shape program's
expressions over the symbols, and an assertion one of its assertions. The partition then has no
size node left on the CPU, and the tensor holding the position is a delegate input no NNAPI
operation reads (``ArgKind.VALUES``).
"""

from __future__ import annotations

import operator
from typing import Optional

import sympy
import torch
from torch.fx import Node

from .node_utils import aten_op, fake_value
from .shape_program import Dim, as_dim, describe_unsupported

aten = torch.ops.aten

_READ_SCALAR = aten._local_scalar_dense.default
_ASSERT = aten._assert_scalar.default
_SELECT = aten.select_copy.int
_SYM_SIZE = aten.sym_size.int
# SymInt arithmetic as torch.export records it.
_SIZE_ARITHMETIC = frozenset({operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
                              operator.neg, torch.sym_max, torch.sym_min})
_COMPARISONS = frozenset({operator.le, operator.lt, operator.ge, operator.gt, operator.eq})


def reads_value_as_size(node: Node) -> bool:
    """Whether ``node`` is an integer tensor read only as numbers (``.item()``), directly or
    through ``select_copy``."""
    value = fake_value(node)
    if not (isinstance(value, torch.Tensor) and not value.is_floating_point() and value.dtype != torch.bool
            and node.users):
        return False
    return all(aten_op(u) == _READ_SCALAR or (aten_op(u) == _SELECT and reads_value_as_size(u))
               for u in node.users)


def is_size_node(node: Node) -> bool:
    """Whether ``node`` computes a size, a check of sizes, or an integer tensor read only as a
    number: nothing an NNAPI operation computes."""
    if node.op != "call_function":
        return False
    if aten_op(node) == _ASSERT:
        return True
    if isinstance(fake_value(node), (torch.SymInt, torch.SymBool)):
        return True
    return aten_op(node) == _SELECT and reads_value_as_size(node)


def value_element(node: Node) -> Optional[tuple[Node, int]]:
    """For an integer tensor ``node`` read as a number, the tensor it comes from (``node``
    itself, or the tensor a chain of ``select_copy`` reads) and the row-major index of the
    element in it; None if that cannot be worked out from static shapes."""
    index, source = 0, node
    while source.op == "call_function" and aten_op(source) == _SELECT:
        base, dim, position = source.args[0], source.args[1], source.args[2]
        shape = fake_value(base).shape
        if not all(isinstance(d, int) for d in shape) or not isinstance(position, int):
            return None
        dim = dim + len(shape) if dim < 0 else dim
        position = position + shape[dim] if position < 0 else position
        if not 0 <= position < shape[dim]:
            return None
        inner = 1
        for d in shape[dim + 1:]:
            inner *= d
        # Element ``index`` of the selected tensor, in the tensor it was selected from.
        outer, within = divmod(index, inner)
        index = (outer * shape[dim] + position) * inner + within
        source = base
    value = fake_value(source)
    if not isinstance(value, torch.Tensor) or not all(isinstance(d, int) for d in value.shape):
        return None
    return (source, index) if index < value.numel() else None


def read_symbol(node: Node) -> Optional[str]:
    """The symbol a ``_local_scalar_dense`` node defines (torch.export's unbacked ``u0``), or None
    when its value is not a plain symbol."""
    value = fake_value(node)
    if aten_op(node) != _READ_SCALAR or not isinstance(value, torch.SymInt):
        return None
    expr = value.node.expr
    return str(expr) if isinstance(expr, sympy.Symbol) else None


def assertion_values(condition: Node) -> Optional[list[Dim]]:
    """The values that must be >= 0 for the SymBool ``condition`` (``a <= b``: ``b - a``) to
    hold, or None if it is not one comparison of expressible sizes."""
    value = fake_value(condition)
    if not isinstance(value, torch.SymBool):
        return None
    expr = value.node.expr
    if isinstance(expr, sympy.Equality):
        values = [expr.lhs - expr.rhs, expr.rhs - expr.lhs]
    elif isinstance(expr, (sympy.LessThan, sympy.StrictLessThan)):
        values = [expr.rhs - expr.lhs - (1 if isinstance(expr, sympy.StrictLessThan) else 0)]
    elif isinstance(expr, (sympy.GreaterThan, sympy.StrictGreaterThan)):
        values = [expr.lhs - expr.rhs - (1 if isinstance(expr, sympy.StrictGreaterThan) else 0)]
    else:
        return None
    dims = [as_dim(sympy.expand(v)) for v in values]
    return None if describe_unsupported(dims) else dims


def size_node_refusal(node: Node, user_inputs: set[str]) -> Optional[str]:
    """None if a partition can compute the size node ``node`` itself (given that its inputs are
    in it or are delegate inputs), else why not. Placeholders it reads must be the program's
    inputs: the runtime reads their sizes and values."""
    op = aten_op(node)
    if op == _ASSERT:
        condition = node.args[0]
        if not isinstance(condition, Node) or assertion_values(condition) is None:
            return "a runtime assertion that is not one comparison of sizes the delegate can compute"
        return None
    if op == _SELECT:
        return _value_source_refusal(node, user_inputs)
    if op == _READ_SCALAR:
        if read_symbol(node) is None:
            return ".item() of a value that is not a plain symbol"
        source = node.args[0]
        return _value_source_refusal(source, user_inputs) if aten_op(source) == _SELECT or \
            source.op == "placeholder" else "the number is read from a tensor NNAPI computes"
    value = fake_value(node)
    if op == _SYM_SIZE:
        source = node.args[0]
        if source.op != "placeholder" or source.name not in user_inputs:
            return "a size of a computed tensor (the delegate reads the sizes of its inputs only)"
    elif op in _COMPARISONS:
        if not node.users or not all(aten_op(u) == _ASSERT for u in node.users) or assertion_values(node) is None:
            return "a comparison of sizes read other than by a runtime assertion"
        return None
    elif op not in _SIZE_ARITHMETIC:
        return f"{getattr(op, '__name__', op)} on sizes has no shape-program form"
    if not isinstance(value, torch.SymInt):
        return "not an integer size"
    return describe_unsupported([as_dim(value)])


def _value_source_refusal(node: Node, user_inputs: set[str]) -> Optional[str]:
    """Why the number ``node`` holds (a select_copy chain of a program input, or the input)
    cannot be read by the runtime, else None."""
    found = value_element(node)
    if found is None:
        return "reads a number at a position that is not static"
    source, _ = found
    if source.op != "placeholder" or source.name not in user_inputs:
        return "the number is read from a tensor NNAPI computes (the runtime reads program inputs only)"
    return None
