"""A constant computation read by several nodes gets one copy per reader.

A constant computation is a node computed from parameters, buffers and literals only (a causal
mask built from ``arange``, position ids, a rotary table): lowering folds it into a constant
operand wherever a partition holds it. CapabilityBasedPartitioner cannot put one node in two
places, so a constant computation read both by the CPU (or by another partition) and by a
partition stays outside that partition, and reaches it as a run-time input: lowering can then no
longer fold the nodes that read it, must emit their operations, which NNAPI may not have
(``aten.index.Tensor`` in Hugging Face's mask functions, a SUB at API 27), and a weight computed
that way is no longer constant. With one copy per reader, each copy goes where its reader goes.

Copies cost nothing at run time inside NNAPI (they are folded; large folded values are stored once
in the .pte, by content) and little on the CPU (constant computations are small: they have static
sizes, and the copying stops at ``MAX_COPIED_NODES``).
"""

from __future__ import annotations

from torch.export import ExportedProgram
from torch.fx import Node

from ..constant_folding import foldable_nodes

# A bound on the nodes added, against a pathological graph (a chain of shared constants doubling at
# every level); past it the rest stays shared, as without this pass.
MAX_COPIED_NODES = 20_000


def _constant_placeholders(program: ExportedProgram) -> frozenset[str]:
    sig = program.graph_signature
    return frozenset(sig.inputs_to_parameters) | frozenset(sig.inputs_to_buffers) | frozenset(
        sig.inputs_to_lifted_tensor_constants)


def copy_shared_constant_computations(program: ExportedProgram) -> int:
    """Gives every reader of a shared constant computation its own copy (in place); returns the
    number of nodes added. Readers are visited last node first, so a copy's own inputs are shared
    in turn and copied when their turn comes: each chain is copied whole."""
    graph = program.graph_module.graph
    constants = _constant_placeholders(program)

    def is_constant(node: Node) -> bool:
        return node.op == "get_attr" or (node.op == "placeholder" and node.name in constants)

    foldable = foldable_nodes(graph, is_constant)
    added = 0
    for node in reversed(list(graph.nodes)):
        if node not in foldable or len(node.users) < 2:
            continue
        # The program's output keeps the original (the signature names it); others get copies.
        readers = [u for u in node.users if u.op != "output"]
        for reader in readers[1:] if len(readers) == len(node.users) else readers:
            if added >= MAX_COPIED_NODES:
                break
            with graph.inserting_after(node):
                copy = graph.node_copy(node)
            reader.replace_input_with(node, copy)
            foldable.add(copy)
            added += 1
    if added:
        graph.lint()
        program.graph_module.recompile()
    return added
