"""One call from an ``ExportedProgram`` to a .pte with NNAPI delegates, optionally with a CPU method.

A phone without a usable NNAPI (API < 27, no ``libneuralnetworks.so``, no device that can run
the model) cannot run the ``forward`` method's NNAPI delegates. ``cpu_method="xnnpack"`` adds a
second method, ``forward_cpu``, lowered from the same exported program with ExecuTorch's
``XnnpackPartitioner`` into the same .pte (the weights of the two methods are stored separately:
NNAPI keeps them permuted and batch-norm-folded, XNNPACK packs its own).
:func:`executorch_nnapi.runtime.load_method` picks the method the device can run.

    from executorch_nnapi.tools.export import to_nnapi_program

    lowered = to_nnapi_program(torch.export.export(model, (x,)), cpu_method="xnnpack")
    print(lowered.report.format())
    open("model.pte", "wb").write(lowered.buffer)
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import operator
from typing import Iterator, Optional

import torch
from torch.export import ExportedProgram

from executorch.exir import ExecutorchProgramManager, to_edge_transform_and_lower

from executorch_nnapi.partitioners import NnapiPartitioner

from .program_graph import ProgramGraph, program_graph
from .progress import Progress
from .report import DelegationReport, delegation_report

__all__ = ["CPU_METHOD_BACKENDS", "CPU_METHOD_NAME", "NNAPI_METHOD_NAME", "LoweredProgram", "to_nnapi_program"]

NNAPI_METHOD_NAME = "forward"
CPU_METHOD_NAME = "forward_cpu"
# How the CPU method is lowered: "xnnpack" delegates what XNNPACK takes (the rest runs on the
# portable kernels), "portable" delegates nothing (for a runtime built without XNNPACK).
CPU_METHOD_BACKENDS = ("xnnpack", "portable")


@dataclasses.dataclass
class LoweredProgram:
    """The result of :func:`to_nnapi_program`."""

    program: ExecutorchProgramManager
    """The ExecuTorch program; ``program.write_to_file(f)`` writes the .pte."""
    report: DelegationReport
    """What of the ``forward`` method went to NNAPI and why the rest did not."""
    partitioner: NnapiPartitioner
    """The partitioner that lowered ``forward`` (its ``decisions`` and ``feature_level``)."""
    cpu_method: Optional[str]
    """The backend of the ``forward_cpu`` method (one of :data:`CPU_METHOD_BACKENDS`), or None."""
    graph: Optional[ProgramGraph] = None
    """The ``forward`` method's graph for the delegation picture (tools/graph_page.py), taken
    before ``to_executorch`` rewrote it."""

    @property
    def buffer(self) -> bytes:
        """The .pte file's bytes."""
        return self.program.buffer

    @property
    def method_names(self) -> list[str]:
        return [NNAPI_METHOD_NAME] + ([CPU_METHOD_NAME] if self.cpu_method else [])

    def cpu_method_summary(self) -> str:
        """One line on the ``forward_cpu`` method: its delegates and the nodes left to the
        portable kernels ("" without a CPU method)."""
        if not self.cpu_method:
            return ""
        graph = self.program.exported_program(CPU_METHOD_NAME).graph_module
        delegates, portable = collections.Counter(), 0
        for node in graph.graph.nodes:
            if node.op != "call_function" or node.target is operator.getitem:
                continue
            if node.target is torch.ops.higher_order.executorch_call_delegate:
                delegates[getattr(graph, node.args[0].target).backend_id] += 1
            else:
                portable += 1
        lowered = ", ".join(f"{n} {backend} subgraph(s)" for backend, n in sorted(delegates.items()))
        return (f"method {CPU_METHOD_NAME} ({self.cpu_method}): {lowered or 'no delegate'}, "
                f"{portable} node(s) on the portable kernels")


def _cpu_partitioners(cpu_method: str) -> list:
    if cpu_method == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        return [XnnpackPartitioner()]
    if cpu_method == "portable":
        return []
    raise ValueError(f"unknown cpu_method {cpu_method!r}; expected one of {', '.join(CPU_METHOD_BACKENDS)}")


@contextlib.contextmanager
def _lower_stage_after_partition(partitioner: NnapiPartitioner, progress: Progress) -> Iterator[None]:
    """Moves ``progress`` from "partition" to "lower" when the partitioner has chosen its nodes
    (to_edge_transform_and_lower partitions, then lowers, in one call)."""
    partition = partitioner.partition

    def partition_then_lower(exported_program):
        result = partition(exported_program)
        progress.start("lower")
        return result

    partitioner.partition = partition_then_lower
    try:
        yield
    finally:
        del partitioner.partition  # the class's method again


def to_nnapi_program(
    exported_program: ExportedProgram,
    *,
    feature_level: int = 30,
    cpu_method: Optional[str] = None,
    partitioner: Optional[NnapiPartitioner] = None,
    progress: Optional[Progress] = None,
    generate_etrecord: bool = False,
) -> LoweredProgram:
    """Lowers ``exported_program`` into one .pte: ``forward`` with NNAPI delegates and, if asked,
    ``forward_cpu`` for devices without NNAPI.

    Args:
        exported_program: from ``torch.export.export`` (dynamic ``Dim``\\ s allowed; both
            methods accept the same input shapes).
        feature_level: the lowest NNAPI feature level (Android API level) the ``forward``
            method must run on; ignored when ``partitioner`` is given.
        cpu_method: ``"xnnpack"`` or ``"portable"`` to add the ``forward_cpu`` method lowered
            that way; None for a .pte with ``forward`` only.
        partitioner: an ``NnapiPartitioner`` configured by the caller (e.g. with
            ``max_cached_shapes``); default ``NnapiPartitioner(feature_level)``.
        progress: shows the stages partition, lower and serialize (to_executorch); the
            serialize stage is left running for the caller to end after writing the file.
        generate_etrecord: keep an ETRecord (``program.get_etrecord()``) for ExecuTorch's
            Inspector and ``executorch-nnapi debug`` (docs/debugging.md).

    Raises:
        ValueError: ``cpu_method`` is not one of :data:`CPU_METHOD_BACKENDS`.
    """
    partitioner = partitioner or NnapiPartitioner(feature_level=feature_level)
    programs = {NNAPI_METHOD_NAME: exported_program}
    partitioners = {NNAPI_METHOD_NAME: [partitioner]}
    if cpu_method is not None:
        programs[CPU_METHOD_NAME] = exported_program
        partitioners[CPU_METHOD_NAME] = _cpu_partitioners(cpu_method)
    progress = progress or Progress(enabled=False)
    try:
        progress.start("partition")
        with _lower_stage_after_partition(partitioner, progress):
            edge = to_edge_transform_and_lower(programs, partitioner=partitioners,
                                               generate_etrecord=generate_etrecord)
        report = delegation_report(edge.exported_program(NNAPI_METHOD_NAME), partitioner.decisions)
        graph = program_graph(edge.exported_program(NNAPI_METHOD_NAME), report)
        progress.start("serialize")
        return LoweredProgram(edge.to_executorch(), report, partitioner, cpu_method, graph)
    except BaseException:
        progress.finish(failed=True)
        raise
