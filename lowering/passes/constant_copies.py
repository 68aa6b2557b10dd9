"""Each node that reads a constant computation gets a copy of it of its own.

A constant computation is a node computed from parameters, buffers and literals only (a causal
mask built from ``arange``, position ids, a rotary table): lowering folds it into a constant
operand wherever a partition holds it. CapabilityBasedPartitioner cannot put one node in two
places, so a constant computation read both by the CPU (or by another partition) and by a
partition stays outside that partition, and reaches it as a run-time input: lowering can then no
longer fold the nodes that read it, must emit their operations, which NNAPI may not have
(``aten.index.Tensor`` in Hugging Face's mask functions, a SUB at API 27), and a weight computed
that way is no longer constant.

The copies are made per *frontier reader*, a node that is not itself a constant computation (or
the program's output): each owns the whole constant computation it reads (every constant node it
depends on through constant nodes), with that computation's inner sharing kept. The nodes added
are at most the sum of the readers' constant cones. (Copying per reader at every shared node
instead, the first form of this pass, copied a DAG as a tree: BEiT's relative position index, a
chain of ``select_scatter`` whose every step is read twice, grew from 20 nodes to 20,000, and its
lowering took minutes.)

Copies cost nothing at run time inside NNAPI (they are folded; large folded values are stored once
in the .pte, by content) and little on the CPU (constant computations are small: they have static
sizes, and the copying stops at ``MAX_COPIED_NODES``).
"""

from __future__ import annotations

from torch.export import ExportedProgram
from torch.fx import Node

from ..constant_folding import foldable_nodes

# A bound on the nodes added, against a program with very many readers of large constant
# computations; the readers past it read the computations they share, as without this pass.
MAX_COPIED_NODES = 20_000


def _constant_placeholders(program: ExportedProgram) -> frozenset[str]:
    sig = program.graph_signature
    return frozenset(sig.inputs_to_parameters) | frozenset(sig.inputs_to_buffers) | frozenset(
        sig.inputs_to_lifted_tensor_constants)


def _cone(reader: Node, foldable: set[Node]) -> list[Node]:
    """The constant nodes ``reader`` depends on through constant nodes, inputs before users."""
    seen: set[Node] = set()
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(i, False) for i in reader.all_input_nodes if i in foldable]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        stack.extend((i, False) for i in node.all_input_nodes if i in foldable and i not in seen)
    return order


def copy_shared_constant_computations(program: ExportedProgram) -> int:
    """Gives every frontier reader of a constant computation a copy of its own (in place); returns
    the number of nodes added. The program's output keeps the originals it reads (the signature
    names them); a reader takes the nodes of its cone no earlier reader took, and copies the rest."""
    graph = program.graph_module.graph
    constants = _constant_placeholders(program)

    def is_constant(node: Node) -> bool:
        return node.op == "get_attr" or (node.op == "placeholder" and node.name in constants)

    foldable = foldable_nodes(graph, is_constant)
    frontier = [n for n in graph.nodes if n not in foldable and any(i in foldable for i in n.all_input_nodes)]
    frontier.sort(key=lambda n: n.op != "output")  # the output first: it keeps the originals
    owner: dict[Node, Node] = {}
    added = 0
    for reader in frontier:
        cone = _cone(reader, foldable)
        taken = [n for n in cone if n in owner]
        if added + len(taken) > MAX_COPIED_NODES:
            continue  # it reads shared computations, as without this pass
        own: dict[Node, Node] = {}  # node of the cone -> the node this reader reads for it
        for node in cone:  # inputs before users: every input is resolved when a node is
            if node in owner:
                with graph.inserting_after(node):
                    own[node] = graph.node_copy(node, lambda i: own.get(i, i))
                foldable.add(own[node])
                added += 1
            else:
                owner[node] = reader
                own[node] = node
                for i in node.all_input_nodes:  # an input an earlier reader took was copied
                    if own.get(i, i) is not i:
                        node.replace_input_with(i, own[i])
        for i in reader.all_input_nodes:
            if own.get(i, i) is not i:
                reader.replace_input_with(i, own[i])
    if added:
        graph.lint()
        program.graph_module.recompile()
    return added
