"""Which mutated buffers a partition takes over as delegate state.

A buffer the program mutates (a language model's KV cache) is, by default, program state that
ExecuTorch owns: the delegate reads it as an input, returns its new value as an output, and
ExecuTorch copies that back into the buffer after each call. When the partition that reads it
also computes its new value, ExecuTorch can hand the buffer to the delegate instead (the
placeholder tagged with the partition's tag, as ExecuTorch's ``tag_mutated_buffer`` does for
its backends): the buffer and its write-back leave the program, and the runtime keeps the
value in NNAPI memory across calls (docs/language_models.md).

This module decides it more strictly than ``tag_mutated_buffer``, which tags a buffer by its
readers alone: a buffer is taken only if every reader of the buffer, the node computing its new
value and every reader of that value are in one partition, since ExecuTorch cannot give a value
the delegate consumed to the CPU or to another partition.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import OutputKind
from torch.fx import Node

TAG = "delegation_tag"


def tag_mutated_buffers(program: ExportedProgram) -> list[str]:
    """Tags each mutated buffer of ``program`` that one partition reads and updates with that
    partition's tag; returns the names of the buffers tagged."""
    signature = program.graph_signature
    nodes = {n.name: n for n in program.graph.nodes}
    updates = {spec.target: nodes.get(spec.arg.name) for spec in signature.output_specs
               if spec.kind == OutputKind.BUFFER_MUTATION}
    tagged = []
    for name, target in signature.inputs_to_buffers.items():
        placeholder, update = nodes.get(name), updates.get(target)
        if placeholder is None or update is None or not isinstance(placeholder.meta.get("val"), torch.Tensor):
            continue
        tag = _single_tag([*placeholder.users, update, *(u for u in update.users if u.op != "output")])
        if tag is not None and _read_once(update, signature):
            placeholder.meta[TAG] = tag
            tagged.append(target)
    return tagged


def _single_tag(nodes: list[Node]) -> str | None:
    """The partition tag all ``nodes`` share, or None."""
    tags = {n.meta.get(TAG) for n in nodes}
    return tags.pop() if len(tags) == 1 and None not in tags else None


def _read_once(update: Node, signature) -> bool:
    """Whether ``update`` is the new value of one buffer and no program output otherwise
    (ExecuTorch cannot hand a value the delegate keeps to the program's outputs)."""
    return sum(spec.arg.name == update.name for spec in signature.output_specs) == 1
