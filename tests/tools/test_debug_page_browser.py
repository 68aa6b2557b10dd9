"""The page `executorch-nnapi debug --html` writes, in headless chromium: with the host driver
told to perturb a DEPTHWISE_CONV_2D (EXECUTORCH_NNAPI_HOST_FAULT), the page loads with no console
message and no script error, opens on the node of that operation, and shows it as the first
divergence; the partitions and the CPU node's reason are in the rendered DOM."""

from __future__ import annotations

import pytest
import torch

from executorch_nnapi.tools.cli import main

import cli_models
from test_debug_page import _export, _faulted_operation
from test_graph_page import _Page
from test_graph_page_browser import CHROMIUM, _chromium

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is absent (scripts/dev.sh installs it with apt: "
                                                         "apt-get install chromium)")

FAULT = "DEPTHWISE_CONV_2D:0"


def test_debug_page_loads_with_the_faulted_operation_marked(tmp_path, monkeypatch, capsys):
    exported = _export(cli_models.cnn_with_cpu_fallback(), torch.randn(1, 3, 32, 32), tmp_path, "fallback")
    monkeypatch.setenv("EXECUTORCH_NNAPI_HOST_FAULT", FAULT)
    page = tmp_path / "debug.html"
    assert main(["debug", exported.pte, "--etrecord", exported.etrecord, "--html", str(page)]) == 0
    assert "first divergent operation: DEPTHWISE_CONV_2D" in capsys.readouterr().out
    faulted = _faulted_operation(exported.graph, FAULT)

    dom, console = _chromium(page.as_uri(), tmp_path / "profile")
    assert console == []
    rendered = _Page(dom)
    assert "data-errors" not in dict(rendered.elements[0][1])
    assert next(a for tag, a in rendered.elements if tag == "body").get("data-ready") == "1"
    assert {a["data-partition"] for a in rendered.with_class("partition-frame")} == {"0", "1"}
    assert [a["data-id"] for a in rendered.with_class("cpu")] == ["aten_erf_default"]
    assert "NNAPI has no erf operation" in dom
    # It opens on the node that emitted the faulted operation, with that operation marked.
    details = next(a for tag, a in rendered.elements if a.get("id") == "details")
    assert details.get("data-shown") == faulted.aten_node
    shown = dom.split('id="details"')[1].split("</aside>")[0]
    assert "DEPTHWISE_CONV_2D" in shown and 'class="first-divergent"' in shown
    assert (f"First divergent NNAPI operation: DEPTHWISE_CONV_2D #{faulted.index} of subgraph {faulted.partition}"
            in dom)
