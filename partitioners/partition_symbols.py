"""Whether a partition's inputs let the delegate compute every symbolic size it needs.

The shape program (lowering/shape_program.py) computes each symbol (``s0`` for a
``Dim("h")``) from the sizes of the delegate's inputs and from its integer arguments (sizes
the CPU computed, e.g. for a view): exactly from ``s0`` or ``2 * s0 + 1``, and as the least
value that fits from a monotone size such as ``s0 // 2`` (a partition after a CPU op that
follows a stride-2 op). A partition needing a symbol none of its inputs involves in such a
form cannot be lowered; the partitioner leaves it on the CPU with that reason instead of
letting lowering fail. (The partitioner cannot add a ``sym_size`` argument itself:
ExecuTorch requires the partitioner to leave the graph unchanged.)
"""

from __future__ import annotations

from typing import Iterable

import torch
from torch.fx import Node

from executorch_nnapi.lowering.shape_program import as_dim, free_symbols, recoverable_symbols
from executorch_nnapi.lowering.size_nodes import is_size_node, read_symbol


def _values(node: Node) -> list:
    val = node.meta.get("val")
    return list(val) if isinstance(val, (tuple, list)) else [val]


def _sizes(node: Node) -> list:
    """The sizes of ``node``'s value(s): a tensor's dims, or a SymInt itself."""
    sizes = []
    for v in _values(node):
        if isinstance(v, torch.Tensor):
            sizes += [as_dim(d) for d in v.shape]
        elif isinstance(v, torch.SymInt):
            sizes.append(as_dim(v))
    return sizes


def revealed_symbols(nodes: set[Node]) -> set[str]:
    """The symbols the partition ``nodes`` can compute: from its inputs' sizes (and integer
    arguments), and the numbers it reads from an input tensor itself (``.item()``)."""
    inputs = {i for n in nodes for i in n.all_input_nodes if i not in nodes}
    revealed = recoverable_symbols([size for i in inputs for size in _sizes(i)])
    return revealed | {read_symbol(n) for n in nodes if read_symbol(n) is not None}


def partition_symbol_refusal(nodes: Iterable[Node]) -> str | None:
    """None if the inputs of the partition ``nodes`` reveal every symbol its tensors' sizes
    need, else why the partition cannot be delegated."""
    nodes = set(nodes)
    inputs = {i for n in nodes for i in n.all_input_nodes if i not in nodes}
    needed: set[str] = set()
    for node in nodes | {i for i in inputs if isinstance(i.meta.get("val"), torch.Tensor)}:
        for v in _values(node):
            if isinstance(v, torch.Tensor):
                for d in v.shape:
                    needed |= free_symbols(as_dim(d))
    revealed = revealed_symbols(nodes)
    missing = sorted(needed - revealed)
    if not missing:
        return None
    return (f"its partition needs the size {missing[0]}, which no input of the partition reveals "
            "(only the program's input does); the delegate could not compute its shapes")


def partition_input_refusal(nodes: Iterable[Node], user_inputs: set[str]) -> str | None:
    """None if the partition ``nodes`` reads a tensor computed at run time (a program input
    or another node's result), else why it cannot be delegated: an NNAPI model needs an
    input, and one built from sizes and constants alone (``zeros(x.shape[1], 3) + 1``
    where ``x`` feeds only the CPU) would have none."""
    nodes = set(nodes)
    for node in nodes:
        if is_size_node(node):
            continue  # what a size node reads is no NNAPI input (the shape program reads it)
        for i in node.all_input_nodes:
            if i in nodes or not isinstance(i.meta.get("val"), torch.Tensor):
                continue
            if i.op != "placeholder" or i.name in user_inputs:
                return None
    return ("its partition reads no tensor computed at run time (only sizes and constants), and an NNAPI "
            "model needs an input")


def partition_refusal(nodes: Iterable[Node], user_inputs: set[str]) -> str | None:
    """Why the delegate could not run the partition ``nodes`` (a size it cannot compute, or
    no run-time input), else None; the partitioner asks this of every proposed partition."""
    nodes = set(nodes)
    return partition_symbol_refusal(nodes) or partition_input_refusal(nodes, user_inputs)
