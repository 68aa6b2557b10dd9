"""The delegation report as a picture: one self-contained HTML page of the program's graph.

The page draws every ATen node of the program (inline SVG, laid out here), coloured by the
NNAPI partition it went to; each CPU node carries the reason NNAPI refused it, each node of a
partition the NNAPI operations it emitted and, when ``executorch-nnapi debug`` rows are given,
their error figures, with the first operation past tolerance marked. Tables below the graph
repeat the partitions, the CPU nodes and the NNAPI operations, and a small inline script of
ours shows a clicked node's details. Nothing is fetched: the page opens from disk, offline.

    from executorch_nnapi.tools.graph_page import write_graph_page
    from executorch_nnapi.tools.program_graph import program_graph

    edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
    graph = program_graph(edge, delegation_report(edge, partitioner.decisions))
    write_graph_page("model.html", graph, debug_rows="debug.json")   # rows are optional
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import pathlib
import textwrap
from typing import Any, Optional

from .debug_rows import FIGURES, DebugRows, computing_nodes, format_figure, match_debug_rows
from .program_graph import GraphNode, ProgramGraph

__all__ = ["PARTITION_COLOURS", "graph_page_html", "partition_colour", "write_graph_page"]

# Fill colours of the partitions (cycled); CPU nodes are grey with a red border.
PARTITION_COLOURS = ("#cfe8ff", "#d4f5d4", "#ffe7c2", "#ead9ff", "#ffd6e7", "#d2f4f0", "#f6f0c2", "#e0e0ff")
CPU_FILL, CPU_BORDER, IO_FILL = "#eeeeee", "#c62828", "#ffffff"
NODE_WIDTH, LINE_HEIGHT, GAP_X, GAP_Y, MARGIN = 250, 14, 24, 34, 20
SKIP_EDGE_BULGE = 110  # how far right of its ends an edge that skips layers curves
REASON_CHARS, REASON_LINES = 38, 4
OPERATION_LINES = 6  # a node's NNAPI operations drawn in its box (all are in the table and details)
TITLE_CHARS, SUB_CHARS = 20, 37  # what fits beside the shape / in the box
TITLE_CHAR_WIDTH, SHAPE_CHAR_WIDTH = 7.2, 6.1  # px per character of a title (12px bold) and a shape (10px mono)
_ASSETS = pathlib.Path(__file__).with_name("graph_page_assets")


def partition_colour(partition: Optional[int]) -> str:
    """The fill colour of ``partition``'s nodes (CPU nodes' for None)."""
    return CPU_FILL if partition is None else PARTITION_COLOURS[partition % len(PARTITION_COLOURS)]


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _short_op(op: str) -> str:
    name = op[len("aten."):] if op.startswith("aten.") else op
    return name[: -len(".default")] if name.endswith(".default") else name


@dataclasses.dataclass
class _Box:
    node: GraphNode
    lines: list[tuple[str, str]]  # (css class, text)
    x: float = 0.0
    y: float = 0.0
    divergent: bool = False
    """Whether it emitted the first divergent NNAPI operation of the debug rows."""

    @property
    def height(self) -> float:
        return 10 + LINE_HEIGHT * len(self.lines)


def _parts_of(rows: dict) -> dict[tuple[int, str], list[int]]:
    """(partition, ATen node) -> the operations whose debug rows list the node in aten_nodes."""
    parts: dict[tuple[int, str], list[int]] = {}
    for (partition, index), row in rows.items():
        for name in row.get("aten_nodes") or []:
            parts.setdefault((partition, name), []).append(index)
    return parts


def _box_lines(node: GraphNode, graph: ProgramGraph, rows: dict, parts: dict) -> list[tuple[str, str]]:
    if node.kind in ("input", "output"):
        return [("title", _clip(node.op if node.kind == "output" else f"input {node.op}", TITLE_CHARS))]
    title_chars = max(8, int((NODE_WIDTH - 24 - SHAPE_CHAR_WIDTH * len(node.shape)) / TITLE_CHAR_WIDTH))
    lines = [("title", _clip(_short_op(node.op), title_chars)), ("sub", _clip(node.id, SUB_CHARS))]
    if node.kind == "cpu":
        wrapped = textwrap.wrap(f"CPU: {node.reason or 'not delegated'}", REASON_CHARS) or [""]
        if len(wrapped) > REASON_LINES:
            wrapped = wrapped[:REASON_LINES - 1] + [wrapped[REASON_LINES - 1][: REASON_CHARS - 1] + "…"]
        return lines + [("reason", w) for w in wrapped]
    shared = [i for i in parts.get((node.partition, node.id), []) if i not in node.operations]
    if not node.operations:
        lines.append(("sub", "part of " + ", ".join(f"{graph.operation(node.partition, i).op} #{i}" for i in shared)
                      if shared else "no NNAPI operation of its own"))
    for k, index in enumerate(node.operations):
        if k == OPERATION_LINES - 1 and len(node.operations) > OPERATION_LINES:
            lines.append(("nnapi", f"… and {len(node.operations) - k} more NNAPI operations"))
            break
        operation = graph.operation(node.partition, index)
        row = rows.get((node.partition, index))
        text = f"→ {operation.op} #{index}"
        if row is not None:
            figure = "max_steps" if row.get("max_steps") is not None else "max_abs_error"
            text += f"  {dict(FIGURES)[figure]} {format_figure(figure, row.get(figure))}"
            if row.get("sqnr_db") is not None:
                text += f"  {format_figure('sqnr_db', row['sqnr_db'])} dB"
        lines.append(("divergent" if row is not None and row.get("first_divergent") else "nnapi", text))
    return lines


def _layers(nodes: list[GraphNode]) -> list[list[GraphNode]]:
    """Nodes by depth (longest path from an input), each layer ordered by its parents' places."""
    depth: dict[str, int] = {}
    for n in nodes:  # nodes come in execution order: inputs before users
        depth[n.id] = 1 + max((depth[i] for i in n.inputs if i in depth), default=-1)
    layers: list[list[GraphNode]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for n in nodes:
        layers[depth[n.id]].append(n)
    place: dict[str, float] = {}
    for layer in layers:
        def barycentre(n: GraphNode) -> float:
            parents = [place[i] for i in n.inputs if i in place]
            return sum(parents) / len(parents) if parents else float(len(place))
        layer.sort(key=barycentre)
        for k, n in enumerate(layer):
            place[n.id] = k
    return layers


def _layout(graph: ProgramGraph, rows: dict) -> tuple[dict[str, _Box], float, float]:
    layers = _layers(graph.nodes)
    parts = _parts_of(rows)
    widest = max((len(layer) for layer in layers), default=1)
    width = 2 * (MARGIN + SKIP_EDGE_BULGE) + widest * NODE_WIDTH + (widest - 1) * GAP_X
    boxes: dict[str, _Box] = {}
    y = MARGIN + 16  # room for the first partition's label
    for layer in layers:
        row_width = len(layer) * NODE_WIDTH + (len(layer) - 1) * GAP_X
        x = (width - row_width) / 2
        layer_height = 0.0
        for n in layer:
            divergent = any(rows.get((n.partition, i), {}).get("first_divergent") for i in n.operations)
            box = _Box(n, _box_lines(n, graph, rows, parts), x, y, divergent)
            boxes[n.id] = box
            x += NODE_WIDTH + GAP_X
            layer_height = max(layer_height, box.height)
        y += layer_height + GAP_Y
    return boxes, width, y + MARGIN


def _partition_frames(graph: ProgramGraph, boxes: dict[str, _Box]) -> list[str]:
    """A tinted frame around each partition's nodes, where it encloses no other node."""
    frames = []
    for p in graph.partitions:
        mine = [b for b in boxes.values() if b.node.partition == p.index]
        if not mine:
            continue
        x0, y0 = min(b.x for b in mine) - 10, min(b.y for b in mine) - 22
        x1, y1 = max(b.x for b in mine) + NODE_WIDTH + 10, max(b.y + b.height for b in mine) + 8
        others = [b for b in boxes.values() if b.node.partition != p.index
                  and b.x < x1 and b.x + NODE_WIDTH > x0 and b.y < y1 and b.y + b.height > y0]
        if others:
            continue
        frames.append(f'<g class="partition-frame" data-partition="{p.index}"><rect x="{x0:.0f}" y="{y0:.0f}" '
                      f'width="{x1 - x0:.0f}" height="{y1 - y0:.0f}" rx="10" fill="{partition_colour(p.index)}" '
                      f'fill-opacity="0.35" stroke="#7a8ca0" stroke-dasharray="4 3"/>'
                      f'<text x="{x0 + 8:.0f}" y="{y0 + 14:.0f}" class="frame-label">NNAPI subgraph {p.index}</text></g>')
    return frames


def _node_svg(box: _Box) -> str:
    n = box.node
    fill = IO_FILL if n.kind in ("input", "output") else partition_colour(n.partition)
    stroke = CPU_BORDER if n.kind == "cpu" else "#4a5a6a"
    divergent = box.divergent
    classes = f"node {n.kind}" + (" first-divergent" if divergent else "")
    partition = "" if n.partition is None else f' data-partition="{n.partition}"'
    parts = [f'<g class="{classes}" data-id="{html.escape(n.id)}"{partition} tabindex="0">',
             f"<title>{html.escape(_tooltip(n))}</title>",
             f'<rect x="{box.x:.0f}" y="{box.y:.0f}" width="{NODE_WIDTH}" height="{box.height:.0f}" rx="6" '
             f'fill="{fill}" stroke="{"#d50000" if divergent else stroke}" stroke-width="{3 if divergent else 1.2}"/>']
    if n.shape:
        parts.append(f'<text x="{box.x + NODE_WIDTH - 8:.0f}" y="{box.y + 17:.0f}" class="shape" '
                     f'text-anchor="end">{html.escape(_clip(n.shape, SUB_CHARS))}</text>')
    for k, (cls, text) in enumerate(box.lines):
        parts.append(f'<text x="{box.x + 8:.0f}" y="{box.y + 17 + k * LINE_HEIGHT:.0f}" class="{cls}">'
                     f"{html.escape(text)}</text>")
    parts.append("</g>")
    return "".join(parts)


def _tooltip(n: GraphNode) -> str:
    text = f"{n.op} ({n.id})"
    if n.reason:
        text += f"\nCPU: {n.reason}"
    if n.location:
        text += f"\n{n.location}"
    return text


def _svg(graph: ProgramGraph, rows: dict) -> str:
    boxes, width, height = _layout(graph, rows)
    edges = []
    for box in boxes.values():
        for source_id in box.node.inputs:
            source = boxes.get(source_id)
            if source is None:
                continue
            sx, sy = source.x + NODE_WIDTH / 2, source.y + source.height
            tx, ty = box.x + NODE_WIDTH / 2, box.y
            bend = max(GAP_Y / 2, (ty - sy) / 3)
            side = 0.0
            if ty - sy > GAP_Y * 1.5 and abs(sx - tx) < NODE_WIDTH / 2:
                # An edge that skips layers in one column leaves and enters at the boxes' right
                # and bulges past the nodes between them.
                sx, tx, side = sx + NODE_WIDTH / 2 - 24, tx + NODE_WIDTH / 2 - 24, SKIP_EDGE_BULGE
            edges.append(f'<path class="edge" d="M{sx:.0f},{sy:.0f} C{sx + side:.0f},{sy + bend:.0f} {tx + side:.0f},'
                         f'{ty - bend:.0f} {tx:.0f},{ty - 2:.0f}" marker-end="url(#arrow)"/>')
    defs = ('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6b7785"/></marker></defs>')
    body = "".join(_partition_frames(graph, boxes)) + "".join(edges) + "".join(_node_svg(b) for b in boxes.values())
    return (f'<svg id="graph-svg" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="program graph">{defs}{body}</svg>')


def _cell(text: Any, cls: str = "") -> str:
    attribute = f' class="{cls}"' if cls else ""
    return f"<td{attribute}>{html.escape(str(text))}</td>"


def _partition_table(graph: ProgramGraph) -> str:
    rows = []
    for p in graph.partitions:
        swatch = f'<td><span class="swatch" style="background:{partition_colour(p.index)}"></span> {p.index}</td>'
        ops = ", ".join(f"{k} x{v}" for k, v in sorted(p.nnapi_operations.items()))
        rows.append(f'<tr class="partition" data-partition="{p.index}">{swatch}{_cell(p.num_nodes)}'
                    f"{_cell(sum(p.nnapi_operations.values()))}{_cell(ops)}{_cell(p.min_feature_level)}"
                    f"{_cell(', '.join(p.dynamic_symbols) or '-')}{_cell('8-bit' if p.is_quantized else 'float')}</tr>")
    head = ("<tr><th>subgraph</th><th>ATen nodes</th><th>NNAPI operations</th><th>by type</th>"
            "<th>feature level</th><th>dynamic sizes</th><th>precision</th></tr>")
    return f'<table id="partition-table">{head}{"".join(rows)}</table>' if rows else "<p>No NNAPI partition.</p>"


def _cpu_table(graph: ProgramGraph) -> str:
    rows = [f'<tr class="cpu-node" data-id="{html.escape(n.name)}">{_cell(n.name)}{_cell(n.op)}'
            f'{_cell(n.reason, "reason")}{_cell(n.location or "-", "location")}</tr>' for n in graph.report.cpu_nodes]
    head = "<tr><th>node</th><th>op</th><th>why NNAPI did not take it</th><th>source</th></tr>"
    return f'<table id="cpu-table">{head}{"".join(rows)}</table>' if rows else "<p>Every compute node runs on NNAPI.</p>"


def _operations_table(graph: ProgramGraph, rows: dict) -> str:
    figure_heads = "".join(f"<th>{html.escape(label)}</th>" for _, label in FIGURES) if rows else ""
    head = f"<tr><th>subgraph</th><th>#</th><th>NNAPI operation</th><th>precision</th><th>ATen nodes</th>{figure_heads}</tr>"
    body = []
    for o in graph.operations:
        row = rows.get((o.partition, o.index))
        aten = ", ".join(row.get("aten_nodes") or [o.aten_node]) if row else o.aten_node
        figures = "".join(_cell(format_figure(k, row.get(k)) if row else "-") for k, _ in FIGURES) if rows else ""
        cls = ' class="operation first-divergent"' if row and row.get("first_divergent") else ' class="operation"'
        body.append(f'<tr{cls} data-partition="{o.partition}" data-index="{o.index}">{_cell(o.partition)}'
                    f"{_cell(o.index)}{_cell(o.op)}{_cell(o.precision)}{_cell(aten or '-')}{figures}</tr>")
    return f'<table id="operation-table">{head}{"".join(body)}</table>'


def _divergence_banner(graph: ProgramGraph, rows: dict) -> str:
    if not rows:
        return ""
    first = [(key, row) for key, row in rows.items() if row.get("first_divergent")]
    if not first:
        return f'<p id="divergence" class="clean">Debug rows for {len(rows)} NNAPI operation(s): none past tolerance.</p>'
    (partition, index), row = first[0]
    aten = ", ".join(computing_nodes(row.get("aten_nodes") or [graph.operation(partition, index).aten_node]))
    return (f'<p id="divergence" class="divergent">First divergent NNAPI operation: {html.escape(row["nnapi_op"])} '
            f"#{index} of subgraph {partition} ({html.escape(aten)})</p>")


def _node_data(graph: ProgramGraph, rows: dict) -> dict[str, Any]:
    """What the page's script shows for a clicked node."""
    nodes = {}
    for n in graph.nodes:
        operations = []
        for index in n.operations:
            o = graph.operation(n.partition, index)
            row = rows.get((n.partition, index), {})
            operations.append({"index": index, "op": o.op, "precision": o.precision,
                               "figures": {label: format_figure(k, row.get(k)) for k, label in FIGURES if k in row},
                               "first_divergent": bool(row.get("first_divergent"))})
        nodes[n.id] = {"op": n.op, "kind": n.kind, "shape": n.shape, "location": n.location, "reason": n.reason,
                       "partition": n.partition, "inputs": n.inputs, "operations": operations}
    return nodes


def graph_page_html(graph: ProgramGraph, debug_rows: Optional[DebugRows] = None, title: str = "") -> str:
    """The page as a string (see the module docstring).

    Args:
        graph: the program's graph, from :func:`executorch_nnapi.tools.program_graph.program_graph`.
        debug_rows: ``executorch-nnapi debug`` rows (a list of dicts, or the path of its
            ``--json`` file), shown on the NNAPI operations they describe; None for none.
        title: the page's heading, e.g. the model's name.

    Raises:
        ValueError: a debug row names an operation the program does not have.
    """
    rows = match_debug_rows(graph, debug_rows)
    report = graph.report
    heading = html.escape(title or "NNAPI delegation")
    summary = (f"{len(report.partitions)} NNAPI subgraph(s), {report.num_delegated_nodes} node(s) delegated "
               f"as {report.num_nnapi_operations} NNAPI operation(s), {len(report.cpu_nodes)} compute node(s) on the CPU")
    legend = "".join(f'<span class="legend-item"><span class="swatch" style="background:{partition_colour(p.index)}">'
                     f"</span>NNAPI subgraph {p.index}</span>" for p in report.partitions)
    legend += (f'<span class="legend-item"><span class="swatch" style="background:{CPU_FILL};border-color:{CPU_BORDER}">'
               "</span>CPU (portable kernels)</span>")
    data = json.dumps({"nodes": _node_data(graph, rows)}).replace("</", "<\\/")
    css = (_ASSETS / "graph_page.css").read_text(encoding="utf-8")
    script = (_ASSETS / "graph_page.js").read_text(encoding="utf-8")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{heading}</title>
<script>window.pageErrors=[];window.addEventListener("error",function(e){{window.pageErrors.push(String(e.message));
document.documentElement.setAttribute("data-errors",window.pageErrors.join(" | "));}});</script>
<style>{css}</style></head>
<body>
<header><h1>{heading}</h1><p id="summary">{html.escape(summary)}</p>{_divergence_banner(graph, rows)}
<div id="legend">{legend}</div></header>
<div id="main"><div id="graph">{_svg(graph, rows)}</div>
<aside id="details"><p class="hint">Click a node for its details.</p></aside></div>
<section><h2>NNAPI subgraphs</h2>{_partition_table(graph)}</section>
<section><h2>On the CPU</h2>{_cpu_table(graph)}</section>
<section><h2>NNAPI operations</h2>{_operations_table(graph, rows)}</section>
<section><h2>Delegation report</h2><pre id="report-text">{html.escape(report.format())}</pre></section>
<script type="application/json" id="graph-data">{data}</script>
<script>{script}</script>
</body></html>
"""


def write_graph_page(path: "str | os.PathLike[str]", graph: ProgramGraph, debug_rows: Optional[DebugRows] = None,
                     title: str = "") -> None:
    """Writes :func:`graph_page_html` to ``path`` (UTF-8)."""
    pathlib.Path(path).write_text(graph_page_html(graph, debug_rows, title), encoding="utf-8")
