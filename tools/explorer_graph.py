"""The delegation picture in Google's Model Explorer (``ai-edge-model-explorer``) graph JSON.

The same picture as :mod:`executorch_nnapi.tools.graph_page`: one Model Explorer node per ATen
node, the nodes of NNAPI subgraph k in a layer (namespace) ``nnapi_subgraph_k`` of that
partition's colour, the CPU nodes at the top level with their refusal reason, each node's NNAPI
operations and debug figures as attributes. The file is a Model Explorer graph collection
(``{"label": ..., "graphs": [...]}``, the fields of ``model_explorer.graph_builder``), which
Model Explorer opens as a ``.json`` model: ``model-explorer model_graph.json``, or its web
page's "Add model" button. Model Explorer itself is not needed to write it.

With ``executorch-nnapi debug`` rows, :func:`write_explorer_node_data` writes Model Explorer
"node data" (``model-explorer graph.json --node_data_paths=errors.json``): each node's error
figure as a value Model Explorer colours from green (smallest) to red (largest).
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any, Optional

from .debug_rows import FIGURES, DebugRows, format_figure, match_debug_rows
from .graph_page import CPU_BORDER, CPU_FILL, partition_colour
from .program_graph import GraphNode, ProgramGraph

__all__ = ["explorer_graph_collection", "explorer_node_data", "write_explorer_graph", "write_explorer_node_data"]


def _namespace(partition: Optional[int]) -> str:
    return "" if partition is None else f"nnapi_subgraph_{partition}"


def _attrs(node: GraphNode, graph: ProgramGraph, rows: dict) -> list[dict[str, str]]:
    attrs = [("op", node.op), ("fx_node", node.id)]
    if node.kind == "cpu":
        attrs += [("runs_on", "CPU (portable kernels)"), ("why_not_nnapi", node.reason or "not delegated")]
    elif node.partition is not None:
        attrs.append(("runs_on", f"NNAPI subgraph {node.partition}"))
    if node.location:
        attrs.append(("source", node.location))
    for index in node.operations:
        operation = graph.operation(node.partition, index)
        prefix = f"nnapi_op_{index}"
        attrs += [(prefix, f"{operation.op} ({operation.precision})")]
        row = rows.get((node.partition, index))
        if row is not None:
            attrs += [(f"{prefix}_{key}", format_figure(key, row[key])) for key, _ in FIGURES if key in row]
            if row.get("first_divergent"):
                attrs.append(("first_divergent", f"{operation.op} #{index}"))
    return [{"key": k, "value": v} for k, v in attrs]


def _node(node: GraphNode, graph: ProgramGraph, rows: dict) -> dict[str, Any]:
    divergent = any(rows.get((node.partition, i), {}).get("first_divergent") for i in node.operations)
    label = node.op[len("aten."):] if node.op.startswith("aten.") else node.op
    style = {"backgroundColor": CPU_FILL if node.kind == "cpu" else
             ("#ffffff" if node.partition is None else partition_colour(node.partition)),
             "borderColor": "#d50000" if divergent else (CPU_BORDER if node.kind == "cpu" else "#4a5a6a"),
             "hoveredBorderColor": "#ff6f00"}
    return {
        "id": node.id,
        "label": label,
        "namespace": _namespace(node.partition),
        "attrs": _attrs(node, graph, rows),
        "incomingEdges": [{"sourceNodeId": source, "sourceNodeOutputId": "0", "targetNodeInputId": str(k)}
                          for k, source in enumerate(node.inputs)],
        "outputsMetadata": [{"id": "0", "attrs": [{"key": "shape", "value": node.shape}]}] if node.shape else [],
        "style": style,
    }


def explorer_graph_collection(graph: ProgramGraph, debug_rows: Optional[DebugRows] = None,
                              label: str = "NNAPI delegation") -> dict[str, Any]:
    """The picture as a Model Explorer graph collection (a JSON-ready dict).

    Args:
        graph: the program's graph, from :func:`executorch_nnapi.tools.program_graph.program_graph`.
        debug_rows: ``executorch-nnapi debug`` rows (a list of dicts or the path of its ``--json``
            file), shown as attributes of the nodes whose NNAPI operations they describe.
        label: the collection's label, shown in Model Explorer's graph selector.
    """
    rows = match_debug_rows(graph, debug_rows)
    report = graph.report
    group_attrs = {"": {"summary": (f"{len(report.partitions)} NNAPI subgraph(s), {report.num_delegated_nodes} "
                                    f"node(s) delegated, {len(report.cpu_nodes)} compute node(s) on the CPU")}}
    configs = []
    for p in report.partitions:
        group_attrs[_namespace(p.index)] = {
            "nnapi_operations": ", ".join(f"{k} x{v}" for k, v in sorted(p.nnapi_operations.items())),
            "min_feature_level": str(p.min_feature_level),
            "precision": "8-bit" if p.is_quantized else "float",
            "dynamic_sizes": ", ".join(p.dynamic_symbols) or "-",
        }
        configs.append({"namespaceRegex": f"^{_namespace(p.index)}$", "backgroundColor": partition_colour(p.index),
                        "borderColor": "#7a8ca0"})
    return {"label": label, "graphs": [{
        "id": "forward",
        "nodes": [_node(n, graph, rows) for n in graph.nodes],
        "groupNodeAttributes": group_attrs,
        "groupNodeConfigs": configs,
    }]}


def write_explorer_graph(path: "str | os.PathLike[str]", graph: ProgramGraph, debug_rows: Optional[DebugRows] = None,
                         label: str = "NNAPI delegation") -> None:
    """Writes :func:`explorer_graph_collection` to ``path`` as JSON."""
    collection = explorer_graph_collection(graph, debug_rows, label)
    pathlib.Path(path).write_text(json.dumps(collection, indent=1), encoding="utf-8")


def _node_figure(rows: dict) -> str:
    """The figure the node data shows: output steps for an 8-bit program's rows, else max abs."""
    return "max_steps" if any(row.get("max_steps") is not None for row in rows.values()) else "max_abs_error"


def explorer_node_data(graph: ProgramGraph, debug_rows: DebugRows, figure: Optional[str] = None) -> dict[str, Any]:
    """Model Explorer node data (a JSON-ready dict, the fields of
    ``model_explorer.node_data_builder.ModelNodeData``) of one debug figure per node.

    Args:
        graph: the program's graph.
        debug_rows: ``executorch-nnapi debug`` rows (a list of dicts or its ``--json`` path).
        figure: the row key to show (``max_abs_error``, ``max_rel_error``, ``max_steps``, ``sqnr_db``,
            ``time_us``); default ``max_steps`` if the rows have them (8-bit), else ``max_abs_error``.
            A node's value is the largest over the operations it emitted or, through a row's
            ``aten_nodes``, is part of.
    """
    rows = match_debug_rows(graph, debug_rows)
    figure = figure or _node_figure(rows)
    results: dict[str, dict[str, float]] = {}
    partition_of = {n.id: n.partition for n in graph.nodes}
    for (partition, index), row in rows.items():
        value = row.get(figure)
        if value is None:
            continue
        owner = graph.operation(partition, index).aten_node
        for node_id in dict.fromkeys([owner, *(row.get("aten_nodes") or [])]):
            if node_id and partition_of.get(node_id, -1) == partition:
                best = results.get(node_id, {}).get("value")
                results[node_id] = {"value": float(value) if best is None else max(best, float(value))}
    gradient = [{"stop": 0, "bgColor": "#c8e6c9"}, {"stop": 0.5, "bgColor": "#fff59d"}, {"stop": 1, "bgColor": "#ef9a9a"}]
    return {"forward": {"name": figure, "results": results, "gradient": gradient}}


def write_explorer_node_data(path: "str | os.PathLike[str]", graph: ProgramGraph, debug_rows: DebugRows,
                             figure: Optional[str] = None) -> None:
    """Writes :func:`explorer_node_data` to ``path`` as JSON."""
    pathlib.Path(path).write_text(json.dumps(explorer_node_data(graph, debug_rows, figure), indent=1),
                                  encoding="utf-8")
