"""The graph of a lowered program as plain data, for pictures of the delegation report.

One node per ATen node of the program, in execution order: the nodes inside each NNAPI
partition (from the lowered module's original graph) with the NNAPI operations they emitted,
the nodes left on the CPU with the reason NNAPI refused them, and the program's inputs and
outputs. Edges cross the delegate boundaries (a delegate's arguments feed the partition's
inputs, its getitems read the partition's outputs), so the picture is of the whole model.
Parameters and constants are left out: they are not computed.

The partitions, their summaries and the refusal reasons come from
:func:`executorch_nnapi.tools.report.delegation_report`, so the picture and the printed report
cannot disagree. Build it from the edge program (``to_edge_transform_and_lower``'s result),
before ``to_executorch``, which rewrites the graph in place.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, Optional

import torch

from executorch_nnapi.lowering.node_utils import op_name, source_location
from executorch_nnapi.lowering.serialization import read_blob
from executorch_nnapi.lowering.shape_program import as_dim

from .report import DelegationReport, PartitionInfo, delegation_report

__all__ = ["GraphNode", "NnapiOperation", "ProgramGraph", "program_graph"]

NNAPI_BACKEND_ID = "NnapiBackend"


@dataclasses.dataclass
class NnapiOperation:
    """One operation of an NNAPI model (a partition's delegate blob)."""

    partition: int
    index: int
    """Its index in its NNAPI model (execution order)."""
    op: str
    """The NNAPI operation type, e.g. ``"CONV_2D"``."""
    precision: str
    """What it computes on: "8-bit", "float", "edge", "conversion", "weight" or "other"."""
    aten_node: str
    """The ATen node that emitted it (the blob's debug name; "" if none was recorded)."""


@dataclasses.dataclass
class GraphNode:
    """A node of the picture: an ATen node, a program input or a program output."""

    id: str
    """The FX node name (unique in the picture)."""
    kind: str
    """"input", "output", "nnapi" (inside a partition) or "cpu" (left to the CPU kernels)."""
    op: str
    """``aten.convolution.default`` style op name; the input's or output's name for those."""
    inputs: list[str]
    """Ids of the nodes whose values it reads."""
    shape: str = ""
    """Its output's shape (and dtype if not float32), e.g. ``[1, 8, 16, 16]``."""
    location: str = ""
    """The source line that made it (``File "m.py", line 12, in forward``), if recorded."""
    partition: Optional[int] = None
    reason: str = ""
    """For a CPU node: why NNAPI did not take it (from the delegation report)."""
    operations: list[int] = dataclasses.field(default_factory=list)
    """For a node in a partition: the indexes of the NNAPI operations it emitted."""


@dataclasses.dataclass
class ProgramGraph:
    """The whole program as a picture's data: see the module docstring."""

    nodes: list[GraphNode]
    operations: list[NnapiOperation]
    """Every NNAPI operation of every partition, partition by partition, in execution order."""
    report: DelegationReport
    _nodes_by_id: dict[str, GraphNode] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    _operations_by_key: dict[tuple[int, int], NnapiOperation] = dataclasses.field(default_factory=dict, repr=False,
                                                                                 compare=False)

    @property
    def partitions(self) -> list[PartitionInfo]:
        return self.report.partitions

    def node(self, node_id: str) -> GraphNode:
        """The node with that id (KeyError if none)."""
        if len(self._nodes_by_id) != len(self.nodes):
            self._nodes_by_id = {n.id: n for n in self.nodes}
        return self._nodes_by_id[node_id]

    def operation(self, partition: int, index: int) -> Optional[NnapiOperation]:
        """The NNAPI operation ``index`` of ``partition``'s model, or None if there is none."""
        if len(self._operations_by_key) != len(self.operations):
            self._operations_by_key = {(o.partition, o.index): o for o in self.operations}
        return self._operations_by_key.get((partition, index))


def _shape_of(node: torch.fx.Node) -> str:
    val = node.meta.get("val")
    if isinstance(val, (tuple, list)) and val and isinstance(val[0], torch.Tensor):
        val = val[0]  # a multi-output node (native_layer_norm's (out, mean, rstd)): its first output
    if not isinstance(val, torch.Tensor):
        return ""
    dtype = "" if val.dtype == torch.float32 else f" {str(val.dtype).replace('torch.', '')}"
    # as_dim: a dynamic size spelled one way however the program was read (x // 2, not floor(x/2)).
    return f"[{', '.join(str(as_dim(d)) for d in val.shape)}]{dtype}"


class _Builder:
    """Walks the top-level graph once; ``sources`` maps an FX value to the picture node that
    computes it (through getitems and delegate boundaries)."""

    def __init__(self, exported: Any, report: DelegationReport) -> None:
        self.exported = exported
        self.gm = exported.graph_module
        self.reasons = {n.name: n for n in report.cpu_nodes}
        self.nodes: list[GraphNode] = []
        self.operations: list[NnapiOperation] = []
        self.sources: dict[str, list[str]] = {}
        self.delegate_outputs: dict[str, list[list[str]]] = {}
        self.partition_count = 0
        self.taken: set[str] = set()

    def _inputs_of(self, node: torch.fx.Node, sources: dict[str, list[str]]) -> list[str]:
        found: list[str] = []
        for arg in node.all_input_nodes:
            for source in sources.get(arg.name, []):
                if source not in found:
                    found.append(source)
        return found

    def build(self) -> None:
        user_inputs = set(self.exported.graph_signature.user_inputs)
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                if node.name in user_inputs:
                    node_id = self._unique(node.name)
                    self.nodes.append(GraphNode(node_id, "input", node.name, [], _shape_of(node)))
                    self.sources[node.name] = [node_id]
            elif node.op == "output":
                self._add_outputs(node)
            elif node.op != "call_function":
                continue
            elif node.target is torch.ops.higher_order.executorch_call_delegate:
                self._add_delegate(node)
            elif node.target is operator.getitem:
                self._add_getitem(node)
            else:
                cpu = self.reasons.get(node.name)
                node_id = self._unique(node.name)
                self.nodes.append(GraphNode(
                    node_id, "cpu", op_name(node.target), self._inputs_of(node, self.sources), _shape_of(node),
                    source_location(node), reason=cpu.reason if cpu else ""))
                self.sources[node.name] = [node_id]

    def _add_getitem(self, node: torch.fx.Node) -> None:
        parent, index = node.args[0], node.args[1]
        if parent.name in self.delegate_outputs:
            self.sources[node.name] = self.delegate_outputs[parent.name][index]
        else:  # an item of a CPU node's tuple: the node itself
            self.sources[node.name] = self.sources.get(parent.name, [])

    def _add_outputs(self, node: torch.fx.Node) -> None:
        outputs = node.args[0] if isinstance(node.args[0], (tuple, list)) else [node.args[0]]
        for i, value in enumerate(outputs):
            if isinstance(value, torch.fx.Node):
                self.nodes.append(GraphNode(self._unique(f"output_{i}"), "output", f"output {i}", list(self.sources.get(value.name, [])),
                                            _shape_of(value)))

    def _add_delegate(self, node: torch.fx.Node) -> None:
        lowered = getattr(self.gm, node.args[0].target)
        if lowered.backend_id != NNAPI_BACKEND_ID:  # another backend's delegate: one opaque CPU-side node
            node_id = self._unique(node.name)
            self.nodes.append(GraphNode(node_id, "cpu", f"{lowered.backend_id} delegate",
                                        self._inputs_of(node, self.sources), reason=f"lowered by {lowered.backend_id}"))
            self.sources[node.name] = [node_id]
            self.delegate_outputs[node.name] = []
            return
        partition = self.partition_count
        self.partition_count += 1
        blob = read_blob(lowered.processed_bytes)
        emitted: dict[str, list[int]] = {}
        for index, (op, precision, name) in enumerate(zip(blob.operation_types, blob.operation_precisions,
                                                          blob.operation_debug_names)):
            self.operations.append(NnapiOperation(partition, index, op, precision, name))
            emitted.setdefault(name, []).append(index)
        inner = lowered.original_module
        inner_sources: dict[str, list[str]] = {}
        user_inputs = list(inner.graph_signature.user_inputs)
        for name, arg in zip(user_inputs, node.args[1:]):
            inner_sources[name] = list(self.sources.get(arg.name, [])) if isinstance(arg, torch.fx.Node) else []
        outputs: list[list[str]] = []
        for inner_node in inner.graph_module.graph.nodes:
            if inner_node.op == "output":
                values = inner_node.args[0] if isinstance(inner_node.args[0], (tuple, list)) else [inner_node.args[0]]
                outputs = [list(inner_sources.get(v.name, [])) if isinstance(v, torch.fx.Node) else [] for v in values]
            elif inner_node.op != "call_function":
                continue
            elif inner_node.target is operator.getitem:
                inner_sources[inner_node.name] = inner_sources.get(inner_node.args[0].name, [])
            else:
                node_id = self._unique(inner_node.name)
                self.nodes.append(GraphNode(
                    node_id, "nnapi", op_name(inner_node.target), self._inputs_of(inner_node, inner_sources),
                    _shape_of(inner_node), source_location(inner_node), partition,
                    operations=emitted.get(inner_node.name, [])))
                inner_sources[inner_node.name] = [node_id]
        self.delegate_outputs[node.name] = outputs
        self.sources[node.name] = [s for out in outputs for s in out]

    def _unique(self, name: str) -> str:
        candidate, k = name, 1
        while candidate in self.taken:
            candidate, k = f"{name}__{k}", k + 1
        self.taken.add(candidate)
        return candidate


def program_graph(program: Any, report: Optional[DelegationReport] = None) -> ProgramGraph:
    """The picture's data of a lowered program.

    Args:
        program: the EdgeProgramManager returned by ``to_edge_transform_and_lower`` (or its
            ExportedProgram), before ``to_executorch``.
        report: the delegation report of that program (its partitions and refusal reasons);
            computed with :func:`delegation_report` from the program's metadata if None.
    """
    exported = program.exported_program() if hasattr(program, "exported_program") else program
    report = report if report is not None else delegation_report(exported)
    builder = _Builder(exported, report)
    builder.build()
    return ProgramGraph(builder.nodes, builder.operations, report)
