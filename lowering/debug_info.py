"""Per NNAPI operation, the FX nodes it came from: the delegate's debug handle map (ETRecord,
Inspector) and what the runtime needs to log the operation's output as an intermediate
(docs/debugging.md)."""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

from torch.fx import Node

from executorch.exir.backend.utils import DelegateMappingBuilder

from .graph import NnapiGraph


@dataclasses.dataclass(frozen=True)
class OperationDebugInfo:
    """What the numerics debugger knows about one NNAPI operation.

    ``handles``: the ``debug_handle`` of every FX node the operation was emitted for (all the
    nodes of a unit: a convolution fused with its batch norm and activation maps to all three).
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
        handles = tuple(sorted({h for n in sources if isinstance(h := n.meta.get("debug_handle"), int)}))
        value_node, order = None, ()
        if op.outputs:
            for node in reversed(sources):
                match = [v for v in graph.values_of(resolve(node)) if v.operand == op.outputs[0]]
                if match and match[0].merged is None and "val" in node.meta:
                    value_node, order = node.name, tuple(match[0].dim_order)
                    break
        infos.append(OperationDebugInfo(handles, value_node, order))
    return infos


def delegate_debug_map(infos: Sequence[OperationDebugInfo]) -> dict[int, tuple[int, ...]]:
    """The delegate's debug handle map for ExecuTorch: delegate debug id (the NNAPI operation
    index, which the runtime logs events under) -> the debug handles of the operation's FX nodes."""
    builder = DelegateMappingBuilder(generated_identifiers=False)
    for index, info in enumerate(infos):
        if info.handles:
            builder.insert_delegate_mapping_entry(handles=list(info.handles), identifier=index)
    return builder.get_delegate_mapping()
