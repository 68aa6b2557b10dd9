"""The delegation picture of a .pte from its ETRecord, for ``executorch-nnapi debug --html``.

The ETRecord keeps the edge program as it was BEFORE partitioning (``to_edge_transform_and_lower``
records it before lowering), and the .pte keeps only the delegates' blobs: neither says alone
which ATen node went to which NNAPI model, nor why a CPU node was refused. Both are recovered by
partitioning and lowering that edge program again with the partitioner the .pte was made with:
each NNAPI delegate in the .pte stores its partitioner's options and dynamic ranges as compile
specs (``NnapiPartitioner.from_compile_specs``). Lowering is deterministic, so this yields the
program the .pte was serialized from; the NNAPI operations of every partition are checked
against the .pte's blobs, and a mismatch (an ETRecord of another export, or another version of
this package) is refused rather than drawn wrongly.
"""

from __future__ import annotations

import copy
import operator

import torch
from torch.export import ExportedProgram

from executorch.exir import EdgeCompileConfig
from executorch.exir.backend.backend_api import to_backend
from executorch.exir.verification.verifier import EXIREdgeDialectVerifier

from executorch_nnapi.partitioners import NnapiPartitioner

from .program_graph import ProgramGraph, program_graph
from .pte_delegates import NnapiDelegate, nnapi_delegates
from .report import delegation_report

__all__ = ["etrecord_program_graph"]


def etrecord_program_graph(pte: bytes, edge_program: ExportedProgram) -> ProgramGraph:
    """The picture's data (partitions, refusal reasons, NNAPI operations) of the .pte ``pte``.

    Args:
        pte: the .pte's bytes.
        edge_program: the ETRecord's edge program of ``forward``
            (``numerics_debugger.reference_program(parse_etrecord(path))``); not modified.

    Raises:
        ValueError: the edge program does not lower to the .pte's NNAPI models.
    """
    delegates = nnapi_delegates(pte)
    partitioner = NnapiPartitioner.from_compile_specs(delegates[0].compile_specs if delegates else [])
    program = copy.deepcopy(edge_program)
    _as_exported(program)
    # Read back, the program's verifier no longer knows the ops to_edge kept whole for NNAPI
    # (aten.linear, ...) and to_backend would refuse them; the export validated the program.
    program._verifiers = [EXIREdgeDialectVerifier(EdgeCompileConfig(_check_ir_validity=False), class_only=True)]
    lowered = to_backend(program, partitioner)
    graph = program_graph(lowered, delegation_report(lowered, partitioner.decisions))
    _check_same_operations(graph, delegates)
    return graph


def _as_exported(program: ExportedProgram) -> None:
    """Undoes what reading the ETRecord back changed in the graph, where the partitioner and the
    builders would see it: the getitems of unused outputs it adds (one per output of a
    multi-output node, e.g. a batch norm's saved mean: taken for users of those outputs, they
    would make the node refused as the export did not), and the arguments it passes by keyword
    (linear's bias, hardtanh's bounds; the builders read them by position, as torch.export
    gives them)."""
    graph = program.graph_module.graph
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        if node.target is operator.getitem and not node.users:
            graph.erase_node(node)
        elif node.kwargs:
            _keywords_to_positions(node)
    program.graph_module.recompile()


def _keywords_to_positions(node: torch.fx.Node) -> None:
    """Moves the keyword arguments of ``node`` that its op's schema takes by position into
    ``args`` (a skipped one gets its default); leaves the node as it is if that is not possible."""
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return
    positional = [a for a in schema.arguments if not a.kwarg_only]
    kwargs = dict(node.kwargs)
    last = max((i for i, a in enumerate(positional) if a.name in kwargs), default=-1)
    args = list(node.args)
    for argument in positional[len(args):last + 1]:
        if argument.name in kwargs:
            args.append(kwargs.pop(argument.name))
        elif argument.has_default_value():
            args.append(argument.default_value)
        else:
            return
    node.args, node.kwargs = tuple(args), kwargs


def _check_same_operations(graph: ProgramGraph, delegates: list[NnapiDelegate]) -> None:
    """The lowered partitions have the .pte's NNAPI operations, partition by partition."""
    lowered = [[o.op for o in graph.operations if o.partition == p.index] for p in graph.partitions]
    in_pte = [list(d.blob.operation_types) for d in delegates]
    if lowered == in_pte:
        return
    if len(lowered) != len(in_pte):
        what = f"{len(lowered)} NNAPI partition(s), the .pte has {len(in_pte)}"
    else:
        k = next(i for i, (a, b) in enumerate(zip(lowered, in_pte)) if a != b)
        what = (f"partition {k} lowers to {len(lowered[k])} NNAPI operation(s) ({_head(lowered[k])}), the .pte's "
                f"has {len(in_pte[k])} ({_head(in_pte[k])})")
    raise ValueError(f"the ETRecord's program does not lower to the .pte's NNAPI models: {what}; was the "
                     "ETRecord written with this .pte (export --etrecord), by this version of executorch-nnapi?")


def _head(ops: list[str], count: int = 4) -> str:
    return ", ".join(ops[:count]) + (", ..." if len(ops) > count else "")
