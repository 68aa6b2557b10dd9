"""Delegation report: what went to NNAPI, what stayed on the CPU and why."""

from __future__ import annotations

import collections
import dataclasses
import operator
from typing import Any, Iterable

import torch

from .node_utils import op_name, source_location
from .serialization import read_blob


@dataclasses.dataclass
class PartitionInfo:
    index: int
    aten_ops: dict[str, int]
    nnapi_operations: dict[str, int]
    min_feature_level: int
    dynamic_symbols: list[str]

    @property
    def num_nodes(self) -> int:
        return sum(self.aten_ops.values())

    @property
    def num_transposes(self) -> int:
        return self.nnapi_operations.get("TRANSPOSE", 0)


@dataclasses.dataclass
class CpuNode:
    name: str
    op: str
    location: str
    reason: str


@dataclasses.dataclass
class DelegationReport:
    """Per partition its ops, per CPU-side node its op, source location and refusal reason."""

    partitions: list[PartitionInfo]
    cpu_nodes: list[CpuNode]

    @property
    def num_delegated_nodes(self) -> int:
        return sum(p.num_nodes for p in self.partitions)

    @property
    def num_nnapi_operations(self) -> int:
        return sum(sum(p.nnapi_operations.values()) for p in self.partitions)

    @property
    def num_transposes(self) -> int:
        return sum(p.num_transposes for p in self.partitions)

    def format(self) -> str:
        lines = [
            f"NNAPI delegation: {len(self.partitions)} subgraph(s), {self.num_delegated_nodes} node(s) delegated, "
            f"{len(self.cpu_nodes)} compute node(s) on the CPU",
        ]
        for p in self.partitions:
            sym = f", dynamic sizes {', '.join(p.dynamic_symbols)}" if p.dynamic_symbols else ""
            lines.append(f"  subgraph {p.index}: {p.num_nodes} ATen node(s) -> "
                         f"{sum(p.nnapi_operations.values())} NNAPI operation(s) "
                         f"({p.num_transposes} TRANSPOSE), needs feature level {p.min_feature_level}{sym}")
            lines.append("    aten: " + ", ".join(f"{k} x{v}" for k, v in sorted(p.aten_ops.items())))
            lines.append("    nnapi: " + ", ".join(f"{k} x{v}" for k, v in sorted(p.nnapi_operations.items())))
        if self.cpu_nodes:
            lines.append("  on the CPU (portable kernels):")
            for n in self.cpu_nodes:
                where = f"  [{n.location}]" if n.location else ""
                lines.append(f"    {n.name}: {n.op} -- {n.reason}{where}")
        return "\n".join(lines)


def _graph_module(program: Any) -> torch.fx.GraphModule:
    if hasattr(program, "exported_program"):
        program = program.exported_program()
    return program.graph_module


def delegation_report(program: Any, decisions: Iterable[Any] = ()) -> DelegationReport:
    """Builds the report of a lowered program.

    Args:
        program: the EdgeProgramManager returned by to_edge_transform_and_lower
            (or its ExportedProgram).
        decisions: ``NnapiPartitioner.decisions`` of that lowering; reasons for
            CPU nodes come from there (else from node metadata).
    """
    reasons = {d.node: d.reason for d in decisions if not d.supported}
    gm = _graph_module(program)
    partitions, cpu_nodes = [], []
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is torch.ops.higher_order.executorch_call_delegate:
            lowered = getattr(gm, node.args[0].target)
            if lowered.backend_id != "NnapiBackend":
                continue
            ops = collections.Counter(
                op_name(n.target) for n in lowered.original_module.graph_module.graph.nodes
                if n.op == "call_function"
            )
            blob = read_blob(lowered.processed_bytes)
            partitions.append(PartitionInfo(len(partitions), dict(ops), dict(collections.Counter(blob.operation_types)),
                                            blob.min_feature_level, [s[0] for s in blob.symbols]))
        elif node.target is operator.getitem:
            continue
        else:
            reason = reasons.get(node.name) or node.meta.get("nnapi_refusal") or "not taken by the NNAPI partitioner"
            cpu_nodes.append(CpuNode(node.name, op_name(node.target), source_location(node), reason))
    return DelegationReport(partitions, cpu_nodes)
