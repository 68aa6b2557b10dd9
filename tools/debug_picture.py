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

from torch.export import ExportedProgram

from executorch.exir import EdgeProgramManager

from executorch_nnapi.partitioners import NnapiPartitioner

from .numerics_debugger import NnapiDelegate, nnapi_delegates
from .program_graph import ProgramGraph, program_graph
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
    lowered = EdgeProgramManager({"forward": copy.deepcopy(edge_program)}).to_backend(partitioner)
    graph = program_graph(lowered, delegation_report(lowered, partitioner.decisions))
    _check_same_operations(graph, delegates)
    return graph


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
