"""Keeps the nodes of each indivisible node unit (lowering/node_units.py: channel
shuffles, rank > 4 view chains, masked softmaxes) inside one partition."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from torch.fx import Node


def keep_groups_whole(partitions: Sequence[Any], groups: Iterable[Sequence[Node]],
                      is_known: Callable[[Any], bool]) -> None:
    """Moves every node of a group into the partition of the group's first node.

    CapabilityBasedPartitioner may put a group's later nodes with their users in
    a later partition (e.g. the v of a packed q, k, v split when CPU nodes sit
    between the attention scores and their product with v); a value NNAPI
    cannot hold (rank > 4, bool) would then cross a partition boundary. Each
    group node reads only group nodes, the first node's inputs and constants,
    so moving it back only makes later partitions read its result: no cycle
    appears. Constant operands move along when only moved nodes read them.
    """
    where = {n: p for p in partitions for n in p.nodes}

    def move(node: Node, home: Any) -> None:
        part = where.get(node)
        if part is home:
            return
        if part is not None:
            part.remove_node(node)
        home.add_node(node)
        where[node] = home
        for i in node.all_input_nodes:
            if i in where and is_known(i) and all(where.get(u) is home for u in i.users):
                move(i, home)

    for nodes in groups:
        if not nodes or any(n not in where for n in nodes):
            continue  # refused as a whole (or partly: then lowering does not emit it as a group)
        home = where[nodes[0]]
        if all(where[n] is home for n in nodes):
            continue
        for node in nodes:
            move(node, home)
