"""Sizes read from computed tensors, re-expressed over the program's inputs.

A model that reads a computed tensor's size (Swin: ``_, pad_H, pad_W, _ = x.shape``
after padding) exports ``sym_size(padded, 1)``. On the CPU that node must read the
padded tensor, so a partition computing it has to hand it out, and every NNAPI node
using the size (a view of the windows) lands in a second partition: the graph splits
at every such read. The size is a known function of the input sizes
(``8k + (7 - 8k % 7) % 7``), so :func:`sizes_from_inputs` rewrites each such
``sym_size`` into integer arithmetic on ``sym_size`` of a program input (ExecuTorch's
prim ops: add, mul, floordiv, mod...), which reads no computed tensor.
"""

from __future__ import annotations

import operator
from typing import Any

import sympy
import torch
from torch.export import ExportedProgram
from torch.fx import Graph, Node
from torch.utils._sympy import functions as torch_sympy

aten = torch.ops.aten

_MODS = (torch_sympy.PythonMod, torch_sympy.Mod, sympy.Mod)


class _NotExpressible(Exception):
    pass


def _symbol_sources(program: ExportedProgram) -> dict[sympy.Symbol, tuple[Node, int, int, int]]:
    """symbol -> (user input placeholder, dim, a, b) with that dim's size ``a * symbol + b``."""
    user_inputs = set(program.graph_signature.user_inputs)
    sources: dict = {}
    for node in program.graph.nodes:
        if node.op != "placeholder" or node.name not in user_inputs:
            continue
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            continue
        for dim, size in enumerate(val.shape):
            expr = size.node.expr if isinstance(size, torch.SymInt) else None
            if expr is None or len(expr.free_symbols) != 1:
                continue
            (s,) = expr.free_symbols
            a, b = expr.coeff(s), expr.subs(s, 0)
            if a.is_Integer and int(a) > 0 and b.is_Integer and sympy.expand(a * s + b - expr) == 0:
                sources.setdefault(s, (node, dim, int(a), int(b)))
    return sources




class _SizeBuilder:
    """Emits integer arithmetic computing sympy size expressions from the inputs' sizes,
    in the operations torch itself records for such sizes (``a - b`` as sub, not
    ``a + -1 * b``), so that a re-trace of the program derives the same expressions."""

    def __init__(self, graph: Graph, sources: dict, shape_env: Any) -> None:
        self.graph, self.sources, self.shape_env = graph, sources, shape_env
        self.symbols: dict = {}
        self.created: list[Node] = []  # the nodes of the expression being built

    def _emit(self, target: Any, args: tuple, val: Any) -> tuple[Node, Any]:
        node = self.graph.call_function(target, args)
        node.meta["val"] = val
        self.created.append(node)
        return node, val

    def build(self, expr: sympy.Expr) -> tuple[Any, Any]:
        """(node or int, its value) computing ``expr``; raises _NotExpressible."""
        if expr.is_Integer:
            return int(expr), int(expr)
        if expr.is_Symbol:
            return self._symbol(expr)
        if isinstance(expr, torch_sympy.CeilDiv):  # ceil(a / b) = (a + b - 1) // b, b > 0
            a, b = expr.args
            if not b.is_positive:
                raise _NotExpressible(str(expr))
            return self.build(torch_sympy.FloorDiv(a + b - 1, b))
        if isinstance(expr, (torch_sympy.FloorDiv, *_MODS)):
            return self._division(expr)
        if isinstance(expr, sympy.Add):
            return self._sum(expr)
        if isinstance(expr, sympy.Mul):
            node, val = self.build(expr.args[0])
            for arg in expr.args[1:]:
                other, other_val = self.build(arg)
                node, val = self._emit(operator.mul, (node, other), val * other_val)
            return node, val
        raise _NotExpressible(str(expr))

    def discard(self, nodes: list[Node]) -> None:
        """Erases ``nodes`` (an expression that could not be completed) and forgets them."""
        gone = set(nodes)
        self.symbols = {s: v for s, v in self.symbols.items() if v[0] not in gone}
        for node in reversed(nodes):
            self.graph.erase_node(node)

    def _symbol(self, symbol: sympy.Symbol) -> tuple[Any, Any]:
        if symbol not in self.symbols:
            if symbol not in self.sources:
                raise _NotExpressible(str(symbol))
            placeholder, dim, a, b = self.sources[symbol]
            node, val = self._emit(aten.sym_size.int, (placeholder, dim), placeholder.meta["val"].shape[dim])
            if b:
                node, val = self._emit(operator.sub, (node, b), val - b)
            if a != 1:
                node, val = self._emit(operator.floordiv, (node, a), val // a)
            self.symbols[symbol] = (node, val)
        return self.symbols[symbol]

    def _sum(self, expr: sympy.Add) -> tuple[Any, Any]:
        """Positive terms added, then negative ones subtracted (``7 - x % 7``)."""
        positive = [t for t in expr.args if not t.could_extract_minus_sign()]
        negative = [-t for t in expr.args if t.could_extract_minus_sign()]
        node, val = self.build(positive[0]) if positive else (0, 0)
        for term in positive[1:]:
            other, other_val = self.build(term)
            node, val = self._emit(operator.add, (node, other), val + other_val)
        for term in negative:
            other, other_val = self.build(term)
            node, val = self._emit(operator.sub, (node, other), val - other_val)
        return node, val

    def _division(self, expr: sympy.Expr) -> tuple[Any, Any]:
        """``a // b`` or ``a % b`` (Python's: floor, result of b's sign), b a positive constant.

        ExecuTorch's integer prim ops divide as C++ does (toward zero), which agrees
        with Python for ``a >= 0``; a modulo whose dividend's lower bound (from the
        exported ranges) may be negative is computed as ``((a % b) + b) % b``."""
        a, b = expr.args
        if not (b.is_Integer and int(b) > 0):
            raise _NotExpressible(str(expr))
        b = int(b)
        a_node, a_val = self.build(a)
        nonnegative = self.shape_env.bound_sympy(a).lower >= 0
        if isinstance(expr, torch_sympy.FloorDiv):
            if not nonnegative:
                raise _NotExpressible(str(expr))
            return self._emit(operator.floordiv, (a_node, b), a_val // b)
        node, val = self._emit(operator.mod, (a_node, b), a_val % b)
        if nonnegative:
            return node, val
        node, val = self._emit(operator.add, (node, b), val + b)
        return self._emit(operator.mod, (node, b), val % b)


def sizes_from_inputs(program: ExportedProgram) -> int:
    """Rewrites every ``sym_size`` of a computed tensor whose size is a function of the
    program's input sizes (in +, *, //, % and ceil-div) into arithmetic on ``sym_size`` of
    the inputs; returns how many were rewritten. The program computes the same values."""
    graph = program.graph
    sources = _symbol_sources(program)
    if not sources:
        return 0
    any_size = next(iter(sources.values()))
    builder = _SizeBuilder(graph, sources, any_size[0].meta["val"].shape[any_size[1]].node.shape_env)
    first = next((n for n in graph.nodes if n.op != "placeholder"), None)
    rewritten = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten.sym_size.int or node.args[0].op == "placeholder":
            continue
        val = node.meta.get("val")
        if not isinstance(val, torch.SymInt):
            continue
        builder.created.clear()
        with graph.inserting_before(first):  # sizes of inputs only: valid at the program's start
            try:
                replacement, _ = builder.build(val.node.expr)
            except _NotExpressible:
                builder.discard(builder.created)
                continue
        if isinstance(replacement, Node):
            # The same value; keep torch's own expression for it, which the fake values
            # downstream are written in (its value equals the computed one).
            replacement.meta.update(node.meta)
            node.replace_all_uses_with(replacement)
        else:  # a size the guards fixed
            for user in list(node.users):
                user.args = torch.fx.node.map_arg(user.args, lambda a: replacement if a is node else a)
                user.kwargs = torch.fx.node.map_arg(user.kwargs, lambda a: replacement if a is node else a)
        graph.erase_node(node)
        rewritten += 1
    if rewritten:
        program.graph_module.recompile()
    return rewritten
