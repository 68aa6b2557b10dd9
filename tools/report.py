"""Delegation report: what went to NNAPI, what stayed on the CPU and why."""

from __future__ import annotations

import collections
import dataclasses
import operator
from typing import Any, Iterable

import torch

from executorch_nnapi.lowering.builders.quantized_op import quantization_of
from executorch_nnapi.lowering.node_units import ChannelShuffleUnit, QuantizedOpUnit
from executorch_nnapi.lowering.node_utils import aten_op, is_dequantize, is_quantize, op_name, source_location
from executorch_nnapi.lowering.program_analysis import analyze_program
from executorch_nnapi.lowering.serialization import read_blob


@dataclasses.dataclass
class PartitionInfo:
    index: int
    aten_ops: dict[str, int]
    nnapi_operations: dict[str, int]
    min_feature_level: int
    dynamic_symbols: list[str]
    # Precision ("8-bit", "float", "edge", "conversion", "weight", "other"; BlobSummary.operation_precisions)
    # -> NNAPI operation -> count.
    precisions: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    # In a quantized partition: ATen op -> (nodes, why) of the ops computed in float between a
    # DEQUANTIZE and a QUANTIZE inside it (a float island: NNAPI has no 8-bit form of the op).
    float_islands: dict[str, tuple[int, str]] = dataclasses.field(default_factory=dict)
    # Per control-flow body delegated with its IF / WHILE (a branch, a loop's condition or body):
    # its name, its ATen ops and the NNAPI operations of its referenced model.
    bodies: list[tuple[str, dict[str, int], dict[str, int]]] = dataclasses.field(default_factory=list)

    @property
    def num_nodes(self) -> int:
        return sum(self.aten_ops.values())

    @property
    def num_transposes(self) -> int:
        return self.nnapi_operations.get("TRANSPOSE", 0)

    @property
    def is_quantized(self) -> bool:
        """Whether any operation of the partition reads or writes 8-bit tensors."""
        return any(p in self.precisions for p in ("8-bit", "edge", "conversion"))

    def operations_in(self, precision: str) -> dict[str, int]:
        return self.precisions.get(precision, {})

    def format_operations(self) -> list[str]:
        """The NNAPI operations; for a quantized partition split into 8-bit and float ones,
        with the QUANTIZE / DEQUANTIZE at its edges and between its operations."""
        weights = self.operations_in("weight")
        weight_line = [f"    8-bit weights: {_counts(weights)} of int8 constants (weight-only int8)"] if weights else []
        if not self.is_quantized:
            computing = {k: v - weights.get(k, 0) for k, v in self.nnapi_operations.items() if v > weights.get(k, 0)}
            return ["    nnapi: " + _counts(computing), *weight_line]
        lines = [f"    nnapi 8-bit: {_counts(self.operations_in('8-bit')) or '-'}",
                 f"    nnapi float: {_counts(self.operations_in('float')) or '-'}"]
        if self.operations_in("other"):
            lines.append(f"    nnapi other (no float or 8-bit tensor): {_counts(self.operations_in('other'))}")
        edge, inner = self.operations_in("edge"), self.operations_in("conversion")
        at_edges = [f"{op} x{edge[op]} at the {where}" for op, where in (("QUANTIZE", "inputs"),
                                                                          ("DEQUANTIZE", "outputs")) if op in edge]
        text = ", ".join(at_edges) or "none at the edges (8-bit inputs and outputs)"
        if inner:
            text += f"; between 8-bit and float operations inside: {_counts(inner)}"
        lines.append(f"    conversions: {text}")
        lines.extend(f"    float inside: {op} x{count} -- {why}" for op, (count, why) in sorted(self.float_islands.items()))
        return lines + weight_line

    def format_bodies(self) -> list[str]:
        """One line per control-flow body: what it holds in ATen ops and in NNAPI operations."""
        return [f"    {name}: aten {_counts(aten) or '-'} -> nnapi {_counts(nnapi) or '-'}"
                for name, aten, nnapi in self.bodies]


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
    quantization: str = ""
    """How the model was quantized (e.g. "uint8 activations, calibrated on 32 .pt files in
    calib/"), "" for a float model."""
    warnings: list[str] = dataclasses.field(default_factory=list)
    """Printed first and last, e.g. that the calibration inputs were random."""

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
        banner = [f"WARNING: {w}" for w in self.warnings]
        lines = banner + [
            f"NNAPI delegation: {len(self.partitions)} subgraph(s), {self.num_delegated_nodes} node(s) delegated, "
            f"{len(self.cpu_nodes)} compute node(s) on the CPU",
        ]
        if self.quantization:
            lines.append(f"  quantized: {self.quantization}")
        for p in self.partitions:
            sym = f", dynamic sizes {', '.join(p.dynamic_symbols)}" if p.dynamic_symbols else ""
            lines.append(f"  subgraph {p.index}: {p.num_nodes} ATen node(s) -> "
                         f"{sum(p.nnapi_operations.values())} NNAPI operation(s) "
                         f"({p.num_transposes} TRANSPOSE), needs feature level {p.min_feature_level}{sym}")
            lines.append("    aten: " + ", ".join(f"{k} x{v}" for k, v in sorted(p.aten_ops.items())))
            lines.extend(p.format_operations())
            lines.extend(p.format_bodies())
        if self.cpu_nodes:
            lines.append("  on the CPU (portable kernels):")
            for n in self.cpu_nodes:
                where = f"  [{n.location}]" if n.location else ""
                lines.append(f"    {n.name}: {n.op} -- {n.reason}{where}")
        return "\n".join(lines + banner)


def _counts(ops: dict[str, int]) -> str:
    return ", ".join(f"{k} x{v}" for k, v in sorted(ops.items()))


NO_8BIT_LOWERING = "no 8-bit lowering of it (NNAPI has none, or we do not take it yet)"
BETWEEN_FLOAT_OPS = "between float operations (the quantized model computes it in float)"


def _float_islands(graph: torch.fx.Graph) -> dict[str, tuple[int, str]]:
    """The compute nodes of a quantized partition that are in no 8-bit unit (dq -> op -> q) and
    compute in float, and why each stayed float (its builder's 8-bit declaration: none, or a FLOAT
    one with its reason)."""
    units = analyze_program(graph, is_known=lambda node: False)
    in_8bit_unit = {n for u in units.units for n in u.nodes
                    if isinstance(u, QuantizedOpUnit) or (isinstance(u, ChannelShuffleUnit) and u.quantized_chain)}
    found: dict[str, tuple[int, str]] = {}
    for n in graph.nodes:
        val = n.meta.get("val")
        val = val[0] if isinstance(val, (tuple, list)) and val else val  # native_layer_norm's (out, mean, rstd)
        if (n.op != "call_function" or n.target is operator.getitem or is_quantize(n) or is_dequantize(n)
                or n in in_8bit_unit or not isinstance(val, torch.Tensor) or val.dtype != torch.float32):
            continue
        declared = quantization_of(aten_op(n))
        if declared is None:
            why = NO_8BIT_LOWERING
        elif declared.why:
            why = declared.why
        else:  # an op NNAPI runs in 8 bits, left float by the quantizer between float ones
            why = BETWEEN_FLOAT_OPS
        name = op_name(n.target)
        found[name] = (found.get(name, (0, why))[0] + 1, why)
    return found


# The bodies of each control-flow op, as the lowering emits them (referenced models in this order).
_BODIES = {torch.ops.higher_order.cond: ("IF", ((1, "true branch"), (2, "false branch"))),
           torch.ops.higher_order.while_loop: ("WHILE", ((0, "condition"), (1, "body")))}


def _bodies(gm: torch.fx.GraphModule) -> list[tuple[str, dict[str, int]]]:
    """(name, ATen ops) of every control-flow body in ``gm``, nested ones after the body holding
    them (the order in which the lowering numbers referenced models)."""
    found = []
    for node in gm.graph.nodes:
        operation, bodies = _BODIES.get(aten_op(node), ("", ())) if node.op == "call_function" else ("", ())
        for position, what in bodies:
            body = getattr(gm, node.args[position].target)
            ops = collections.Counter(op_name(n.target) for n in body.graph.nodes
                                      if n.op == "call_function" and n.target is not operator.getitem)
            found.append((f"{operation} {node.name}: {what} ({node.args[position].target})",
                          dict(ops)))
            found.extend(_bodies(body))
    return found


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
            precisions: dict[str, dict[str, int]] = {}
            for op, precision in zip(blob.operation_types, blob.operation_precisions):
                per_op = precisions.setdefault(precision, {})
                per_op[op] = per_op.get(op, 0) + 1
            info = PartitionInfo(len(partitions), dict(ops), dict(collections.Counter(blob.operation_types)),
                                 blob.min_feature_level, [s[0] for s in blob.symbols], precisions)
            if info.is_quantized:
                info.float_islands = _float_islands(lowered.original_module.graph_module.graph)
            info.bodies = [(name, aten, dict(collections.Counter(nnapi))) for (name, aten), nnapi in
                           zip(_bodies(lowered.original_module.graph_module), blob.subgraph_operation_types)]
            partitions.append(info)
        elif node.target is operator.getitem:
            continue
        else:
            reason = reasons.get(node.name) or node.meta.get("nnapi_refusal") or "not taken by the NNAPI partitioner"
            cpu_nodes.append(CpuNode(node.name, op_name(node.target), source_location(node), reason))
    return DelegationReport(partitions, cpu_nodes)
