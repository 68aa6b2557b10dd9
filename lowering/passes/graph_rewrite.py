"""What the rewrite passes share: a node's bound arguments, new nodes with fake values, and
the replacement of rewritten nodes in an exported program (its output signature included)."""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, Callable

import torch.utils._pytree as pytree
from torch._guards import detect_fake_mode
from torch.export import ExportedProgram
from torch.export.graph_signature import TensorArgument
from torch.fx import Graph, Node
from torch.fx.node import map_arg
from torch.fx.operator_schemas import normalize_function


def bound_args(node: Node) -> dict[str, Any]:
    """The node's arguments by name (torch's names: ``self`` is ``input``), defaults filled in."""
    return normalize_function(node.target, node.args, node.kwargs, normalize_to_only_use_kwargs=True).kwargs


def fake(value: Any) -> Any:
    return value.meta["val"] if isinstance(value, Node) else value


def call(graph: Graph, origin: Node, target: Any, args: tuple, kwargs: dict | None = None) -> Node:
    """A new node computing ``target(*args, **kwargs)`` with ``origin``'s metadata and a fake value."""
    new = graph.call_function(target, args, kwargs)
    new.meta.update({k: v for k, v in origin.meta.items() if k != "val"})
    if target is operator.getitem:
        new.meta["val"] = fake(args[0])[args[1]]
    else:
        with detect_fake_mode(pytree.tree_leaves(origin.meta["val"])):
            new.meta["val"] = target(*map_arg(args, fake), **map_arg(kwargs or {}, fake))
    return new


def view_of(graph: Graph, origin: Node, x: Node, shape: Any) -> Node:
    """``x`` viewed to ``shape`` (a new node with ``origin``'s metadata), after a contiguous copy
    when its strides allow no view (a slice or select of the last dim has a stride of 2 or more),
    as ``reshape`` decomposes."""
    import torch

    if not fake(x).is_contiguous():
        x = call(graph, origin, torch.ops.aten.clone.default, (x,), {"memory_format": torch.contiguous_format})
    return call(graph, origin, torch.ops.aten.view.default, (x, shape))


def rename_outputs(program: ExportedProgram, renamed: dict[str, str]) -> None:
    """Points the output signature at the new names of replaced nodes (old name -> new name)."""
    specs = program.graph_signature.output_specs
    for i, spec in enumerate(specs):
        if isinstance(spec.arg, TensorArgument) and spec.arg.name in renamed:
            specs[i] = dataclasses.replace(spec, arg=TensorArgument(name=renamed[spec.arg.name]))


def rewrite_nodes(program: ExportedProgram, rewrite_for: Callable[[Node], Callable | None]) -> int:
    """Replaces each call node for which ``rewrite_for`` gives a rewrite that returns a node."""
    graph_module = program.graph_module
    graph = graph_module.graph
    renamed: dict[str, str] = {}
    for node in list(graph.nodes):
        rewrite = rewrite_for(node) if node.op == "call_function" else None
        if rewrite is None:
            continue
        with graph.inserting_before(node):
            replacement = rewrite(graph, node)
        if replacement is None:
            continue
        node.replace_all_uses_with(replacement)
        renamed[node.name] = replacement.name
        graph.erase_node(node)
    if not renamed:
        return 0
    rename_outputs(program, renamed)
    graph.lint()
    graph_module.recompile()
    return len(renamed)
