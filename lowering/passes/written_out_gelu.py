"""A GELU written out with erf, ``x * 0.5 * (1 + erf(x / √2))``, found so that it becomes one
``aten.gelu`` (builders/gelu.py's exact GELU, within 1e-7·max(1, |x|)).

NNAPI has no erf operation, and transformers' ``gelu_python`` (SEW-D, VideoPrism) and ESM's and
Evolla's ``gelu`` write GELU this way; left as it is, each erf is a CPU op between two
partitions. The match is on the algebra, not on one spelling: the erf's argument is x times
1/√2 (``x / sqrt(2)`` or ``x * 0.7071...``), the erf plus 1 (either side), and a product of that
with x and scalars whose product is 1/2 (``x * 0.5 * (...)``, ``0.5 * x * (...)``,
``x * (...) / 2``, ...), each step of the product read by the next alone. The result replaces
the product's last node; nodes of the written-out form that nothing else reads are removed.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch.fx import Graph, Node

from .graph_rewrite import call

aten = torch.ops.aten
_MUL = (aten.mul.Tensor, aten.mul.Scalar)
_DIV = (aten.div.Tensor, aten.div.Scalar)
_ADD = (aten.add.Tensor, aten.add.Scalar)
_ARITHMETIC = (*_MUL, *_DIV, *_ADD, aten.erf.default)
_TOLERANCE = 1e-6


def _close(value: float, target: float) -> bool:
    return abs(value - target) <= _TOLERANCE * abs(target)


def _scalar(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _scaled_by(node: Any) -> tuple[Node, float] | None:
    """(x, k) when ``node`` is x * k or x / (1/k) for a scalar k, else None."""
    if not isinstance(node, Node) or node.op != "call_function" or node.kwargs:
        return None
    if node.target in _MUL and len(node.args) == 2:
        a, b = node.args
        if isinstance(a, Node) and _scalar(b) is not None:
            return a, _scalar(b)
        if isinstance(b, Node) and _scalar(a) is not None:
            return b, _scalar(a)
    if node.target in _DIV and len(node.args) == 2 and isinstance(node.args[0], Node):
        divisor = _scalar(node.args[1])
        if divisor:
            return node.args[0], 1.0 / divisor
    return None


def _scale_of(node: Any, x: Node) -> float | None:
    """s when ``node`` is x times scalars (x itself: 1), each step read by the next alone."""
    scale = 1.0
    while node is not x:
        step = _scaled_by(node)
        if step is None or (node.users and len(node.users) != 1):
            return None
        node, factor = step
        scale *= factor
    return scale


def _erf_plus_one(erf: Node) -> tuple[Node, Node] | None:
    """(x, erf + 1) for an erf of x / √2 read by an add of 1, else None."""
    scaled = _scaled_by(erf.args[0]) if len(erf.args) == 1 else None
    if scaled is None or not _close(scaled[1], 1.0 / math.sqrt(2.0)) or len(erf.users) != 1:
        return None
    (add,) = erf.users
    if add.op != "call_function" or add.target not in _ADD or add.kwargs.get("alpha", 1) != 1 or len(add.args) != 2:
        return None
    other = add.args[1] if add.args[0] is erf else add.args[0]
    if _scalar(other) is None or not _close(_scalar(other), 1.0):
        return None
    return scaled[0], add


def find_written_out_gelus(graph: Graph) -> dict[Node, Node]:
    """The last node of each written-out GELU -> its x."""
    found: dict[Node, Node] = {}
    for erf in graph.find_nodes(op="call_function", target=aten.erf.default):
        matched = _erf_plus_one(erf)
        if matched is None:
            continue
        x, node = matched
        scale, has_x = 1.0, False
        while len(node.users) == 1:
            (user,) = node.users
            if user.op != "call_function" or user.kwargs:
                break
            step = _scaled_by(user)
            if step is not None and step[0] is node:
                scale *= step[1]
            elif user.target in _MUL and len(user.args) == 2 and not has_x:
                other = user.args[1] if user.args[0] is node else user.args[0]
                factor = _scale_of(other, x)
                if factor is None:
                    break
                scale, has_x = scale * factor, True
            else:
                break
            node = user
            if has_x and _close(scale, 0.5):
                found[node] = x
                break
    return found


def fold_written_out_gelus(graph: Graph) -> dict[str, str]:
    """Replaces each written-out GELU by ``aten.gelu``; returns old name -> new name of the
    replaced nodes (for the program's output signature)."""
    renamed: dict[str, str] = {}
    for last, x in find_written_out_gelus(graph).items():
        with graph.inserting_before(last):
            gelu = call(graph, last, aten.gelu.default, (x,))
        last.replace_all_uses_with(gelu)
        renamed[last.name] = gelu.name
        dead = [last]
        while dead:
            node = dead.pop()
            if node.users or node.op != "call_function" or node.target not in _ARITHMETIC:
                continue
            inputs = node.all_input_nodes
            graph.erase_node(node)
            dead.extend(inputs)
    return renamed


__all__ = ["find_written_out_gelus", "fold_written_out_gelus"]
