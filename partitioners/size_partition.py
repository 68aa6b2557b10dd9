"""Size nodes inside a partition: the ones it computes itself, and the ones left to ExecuTorch.

``NnapiOperatorSupport`` takes a size node (``sym_size``, SymInt arithmetic, ``.item()`` of a
program input, a comparison and its ``_assert_scalar``; lowering/size_nodes.py) when a delegate
could compute it from its inputs. Whether one does depends on the partition it lands in: a
delegate returns tensors only, so a size node whose value something outside the partition also
reads (the CPU, another partition) must run on the CPU, and so must the size nodes it reads,
which the delegate then receives as integer arguments (as every size did before delegates
computed their own). A partition of size nodes alone has nothing for NNAPI to run.
"""

from __future__ import annotations

from typing import Callable

from torch.fx import Node

from executorch_nnapi.lowering.size_nodes import is_size_node

NEEDED_OUTSIDE = ("a size also read outside its NNAPI partition (by {user}), so ExecuTorch computes it on the CPU "
                  "and hands it to the delegate")
SIZES_ONLY = "a partition of size computations only: nothing for NNAPI to run, ExecuTorch computes them"


def without_sizes_needed_outside(nodes: set[Node], refuse: Callable[[Node, str], None]) -> set[Node]:
    """``nodes`` (one partition) minus the size nodes whose value is read outside it and the size
    nodes those read; ``refuse(node, reason)`` records each node left out."""
    nodes = set(nodes)
    while True:
        leaving = next(((n, u) for n in nodes if is_size_node(n) for u in n.users if u not in nodes), None)
        if leaving is None:
            break
        node, user = leaving
        dropped = _size_ancestors(node, nodes)
        for n in dropped:
            refuse(n, NEEDED_OUTSIDE.format(user=user.name if n is node else node.name))
        nodes -= dropped
    if nodes and all(is_size_node(n) for n in nodes):
        for n in nodes:
            refuse(n, SIZES_ONLY)
        return set()
    return nodes


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
