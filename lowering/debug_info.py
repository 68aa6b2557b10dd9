"""Per NNAPI operation, the FX nodes it came from: the delegate's debug handle map (ETRecord,
Inspector) and what the runtime needs to log the operation's output as an intermediate
(docs/debugging.md)."""

from __future__ import annotations

import dataclasses
import operator
from typing import Callable, Sequence

import torch
from torch.fx import Node

from executorch.exir.backend.utils import DelegateMappingBuilder

from .graph import NnapiGraph


@dataclasses.dataclass(frozen=True)
class OperationDebugInfo:
    """What the numerics debugger knows about one NNAPI operation.

    ``handles``: the ``debug_handle`` of every FX node the operation was emitted for (all the
    nodes of a unit: a convolution fused with its batch norm and activation maps to all three),
    ascending, except that ``value_node``'s comes last.
    ``value_node``: the FX node whose value the operation's output 0 is (the last of those
    nodes holding it), or None when the output is a step inside the lowering (a layout
    TRANSPOSE, the first half of a decomposition); ``value_order``: that output's dim order
    (NNAPI dim i is the value's dim ``value_order[i]``).
    """

    handles: tuple[int, ...]
    value_node: str | None = None
    value_order: tuple[int, ...] = ()


def operation_debug_info(graph: NnapiGraph, resolve: Callable[[Node], Node],
                         nodes: Sequence[Node]) -> list[OperationDebugInfo]:
    """One OperationDebugInfo per operation of ``graph``; ``resolve`` maps a node to the node
    whose value it shares (a fused activation to its producer); ``nodes`` in program order."""
    position = {n: i for i, n in enumerate(nodes)}
    infos = []
    for op in graph.operations:
        sources = sorted((n for n in op.sources if isinstance(n, Node)), key=lambda n: position.get(n, -1))
        value = _value_node(graph, resolve, sources, op.outputs[0]) if op.outputs else None
        handles = sorted({h for n in sources if isinstance(h := n.meta.get("debug_handle"), int)})
        order: tuple[int, ...] = ()
        if value is not None:
            node, order = value
            if isinstance(node.meta.get("debug_handle"), int):
                # The value node's handle goes last: the debugger compares with that node.
                handles.remove(node.meta["debug_handle"])
                handles.append(node.meta["debug_handle"])
            else:
                value, order = None, ()
        infos.append(OperationDebugInfo(tuple(handles), value[0].name if value else None, order))
    return infos


def _value_node(graph: NnapiGraph, resolve: Callable[[Node], Node], sources: list[Node],
                operand: int) -> tuple[Node, tuple[int, ...]] | None:
    """The last of ``sources`` (or of their getitem users: the value of a max pool with
    indices) whose value ``operand`` is, with the operand's dim order."""
    for source in reversed(sources):
        items = [u for u in source.users if u.target is operator.getitem]
        for node in (*reversed(items), source):
            match = [v for v in graph.values_of(resolve(node)) if v.operand == operand]
            if match and match[0].merged is None and isinstance(node.meta.get("val"), torch.Tensor):
                return node, tuple(match[0].dim_order)
    return None


def delegate_debug_map(infos: Sequence[OperationDebugInfo]) -> dict[int, tuple[int, ...]]:
    """The delegate's debug handle map for ExecuTorch: delegate debug id (the NNAPI operation
    index, which the runtime logs events under) -> the debug handles of the operation's FX nodes."""
    builder = DelegateMappingBuilder(generated_identifiers=False)
    for index, info in enumerate(infos):
        if info.handles:
            builder.insert_delegate_mapping_entry(handles=list(info.handles), identifier=index)
    return builder.get_delegate_mapping()
