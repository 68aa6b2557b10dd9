"""The delegation picture in a real headless browser (Debian's chromium): the page loads from
disk with no console message and no script error, its script runs, and the partitions, the CPU
node's reason and the first divergent NNAPI operation are in the rendered DOM. The Model Explorer
graph is drawn by Model Explorer's own web app (scripts/explorer_screenshot.py)."""

from __future__ import annotations

import json
import pathlib
import shutil
import socket
import subprocess
import sys

import pytest
import torch

from executorch_nnapi.tools.explorer_graph import write_explorer_graph
from executorch_nnapi.tools.export import to_nnapi_program
from executorch_nnapi.tools.graph_page import write_graph_page
from test_graph_page import HERE, _Page, _rows

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason="chromium is absent (scripts/dev.sh installs it with apt: "
                                                          "apt-get install chromium)"),
              pytest.mark.xdist_group("graph_page")]


def _chromium(url: str, profile: pathlib.Path, *flags: str) -> tuple[str, list[str]]:
    """The DOM chromium rendered (or "" with --screenshot) and its console lines."""
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}",
         "--enable-logging=stderr", "--v=0", *(flags or ("--dump-dom",)), url],
        capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, [line for line in result.stderr.splitlines() if ":CONSOLE" in line]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """cnn_with_cpu_fallback's page with a debug row per NNAPI operation, its DEPTHWISE_CONV_2D
    marked as the first divergent one; (path, graph, that operation)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(HERE))
        import cli_models

        graph = to_nnapi_program(torch.export.export(cli_models.cnn_with_cpu_fallback(),
                                                     (torch.randn(1, 3, 32, 32),))).graph
    divergent = next(o for o in graph.operations if o.op == "DEPTHWISE_CONV_2D")
    path = tmp_path_factory.mktemp("page") / "cnn.html"
    write_graph_page(path, graph, debug_rows=_rows(graph, (divergent.partition, divergent.index)), title="cnn")
    return path, graph, divergent


def test_console_capture_sees_a_script_error(tmp_path):
    """The capture the other tests rely on: a page with a script error shows up in it."""
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body><script>console.error('seen'); undefinedFunction();</script></body></html>")
    _, console = _chromium(broken.as_uri(), tmp_path / "profile")
    assert any("seen" in line for line in console)
    assert any("Uncaught ReferenceError: undefinedFunction is not defined" in line for line in console)


def test_page_loads_with_partitions_and_reasons_in_the_dom(page, tmp_path):
    path, graph, _ = page
    dom, console = _chromium(path.as_uri() + "#aten_erf_default", tmp_path / "profile")
    assert console == []
    rendered = _Page(dom)
    root = dict(rendered.elements[0][1])
    assert "data-errors" not in root
    body = next(a for tag, a in rendered.elements if tag == "body")
    assert body.get("data-ready") == "1"  # the page's script ran to its end
    assert {a["data-partition"] for a in rendered.with_class("partition-frame")} == {str(p.index) for p in graph.partitions}
    assert [a["data-id"] for a in rendered.with_class("cpu")] == ["aten_erf_default"]
    # The script showed the node named in the URL, with its reason.
    details = next(a for tag, a in rendered.elements if a.get("id") == "details")
    assert details.get("data-shown") == "aten_erf_default"
    shown = dom.split('id="details"')[1].split("</aside>")[0]
    assert "why not NNAPI" in shown and "NNAPI has no erf operation" in shown
    assert "CPU (portable kernels)" in shown


def test_page_opens_on_the_first_divergent_operation(page, tmp_path):
    path, _, divergent = page
    dom, console = _chromium(path.as_uri(), tmp_path / "profile")
    assert console == []
    details = next(a for tag, a in _Page(dom).elements if a.get("id") == "details")
    assert details.get("data-shown") == divergent.aten_node
    shown = dom.split('id="details"')[1].split("</aside>")[0]
    assert "DEPTHWISE_CONV_2D" in shown and 'class="first-divergent"' in shown


def test_screenshot(page, tmp_path):
    path, _, _ = page
    shot = tmp_path / "page.png"
    _, console = _chromium(path.as_uri(), tmp_path / "profile", f"--screenshot={shot}", "--window-size=1200,900")
    assert console == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def _free_port_pair() -> int:
    """A port p with p and p + 1 free (Model Explorer's server and Chromium's DevTools)."""
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
            return port
    raise RuntimeError("no two consecutive free ports")


def test_model_explorer_draws_the_graph(page, tmp_path):
    """The Model Explorer graph, served by Model Explorer's own server and drawn by its web app in
    chromium (scripts/explorer_screenshot.py): the app shows the graph with all its nodes."""

    _, graph, _ = page
    path = tmp_path / "graph.json"
    write_explorer_graph(path, graph)
    nodes = len(json.loads(path.read_text())["graphs"][0]["nodes"])
    shot = tmp_path / "shot.png"
    script = HERE.parent / "scripts" / "explorer_screenshot.py"
    result = subprocess.run([sys.executable, str(script), str(path), str(shot), "--port", str(_free_port_pair())],
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"Model Explorer drew {nodes} nodes" in result.stdout, result.stdout
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_model_explorer_check_fails_on_a_file_it_cannot_read(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"not": "a graph collection"}')
    script = HERE.parent / "scripts" / "explorer_screenshot.py"
    result = subprocess.run([sys.executable, str(script), str(path), str(tmp_path / "shot.png"),
                             "--port", str(_free_port_pair()), "--wait", "60"], capture_output=True, text=True,
                            timeout=240)
    assert result.returncode == 1
    assert result.stderr.strip().endswith("bad.json: Model Explorer reports an error loading the graph")
