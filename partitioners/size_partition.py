"""Size nodes inside a partition: the ones it computes itself, and the ones left to ExecuTorch.

``NnapiOperatorSupport`` takes a size node (``sym_size``, SymInt arithmetic, ``.item()`` of a
program input, a comparison and its ``_assert_scalar``; lowering/size_nodes.py) when a delegate
could compute it from its inputs. Whether one does depends on the partition it lands in: a
delegate returns tensors only, so a size node whose value something outside the partition also
reads (the CPU, another partition) must run on the CPU, and so must the size nodes it reads,
which the delegate then receives as integer arguments (as every size did before delegates
computed their own). So must a size node that needs a symbol the partition cannot compute (an
assertion on the length of a tensor only the CPU reads). A partition of size nodes alone has
nothing for NNAPI to run.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch
from torch.fx import Node

from executorch_nnapi.lowering.node_utils import aten_op, fake_value
from executorch_nnapi.lowering.size_nodes import is_size_node, read_symbol

from .partition_symbols import revealed_symbols

NEEDED_OUTSIDE = ("a size also read outside its NNAPI partition (by {user}), so ExecuTorch computes it on the CPU "
                  "and hands it to the delegate")
UNKNOWN_SYMBOL = ("needs the size {symbol}, which its NNAPI partition cannot compute, so ExecuTorch computes it on "
                  "the CPU")
SIZES_ONLY = "a partition of size computations only: nothing for NNAPI to run, ExecuTorch computes them"


def without_sizes_left_to_executorch(nodes: set[Node], refuse: Callable[[Node, str], None]) -> set[Node]:
    """``nodes`` (one partition) minus the size nodes it leaves to ExecuTorch (read outside it, or
    needing a size it cannot compute) and the size nodes those read; ``refuse(node, reason)``
    records each node left out."""
    nodes = set(nodes)
    while True:
        leaving = _leaving(nodes)
        if leaving is None:
            break
        node, reason = leaving
        dropped = _size_ancestors(node, nodes)
        for n in dropped:
            refuse(n, reason if n is node else NEEDED_OUTSIDE.format(user=node.name))
        nodes -= dropped
    if nodes and all(is_size_node(n) for n in nodes):
        for n in nodes:
            refuse(n, SIZES_ONLY)
        return set()
    return nodes


def _leaving(nodes: set[Node]) -> Optional[tuple[Node, str]]:
    """A size node of ``nodes`` that must run on the CPU, and why; None when none must."""
    for n in nodes:
        if is_size_node(n):
            user = next((u for u in n.users if u not in nodes), None)
            if user is not None:
                return n, NEEDED_OUTSIDE.format(user=user.name)
    revealed = revealed_symbols(nodes)
    for n in nodes:
        if is_size_node(n):
            missing = sorted(_symbols_needed(n) - revealed)
            if missing:
                return n, UNKNOWN_SYMBOL.format(symbol=missing[0])
    return None


def _symbols_needed(node: Node) -> set[str]:
    """The symbols a size node's value (or an assertion's condition) depends on."""
    if aten_op(node) == torch.ops.aten._assert_scalar.default:
        node = node.args[0]
    value = fake_value(node)
    if not isinstance(value, (torch.SymInt, torch.SymBool)):
        return set()
    return {str(s) for s in value.node.expr.free_symbols} - {read_symbol(node)}


def _size_ancestors(node: Node, nodes: set[Node]) -> set[Node]:
    """``node`` and the size nodes of ``nodes`` it reads, directly or not."""
    found: set[Node] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n in found:
            continue
        found.add(n)
        stack.extend(i for i in n.all_input_nodes if i in nodes and is_size_node(i))
    return found
