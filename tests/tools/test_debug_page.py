"""`executorch-nnapi debug --html / --model-explorer` (tools/debug_picture.py): the delegation
picture rebuilt from a .pte and its ETRecord is the picture of the export itself, and the debug
rows land on their NNAPI operations with the first divergent one marked; on a small CNN, an
8-bit CNN and a CNN with a CPU fallback between two NNAPI subgraphs. Also: an ETRecord of
another program is refused in one line, and `debug` shows its stages on a terminal only."""

from __future__ import annotations

import dataclasses
import json
import re
import sys

import pytest
import torch
from executorch.devtools.etrecord import parse_etrecord
from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.tools.cli import main
from executorch_nnapi.tools.debug_picture import etrecord_program_graph
from executorch_nnapi.tools.numerics_debugger import reference_program, save_etrecord
from executorch_nnapi.tools.program_graph import program_graph
from executorch_nnapi.tools.report import delegation_report

import cli_models
from quantized_reference import quantize
from test_graph_page import _Page
from test_progress import _run_with_terminal_stderr

pytestmark = pytest.mark.xdist_group("debug_page")

DEBUG_STAGE_DONE = r"executorch-nnapi debug: (\w+) +\d+\.\d s done"


@dataclasses.dataclass
class Exported:
    pte: str
    etrecord: str
    graph: object
    """The ProgramGraph of the export itself (taken before to_executorch)."""


def _export(model, x: torch.Tensor, directory, name: str, dynamic_shapes=None, **partitioner_options) -> Exported:
    partitioner = NnapiPartitioner(**partitioner_options)
    edge = to_edge_transform_and_lower(torch.export.export(model, (x,), dynamic_shapes=dynamic_shapes),
                                       partitioner=[partitioner], generate_etrecord=True)
    graph = program_graph(edge, delegation_report(edge, partitioner.decisions))
    program = edge.to_executorch()
    pte, etrecord = directory / f"{name}.pte", directory / f"{name}.etrecord"
    pte.write_bytes(program.buffer)
    save_etrecord(program, str(etrecord), (x,))
    return Exported(str(pte), str(etrecord), graph)


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Exported]:
    directory = tmp_path_factory.mktemp("debug_page")
    x = torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(0))
    quantized = quantize(cli_models.small_cnn(), (x,), signed=True)
    return {
        "float": _export(cli_models.small_cnn(), x, directory, "float"),
        "8-bit": _export(quantized, x, directory, "int8"),
        "cpu fallback": _export(cli_models.cnn_with_cpu_fallback(), torch.randn(1, 3, 32, 32), directory,
                                "fallback"),
        # At API 27 (no TRANSPOSE) the flatten of an NHWC value stays on the CPU, splitting the model
        # in two: drawn so only if the picture partitions at the .pte's own feature level.
        "API 27": _export(torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten(),
                                              torch.nn.Linear(4 * 4 * 4, 2)).eval(),
                          torch.randn(1, 3, 6, 6), directory, "api27", feature_level=27),
        # Dynamic H and W: the partitioner gets back the ranges torch.export validated.
        "dynamic": _export(cli_models.small_cnn(), torch.randn(1, 3, 32, 32), directory, "dynamic",
                           dynamic_shapes=({2: torch.export.Dim("h", min=16, max=64),
                                            3: torch.export.Dim("w", min=16, max=64)},)),
    }


def _graph_of(exported: Exported):
    with open(exported.pte, "rb") as f:
        pte = f.read()
    return etrecord_program_graph(pte, reference_program(parse_etrecord(exported.etrecord)))


@pytest.mark.parametrize("kind", ["float", "8-bit", "cpu fallback", "API 27", "dynamic"])
def test_picture_from_the_etrecord_is_the_picture_of_the_export(programs, kind):
    exported = programs[kind]
    graph = _graph_of(exported)
    assert [dataclasses.asdict(n) for n in graph.nodes] == [dataclasses.asdict(n) for n in exported.graph.nodes]
    assert graph.operations == exported.graph.operations
    assert graph.report.format() == exported.graph.report.format()
    if kind == "cpu fallback":
        assert len(graph.partitions) == 2
        erf = graph.node("aten_erf_default")
        assert erf.kind == "cpu" and erf.reason == "NNAPI has no erf operation"
    if kind == "8-bit":
        assert any(o.precision == "8-bit" for o in graph.operations)
    if kind == "dynamic":
        assert len(graph.partitions[0].dynamic_symbols) == 2
    if kind == "API 27":
        assert len(graph.partitions) == 2
        assert "needs TRANSPOSE (API 28)" in graph.node("aten_view_copy_default").reason


def test_an_etrecord_of_another_program_is_refused(programs):
    with open(programs["float"].pte, "rb") as f:
        pte = f.read()
    other = reference_program(parse_etrecord(programs["cpu fallback"].etrecord))
    with pytest.raises(ValueError, match=r"^the ETRecord's program does not lower to the \.pte's NNAPI models: "
                                         r"2 NNAPI partition\(s\), the \.pte has 1; "):
        etrecord_program_graph(pte, other)


def _faulted_operation(graph, fault: str):
    """The operation EXECUTORCH_NNAPI_HOST_FAULT=OPERATION:K perturbs first in execution order: the
    K-th OPERATION (from 0) of the first NNAPI model that has K + 1 of them."""
    name, k = fault.split(":")
    for partition in graph.partitions:
        found = [o for o in graph.operations if o.partition == partition.index and o.op == name]
        if len(found) > int(k):
            return found[int(k)]
    raise AssertionError(f"no NNAPI model has {fault}")


@pytest.mark.parametrize("kind, fault", [("8-bit", "DEPTHWISE_CONV_2D:0"), ("cpu fallback", "DEPTHWISE_CONV_2D:0"),
                                         ("float", "FULLY_CONNECTED:0")])
def test_debug_html_marks_the_faulted_operation(programs, kind, fault, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_NNAPI_HOST_FAULT", fault)
    exported = programs[kind]
    page, explorer, rows_path = tmp_path / "d.html", tmp_path / "d.json", tmp_path / "rows.json"
    assert main(["debug", exported.pte, "--etrecord", exported.etrecord, "--html", str(page),
                 "--model-explorer", str(explorer), "--json", str(rows_path)]) == 0
    out = capsys.readouterr().out
    assert f"wrote the delegation picture with the debug rows to {page}" in out
    rows = json.loads(rows_path.read_text())["rows"]
    faulted = _faulted_operation(exported.graph, fault)
    first = [r for r in rows if r["first_divergent"]]
    assert [(r["partition"], r["nnapi_index"], r["nnapi_op"]) for r in first] == [(faulted.partition, faulted.index,
                                                                                    faulted.op)]
    # The page: the banner names it, its node (the one that emitted it) has the red border, and
    # exactly that row of the operations table is marked.
    parsed = _Page(page.read_text())
    marked_nodes = [a["data-id"] for a in parsed.with_class("first-divergent") if "node" in a["class"].split()]
    assert marked_nodes == [faulted.aten_node]
    marked_rows = [(a["data-partition"], a["data-index"]) for a in parsed.with_class("operation")
                   if "first-divergent" in a["class"].split()]
    assert marked_rows == [(str(faulted.partition), str(faulted.index))]
    text = page.read_text()
    banner = text.split('<p id="divergence"')[1].split("</p>")[0]
    assert f"First divergent NNAPI operation: {faulted.op} #{faulted.index} of subgraph {faulted.partition}" in banner
    # It names the computing nodes, not an 8-bit operation's quantize / dequantize nodes.
    assert faulted.aten_node in banner and "quantize_per_" not in banner
    assert f"→ {faulted.op} #{faulted.index}  " in " ".join(parsed.svg_text)
    if kind == "cpu fallback":
        assert [a["data-id"] for a in parsed.with_class("cpu")] == ["aten_erf_default"]
        assert "NNAPI has no erf operation" in text
    # Model Explorer: the operation's attributes carry its row and the first divergence.
    nodes = {n["id"]: n for n in json.loads(explorer.read_text())["graphs"][0]["nodes"]}
    attrs = {a["key"]: a["value"] for a in nodes[faulted.aten_node]["attrs"]}
    assert attrs[f"nnapi_op_{faulted.index}"].startswith(faulted.op)
    assert any(key.startswith(f"nnapi_op_{faulted.index}_max_abs_error") for key in attrs)
    assert attrs["first_divergent"] == f"{faulted.op} #{faulted.index}"


def test_debug_html_of_a_clean_model_has_no_divergence(programs, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("EXECUTORCH_NNAPI_HOST_FAULT", raising=False)
    exported = programs["8-bit"]
    page = tmp_path / "clean.html"
    assert main(["debug", exported.pte, "--etrecord", exported.etrecord, "--html", str(page)]) == 0
    assert "no divergent operation" in capsys.readouterr().out
    parsed = _Page(page.read_text())
    assert not parsed.with_class("first-divergent")
    operations = len(exported.graph.operations)
    assert f"Debug rows for {operations} NNAPI operation(s): none past tolerance." in page.read_text()


def test_debug_shows_its_stages_on_a_terminal_only(programs, tmp_path, capsys):
    """On a terminal (a child process with stderr on a pseudo-terminal), then not on one (here:
    pytest's capture is no terminal, as a pipe is not)."""
    exported = programs["float"]
    arguments = ["debug", exported.pte, "--etrecord", exported.etrecord, "--html", str(tmp_path / "p.html")]
    code, stdout, terminal = _run_with_terminal_stderr([sys.executable, "-m", "executorch_nnapi.tools.cli", *arguments])
    assert code == 0, stdout + terminal
    assert [m.group(1) for m in re.finditer(DEBUG_STAGE_DONE, terminal)] == ["load", "run", "compare", "write"]
    assert "no divergent operation" in stdout
    assert not sys.stderr.isatty()
    code = main(arguments)
    stdout, stderr = capsys.readouterr()
    assert code == 0, stdout + stderr
    assert re.search(DEBUG_STAGE_DONE, stderr) is None and "\x1b[K" not in stderr + stdout
    assert "no divergent operation" in stdout
