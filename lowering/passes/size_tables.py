"""Index tables computed from dynamic sizes alone, tabulated once at the sizes' upper bounds and
sliced to the run's sizes.

With a dynamic sequence length L, DeBERTa-v2's log-bucketed relative positions are computed from
``arange(L)`` at run time: ``sign``, ``abs``, ``log``, ``ceil`` and conversions between float and
int64, most of which NNAPI has no integer form of, so they formed CPU islands before its
gathers. Yet element ``[i, j]`` of such a table depends on ``i`` and ``j`` only, not on L: the
table for any L is the top-left corner of the table for the largest L. A computation is
*prefix-consistent* when that holds: ``arange`` (from a static start, by a static step), ``full``
of a static value, elementwise ops whose numbers are static, views adding or removing size-1
dims, (un)squeeze, permute, expand, slices from a static start; never a size used as a value
(``x / L``), a reduction, or a view that merges dims.

Such a computation, read as an index (by ``index.Tensor``, ``index_select``, ``gather``), is
evaluated once at the upper bounds of its sizes' symbols (exported ``Dim`` ranges) into a
constant, and replaced by that constant sliced along each dynamic dim to its size: per dim, a
GATHER of the constant at ``arange(size)`` inside NNAPI (GATHER takes integer tables; the arange
is a SLICE of a constant, its length from the shape program). Only a
dim whose size grows with its one symbol (``a * L + b``, ``a > 0``) is sliced, and only tables of
at most ``MAX_TABLE_ELEMENTS`` elements are made (the constant is stored in the .pte).
"""

from __future__ import annotations

import math
from typing import Any

import sympy
import torch
from torch._guards import detect_fake_mode
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, InputSpec, TensorArgument
from torch.fx import Graph, Node
from torch.fx.node import map_arg

from .graph_rewrite import call, fake
from .size_arithmetic import _NotExpressible, _SizeBuilder, _symbol_sources

aten = torch.ops.aten

MAX_TABLE_ELEMENTS = 1 << 20

_ELEMENTWISE = {
    aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar, aten.mul.Tensor, aten.mul.Scalar,
    aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode, aten.neg.default, aten.abs.default, aten.sign.default,
    aten.lt.Scalar, aten.lt.Tensor, aten.le.Scalar, aten.le.Tensor, aten.gt.Scalar, aten.gt.Tensor, aten.ge.Scalar,
    aten.ge.Tensor, aten.eq.Scalar, aten.eq.Tensor, aten.ne.Scalar, aten.ne.Tensor, aten.where.self,
    aten.clamp.default, aten.clamp.Tensor, aten.log.default, aten.exp.default, aten.ceil.default, aten.floor.default,
    aten.round.default, aten.sqrt.default, aten.reciprocal.default, aten._to_copy.default, aten.type_as.default,
    aten.__and__.Tensor, aten.__or__.Tensor, aten.bitwise_and.Tensor, aten.bitwise_or.Tensor,
    aten.bitwise_not.default, aten.logical_and.default, aten.logical_or.default, aten.logical_not.default,
    aten.pow.Tensor_Scalar, aten.minimum.default, aten.maximum.default, aten.remainder.Scalar,
    aten.floor_divide.default, aten.masked_fill.Scalar,
}
_MOVES = {aten.unsqueeze.default, aten.squeeze.dims, aten.squeeze.dim, aten.squeeze.default, aten.clone.default,
          aten.alias.default, aten.detach.default, aten.lift_fresh_copy.default, aten.contiguous.default,
          aten.permute.default, aten.expand.default}
_CREATIONS = {aten.arange.default, aten.arange.start, aten.arange.start_step, aten.full.default,
              aten.ones.default, aten.zeros.default}
# Ops reading a table as an index: (op, position of the index argument).
_INDEX_READERS = {aten.index.Tensor: 1, aten.index_select.default: 2, aten.gather.default: 2,
                  aten.embedding.default: 1}


def _is_size(value: Any) -> bool:
    return isinstance(value, Node) and isinstance(fake(value), torch.SymInt)


def _is_symbolic_tensor(node: Node) -> bool:
    value = node.meta.get("val")
    return isinstance(value, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in value.shape)


def _without_ones(shape: Any) -> list[str]:
    return [str(d) for d in shape if not (isinstance(d, int) and d == 1)]


class _Tables:
    """Which nodes are prefix-consistent computations from sizes and constants."""

    def __init__(self, program: ExportedProgram) -> None:
        sig = program.graph_signature
        self.program = program
        self.constants = {**sig.inputs_to_parameters, **sig.inputs_to_buffers,
                          **sig.inputs_to_lifted_tensor_constants}
        self.consistent: set[Node] = set()

    def constant_value(self, node: Node) -> torch.Tensor | None:
        target = self.constants.get(node.name)
        if target is None:
            return None
        value = self.program.state_dict.get(target)
        return value if value is not None else self.program.constants.get(target)

    def visit(self, node: Node) -> None:
        if node.op == "placeholder" and node.name in self.constants:
            self.consistent.add(node)
        elif node.op == "call_function" and isinstance(node.meta.get("val"), torch.Tensor) and self._rule(node):
            self.consistent.add(node)

    def _rule(self, node: Node) -> bool:
        """Whether ``node`` is prefix-consistent given its inputs."""
        target, args = node.target, node.args
        tensors = [a for a in node.all_input_nodes if not _is_size(a)]
        if not all(t in self.consistent for t in tensors):
            return False
        if target in _CREATIONS:
            if target is aten.arange.start_step and (_is_size(args[0]) or _is_size(args[2])):
                return False
            if target is aten.arange.start and _is_size(args[0]):
                return False
            return target is not aten.full.default or not _is_size(args[1])
        if not tensors:
            return False
        if target in _ELEMENTWISE:
            return not any(_is_size(a) for a in (*args, *node.kwargs.values()))
        if target in _MOVES:
            return True
        if target is aten.slice.Tensor:
            start = args[2] if len(args) > 2 else None
            step = args[4] if len(args) > 4 else 1
            return (start is None or isinstance(start, int) and start >= 0) and isinstance(step, int)
        if target in (aten.view.default, aten.reshape.default, aten._unsafe_view.default):
            return _without_ones(fake(args[0]).shape) == _without_ones(fake(node).shape)
        return False


def _bounds(value: torch.Tensor) -> dict[sympy.Symbol, int] | None:
    """The upper bound of each symbol of ``value``'s sizes, None if one is unbounded or a size
    does not grow with its one symbol."""
    bounds: dict[sympy.Symbol, int] = {}
    for size in value.shape:
        if not isinstance(size, torch.SymInt):
            continue
        expr = size.node.expr
        if len(expr.free_symbols) != 1:
            return None
        (symbol,) = expr.free_symbols
        a, b = expr.coeff(symbol), expr.subs(symbol, 0)
        if not (a.is_Integer and int(a) > 0 and b.is_Integer and sympy.expand(a * symbol + b - expr) == 0):
            return None
        upper = size.node.shape_env.var_to_range[symbol].upper
        if not upper.is_Integer:
            return None
        bounds[symbol] = int(upper)
    return bounds


def _evaluate(node: Node, tables: _Tables, bounds: dict, memo: dict) -> Any:
    """``node``'s value with every size at its bound."""
    if node in memo:
        return memo[node]
    value = fake(node)
    if isinstance(value, torch.SymInt):
        result = int(value.node.expr.subs(bounds))
    elif node.op == "placeholder":
        result = tables.constant_value(node)
        if result is None:
            raise KeyError(node.name)
    else:
        args = map_arg(node.args, lambda n: _evaluate(n, tables, bounds, memo))
        kwargs = map_arg(node.kwargs, lambda n: _evaluate(n, tables, bounds, memo))
        with torch.no_grad():
            result = node.target(*args, **kwargs)
    memo[node] = result
    return result


def _add_constant(program: ExportedProgram, name: str, value: torch.Tensor, like: Node) -> Node:
    """A new lifted-constant placeholder holding ``value`` (before the first placeholder)."""
    graph = program.graph
    first = next(n for n in graph.nodes if n.op == "placeholder")
    with graph.inserting_before(first):
        node = graph.placeholder(name)
    with detect_fake_mode([fake(like)]) as fake_mode:
        node.meta["val"] = fake_mode.from_tensor(value, static_shapes=True)
    program.constants[name] = value
    program.graph_signature.input_specs.insert(
        0, InputSpec(kind=InputKind.CONSTANT_TENSOR, arg=TensorArgument(name=name), target=name))
    return node


def _tabulate(program: ExportedProgram, node: Node, tables: _Tables, builder: _SizeBuilder, name: str) -> bool:
    """Replaces ``node`` by its table at the sizes' bounds, sliced to the run's sizes."""
    value = fake(node)
    bounds = _bounds(value)
    if not bounds:
        return False
    shape_at_bounds = [int(d.node.expr.subs(bounds)) if isinstance(d, torch.SymInt) else d for d in value.shape]
    if math.prod(shape_at_bounds) > MAX_TABLE_ELEMENTS:
        return False
    try:
        table = _evaluate(node, tables, bounds, {})
    except (KeyError, RuntimeError, TypeError):
        return False
    if not isinstance(table, torch.Tensor) or list(table.shape) != shape_at_bounds:
        return False
    graph = program.graph
    first = next(n for n in graph.nodes if n.op != "placeholder")
    ends = {}
    builder.created.clear()
    with graph.inserting_before(first):
        try:
            for d, size in enumerate(value.shape):
                if isinstance(size, torch.SymInt):
                    ends[d], _ = builder.build(size.node.expr)
        except _NotExpressible:
            builder.discard(builder.created)
            return False
    sliced = _add_constant(program, name, table.contiguous(), node)
    with graph.inserting_before(node):
        for d, end in ends.items():
            # The first ``end`` rows along d, gathered: NNAPI's GATHER takes an integer table, and the
            # run's ``arange(end)`` is one SLICE of a constant (lowering/builders/arange.py).
            rows = call(graph, node, aten.arange.start_step, (0, end, 1), {"dtype": torch.int64})
            sliced = call(graph, node, aten.index.Tensor, (sliced, [None] * d + [rows]))
    for d, size in enumerate(value.shape):
        if isinstance(size, torch.SymInt) and fake(sliced).shape[d].node.expr != size.node.expr:
            sliced.meta["val"] = value  # the same sizes, in the expressions downstream reads
            break
    node.replace_all_uses_with(sliced)
    return True


def tabulate_size_computations(program: ExportedProgram) -> int:
    """Replaces, in place, every prefix-consistent computation from dynamic sizes that is read
    as an index by its table at the sizes' bounds, sliced; returns how many were replaced."""
    graph = program.graph
    tables = _Tables(program)
    for node in graph.nodes:
        tables.visit(node)
    boundary = [n for n in tables.consistent if n.op == "call_function" and _is_symbolic_tensor(n) and any(
        u.target in _INDEX_READERS and _reads_as_index(u, n) for u in n.users)]
    if not boundary:
        return 0
    shape_env = next(d for d in fake(boundary[0]).shape if isinstance(d, torch.SymInt)).node.shape_env
    builder = _SizeBuilder(graph, _symbol_sources(program), shape_env)
    taken = {n.name for n in graph.nodes}
    names = (f"_size_table_{i}" for i in range(len(taken) + len(boundary)) if f"_size_table_{i}" not in taken)
    done = sum(_tabulate(program, n, tables, builder, next(names)) for n in boundary)
    if done:
        for node in reversed(list(graph.nodes)):  # the computations the tables replaced
            if node.op == "call_function" and node in tables.consistent and not node.users:
                graph.erase_node(node)
        graph.lint()
        program.graph_module.recompile()
    return done


def _reads_as_index(reader: Node, node: Node) -> bool:
    arg = reader.args[_INDEX_READERS[reader.target]] if len(reader.args) > _INDEX_READERS[reader.target] else None
    return arg is node or (isinstance(arg, (list, tuple)) and node in arg)


