"""The delegation report as a picture: the program graph, the HTML page, the Model Explorer
JSON, on a small CNN, a CNN with a CPU fallback between two NNAPI subgraphs, and an 8-bit model."""

from __future__ import annotations

import html.parser
import json
import pathlib

import pytest
import torch

from executorch_nnapi.tools.cli import main
from executorch_nnapi.tools.debug_rows import match_debug_rows
from executorch_nnapi.tools.explorer_graph import write_explorer_graph, write_explorer_node_data
from executorch_nnapi.tools.export import to_nnapi_program
from executorch_nnapi.tools.graph_page import graph_page_html, write_graph_page

HERE = pathlib.Path(__file__).parents[1]  # tests/: cli_models.py

pytestmark = pytest.mark.xdist_group("graph_page")


def _quantized_conv_exp_conv(cli_models):
    import executorch.kernels.quantized  # noqa: F401 - CPU kernels of quantize / dequantize

    from executorch_nnapi.quantizer.calibration import from_iterable, quantize_program
    from executorch_nnapi.quantizer.nnapi_quantizer import NnapiQuantizer

    example = torch.randn(1, 3, 16, 16)
    ep = torch.export.export(cli_models.conv_exp_conv(), (example,))
    calibration = from_iterable(cli_models.calibration_inputs(), "cli_models:calibration_inputs", [1, 3, 16, 16])
    quantized = quantize_program(ep, NnapiQuantizer(feature_level=30), calibration)
    return to_nnapi_program(torch.export.export(quantized, (example,))).graph


@pytest.fixture(scope="module")
def graphs(tmp_path_factory) -> dict:
    """name -> ProgramGraph: small_cnn, cnn_with_cpu_fallback and conv_exp_conv quantized
    (conv_exp_conv_int8); "quantized_files": the folder where the CLI wrote the quantized
    model's --report-html (q.html) and --report-model-explorer (q.json)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(HERE))
        import cli_models

        example = torch.randn(1, 3, 32, 32)
        found = {name: to_nnapi_program(torch.export.export(getattr(cli_models, name)(), (example,))).graph
                 for name in ("small_cnn", "cnn_with_cpu_fallback")}
        found["conv_exp_conv_int8"] = _quantized_conv_exp_conv(cli_models)
        folder = tmp_path_factory.mktemp("quantized")
        code = main(["export", "cli_models:conv_exp_conv", "-o", str(folder / "q.pte"), "--input-shape", "1,3,16,16",
                     "--quantize", "--calibration", "cli_models:calibration_inputs",
                     "--report-html", str(folder / "q.html"), "--report-model-explorer", str(folder / "q.json")])
        assert code == 0
        found["quantized_files"] = folder
    return found


class _Page(html.parser.HTMLParser):
    """The page's elements (tag, attributes) and the text under each element with an id or class."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.external: list[str] = []
        self.svg_text: list[str] = []
        self._in_svg_text = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attrs))
        for key in ("src", "href"):
            if key in attrs and not attrs[key].startswith("#"):
                self.external.append(f"{tag} {key}={attrs[key]}")
        if tag == "link":
            self.external.append("link")
        self._in_svg_text = tag == "text"

    def handle_endtag(self, tag):
        self._in_svg_text = False

    def handle_data(self, data):
        if self._in_svg_text:
            self.svg_text.append(data)

    def with_class(self, cls: str) -> list[dict[str, str]]:
        return [a for _, a in self.elements if cls in a.get("class", "").split()]


def _compute_nodes(graph, partition=None) -> list:
    return [n for n in graph.nodes if n.kind == "nnapi" and (partition is None or n.partition == partition)]


def test_graph_follows_values_across_delegate_boundaries(graphs):
    graph = graphs["cnn_with_cpu_fallback"]
    nodes = {n.id: n for n in graph.nodes}
    erf = nodes["aten_erf_default"]
    assert erf.kind == "cpu" and erf.partition is None
    assert erf.reason == "NNAPI has no erf operation"
    assert "cli_models.py" in erf.location
    # erf reads partition 0's last node; partition 1 reads erf; the residual add reads both branches.
    assert [nodes[i].partition for i in erf.inputs] == [0]
    assert nodes["aten_mul_tensor"].inputs == ["aten_erf_default"] and nodes["aten_mul_tensor"].partition == 1
    assert sorted(nodes["aten_add_tensor"].inputs) == ["aten_convolution_default_2", "aten_mul_tensor"]
    assert nodes["output_0"].inputs == ["aten_linear_default"] and nodes["x"].kind == "input"
    assert nodes["aten_convolution_default"].inputs == ["x"]


@pytest.mark.parametrize("name", ["small_cnn", "cnn_with_cpu_fallback", "conv_exp_conv_int8"])
def test_nodes_and_operations_agree_with_the_delegation_report(graphs, name):
    graph = graphs[name]
    report = graph.report
    for p in report.partitions:
        delegated = sum(v for k, v in p.aten_ops.items() if k != "getitem")
        assert len(_compute_nodes(graph, p.index)) == delegated
        operations = [o for o in graph.operations if o.partition == p.index]
        assert len(operations) == sum(p.nnapi_operations.values())
        assert [o.index for o in operations] == list(range(len(operations)))
    assert [n.id for n in graph.nodes if n.kind == "cpu"] == [c.name for c in report.cpu_nodes]
    # Every operation emitted by a node is listed on that node, and only there.
    for o in graph.operations:
        owners = [n.id for n in graph.nodes if n.partition == o.partition and o.index in n.operations]
        assert owners == ([o.aten_node] if o.aten_node in {n.id for n in _compute_nodes(graph, o.partition)} else [])


def test_quantized_picture_shows_8bit_and_float_operations(graphs):
    graph = graphs["conv_exp_conv_int8"]
    precisions = {o.op: o.precision for o in graph.operations}
    assert precisions["CONV_2D"] == "8-bit" and precisions["EXP"] == "float"
    page = graph_page_html(graph)
    assert "<td>8-bit</td>" in page  # the partition's precision
    files = graphs["quantized_files"]
    written = (files / "q.html").read_text()
    assert 'class="node nnapi"' in written and "EXP" in written and "NNAPI subgraph 0" in written
    collection = json.loads((files / "q.json").read_text())
    assert collection["label"] == "cli_models:conv_exp_conv"
    assert any(a["value"] == "CONV_2D (8-bit)" for n in collection["graphs"][0]["nodes"] for a in n["attrs"])


def test_page_is_self_contained_with_partitions_and_reasons(graphs):
    graph = graphs["cnn_with_cpu_fallback"]
    page = _Page(graph_page_html(graph, title="cnn"))
    assert page.external == []  # opens from disk: nothing fetched
    nodes = page.with_class("node")
    assert len(nodes) == len(graph.nodes)
    for p in graph.partitions:
        assert len([a for a in page.with_class("nnapi") if a.get("data-partition") == str(p.index)]) == \
            len(_compute_nodes(graph, p.index))
    assert {a["data-partition"] for a in page.with_class("partition-frame")} == {"0", "1"}
    cpu = page.with_class("cpu")
    assert [a["data-id"] for a in cpu] == ["aten_erf_default"]
    assert "CPU: NNAPI has no erf" in " ".join(page.svg_text)
    assert [a["data-id"] for a in page.with_class("cpu-node")] == ["aten_erf_default"]


def _rows(graph, divergent: tuple[int, int] | None) -> list[dict]:
    """A debug row per NNAPI operation, as `executorch-nnapi debug --json` writes them."""
    rows = []
    for o in graph.operations:
        error = 0.5 if (o.partition, o.index) == divergent else 1e-6 * (o.index + 1)
        rows.append({"nnapi_op": o.op, "nnapi_index": o.index, "partition": o.partition,
                     "aten_nodes": [o.aten_node], "max_abs_error": error, "max_rel_error": error / 2,
                     "sqnr_db": 60.0 - o.index,
                     "time_us": 10.0 * (o.index + 1), "first_divergent": (o.partition, o.index) == divergent})
    return rows


def test_debug_rows_are_shown_on_their_operations_and_the_first_divergence_is_marked(graphs, tmp_path):
    graph = graphs["cnn_with_cpu_fallback"]
    divergent = next(o for o in graph.operations if o.op == "DEPTHWISE_CONV_2D")
    path = tmp_path / "debug.json"
    path.write_text(json.dumps({"rows": _rows(graph, (divergent.partition, divergent.index))}))
    write_graph_page(tmp_path / "page.html", graph, debug_rows=path)
    text = (tmp_path / "page.html").read_text()
    page = _Page(text)
    marked = page.with_class("first-divergent")
    assert [a.get("data-id") for a in marked if "node" in a["class"].split()] == [divergent.aten_node]
    assert [(a["data-partition"], a["data-index"]) for a in marked if "operation" in a["class"].split()] == \
        [(str(divergent.partition), str(divergent.index))]
    assert (f"First divergent NNAPI operation: DEPTHWISE_CONV_2D #{divergent.index} of subgraph "
            f"{divergent.partition} ({divergent.aten_node})") in text
    assert f"→ DEPTHWISE_CONV_2D #{divergent.index}  max abs 0.5" in " ".join(page.svg_text)
    # A node that emitted no operation of its own but is named in a row's aten_nodes says which it is part of.
    fused = _rows(graph, None)
    fused[0]["aten_nodes"] = ["aten_convolution_default", "aten__native_batch_norm_legit_no_training_default",
                              "aten_relu_default"]
    assert "part of CONV_2D #0" in " ".join(_Page(graph_page_html(graph, debug_rows=fused)).svg_text)
    clean = graph_page_html(graph, debug_rows=_rows(graph, None))
    assert f"Debug rows for {len(graph.operations)} NNAPI operation(s): none past tolerance." in clean
    assert "first-divergent" not in clean.split("<style>")[0] + clean.split("</style>")[1].split("<script>")[0]


def test_debug_rows_of_another_program_are_refused(graphs):
    graph = graphs["small_cnn"]
    rows = _rows(graph, None)
    rows[0] = dict(rows[0], nnapi_op="SOFTMAX")
    with pytest.raises(ValueError, match=r"debug row 0 says NNAPI partition 0 operation #0 is SOFTMAX, the program's is"):
        match_debug_rows(graph, rows)
    with pytest.raises(ValueError, match="the program has no such operation"):
        match_debug_rows(graph, [dict(rows[1], nnapi_index=999)])


def _dataclass_subset(ours, theirs) -> bool:
    """Whether every field we wrote is in Model Explorer's own rendering with the same value."""
    if isinstance(ours, dict):
        return all(k in theirs and _dataclass_subset(v, theirs[k]) for k, v in ours.items())
    if isinstance(ours, list):
        return len(ours) == len(theirs) and all(_dataclass_subset(a, b) for a, b in zip(ours, theirs))
    return ours == theirs


@pytest.mark.parametrize("name", ["small_cnn", "cnn_with_cpu_fallback", "conv_exp_conv_int8"])
def test_model_explorer_classes_accept_the_graph(graphs, name, tmp_path):
    """Model Explorer's own dataclasses (model_explorer.graph_builder) take the JSON strictly,
    and its server's conversion of an adapter's graphs for its page gives back what we wrote."""
    import dataclasses

    import dacite
    from model_explorer import graph_builder
    from model_explorer.utils import convert_adapter_response

    graph = graphs[name]
    write_explorer_graph(tmp_path / "g.json", graph, debug_rows=_rows(graph, (0, 0)), label=name)
    data = json.loads((tmp_path / "g.json").read_text())
    collection = dacite.from_dict(graph_builder.GraphCollection, data, config=dacite.Config(strict=True))
    assert _dataclass_subset(data, dataclasses.asdict(collection))
    me_graph = collection.graphs[0]
    assert [n.id for n in me_graph.nodes] == [n.id for n in graph.nodes]
    namespaces = {n.namespace for n in me_graph.nodes}
    assert {f"nnapi_subgraph_{p.index}" for p in graph.partitions} <= namespaces
    for node in me_graph.nodes:
        attrs = {a.key: a.value for a in node.attrs}
        if graph.node(node.id).kind == "cpu":
            assert attrs["why_not_nnapi"] == graph.node(node.id).reason
    first = graph.operation(0, 0)
    owner = next(n for n in me_graph.nodes if n.id == first.aten_node)
    assert {a.key: a.value for a in owner.attrs}["first_divergent"] == f"{first.op} #0"
    # What Model Explorer's server sends its page for an adapter's graphs.
    sent = json.loads(json.dumps(convert_adapter_response({"graphCollections": [collection]})))
    assert _dataclass_subset(data, sent["graphCollections"][0])


def test_model_explorer_node_data_colours_nodes_by_their_error(graphs, tmp_path):
    """Node data for `model-explorer --node_data_paths`: Model Explorer's own classes take it, one
    value per node, the largest of the operations it emitted or is part of."""
    import dacite
    from model_explorer import node_data_builder

    graph = graphs["cnn_with_cpu_fallback"]
    rows = _rows(graph, (1, 1))
    rows[0]["aten_nodes"] = ["aten_convolution_default", "aten_relu_default"]  # relu fused into CONV_2D #0
    write_explorer_node_data(tmp_path / "errors.json", graph, rows)
    data = json.loads((tmp_path / "errors.json").read_text())
    node_data = node_data_builder.ModelNodeData(graphsData={
        graph_id: dacite.from_dict(node_data_builder.GraphNodeData, value, config=dacite.Config(strict=True))
        for graph_id, value in data.items()})
    assert _dataclass_subset(data, json.loads(node_data.to_json_string()))
    results = node_data.graphsData["forward"].results
    by_operation = {(r["partition"], r["nnapi_index"]): r["max_abs_error"] for r in rows}
    assert results["aten_relu_default"].value == results["aten_convolution_default"].value == by_operation[(0, 0)]
    assert results["aten_convolution_default_1"].value == max(by_operation.values()) == 0.5
    assert "aten_erf_default" not in results  # a CPU node has no NNAPI figure
    assert node_data.graphsData["forward"].name == "max_abs_error"


def test_cli_writes_both_pictures_of_a_cpu_fallback(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    code = main(["export", "cli_models:with_erf", "-o", str(tmp_path / "c.pte"), "--input-shape", "1,3,8,8",
                 "--report-html", str(tmp_path / "c.html"), "--report-model-explorer", str(tmp_path / "c.json")])
    text = capsys.readouterr().out
    assert code == 0, text
    assert f"wrote the delegation picture to {tmp_path / 'c.html'}" in text
    page = _Page((tmp_path / "c.html").read_text())
    assert [a["data-id"] for a in page.with_class("cpu")] == ["aten_erf_default"]
    nodes = json.loads((tmp_path / "c.json").read_text())["graphs"][0]["nodes"]
    erf = next(n for n in nodes if n["id"] == "aten_erf_default")
    assert {"key": "why_not_nnapi", "value": "NNAPI has no erf operation"} in erf["attrs"]


def test_a_node_with_many_operations_draws_the_first_and_a_count():
    """A node that emitted more operations than its box shows lists the rest as a count, and its
    border still marks a first divergent operation beyond them."""
    from executorch_nnapi.tools.program_graph import GraphNode, NnapiOperation, ProgramGraph
    from executorch_nnapi.tools.report import DelegationReport, PartitionInfo

    count = 9
    operations = [NnapiOperation(0, i, "MUL", "float", "aten_big") for i in range(count)]
    nodes = [GraphNode("x", "input", "x", []),
             GraphNode("aten_big", "nnapi", "aten.big.default", ["x"], partition=0, operations=list(range(count))),
             GraphNode("output_0", "output", "output 0", ["aten_big"])]
    report = DelegationReport([PartitionInfo(0, {"aten.big.default": 1}, {"MUL": count}, 27, [])], [])
    graph = ProgramGraph(nodes, operations, report)
    rows = [{"nnapi_op": "MUL", "nnapi_index": i, "partition": 0, "max_abs_error": 0.1,
             "first_divergent": i == count - 1} for i in range(count)]
    page = _Page(graph_page_html(graph, debug_rows=rows))
    drawn = [t for t in page.svg_text if t.startswith("→ MUL")]
    assert len(drawn) == 5 and f"… and {count - 5} more NNAPI operations" in page.svg_text
    assert [a["data-id"] for a in page.with_class("first-divergent") if "node" in a["class"].split()] == ["aten_big"]
    assert len([a for a in page.with_class("operation")]) == count  # all in the operations table
