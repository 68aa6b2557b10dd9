"""`executorch-nnapi debug` (tools/numerics_debugger.py): every delegated NNAPI operation compared
with the program in the ETRecord; a clean model has no divergent operation, and an operation
perturbed by the host driver (EXECUTORCH_NNAPI_HOST_FAULT) is named as the first divergence,
on a small CNN, an 8-bit model and a model with a CPU op between two partitions."""

from __future__ import annotations

import json

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.tools.cli import main
from executorch_nnapi.tools.numerics_debugger import debug_program, save_etrecord

import cli_models
from quantized_reference import quantize

ROW_KEYS = {"partition", "nnapi_index", "nnapi_op", "aten_nodes", "source", "shape", "max_abs_error",
            "max_rel_error", "max_steps", "sqnr_db", "time_us", "first_divergent"}


class ConvErfConv(torch.nn.Module):
    """NNAPI has no erf: it stays on the CPU between two NNAPI partitions."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv1, self.conv2 = torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.Conv2d(4, 4, 1)

    def forward(self, x):
        return self.conv2(torch.erf(torch.relu(self.conv1(x))))


def _export(model, x: torch.Tensor, directory, name: str) -> tuple[str, str]:
    """Writes `name`.pte and `name`.etrecord (with `x` as the representative input)."""
    edge = to_edge_transform_and_lower(torch.export.export(model, (x,)), partitioner=[NnapiPartitioner()],
                                       generate_etrecord=True)
    program = edge.to_executorch()
    pte, etrecord = directory / f"{name}.pte", directory / f"{name}.etrecord"
    pte.write_bytes(program.buffer)
    save_etrecord(program, str(etrecord), (x,))
    return str(pte), str(etrecord)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("debugger")
    x = torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(0))
    quantized = quantize(cli_models.small_cnn(), (x,), signed=True)
    return {
        "float": _export(cli_models.small_cnn(), x, directory, "float"),
        "8-bit": _export(quantized, x, directory, "int8"),
        "cpu fallback": _export(ConvErfConv().eval(), torch.randn(1, 3, 8, 8), directory, "fallback"),
    }


@pytest.mark.parametrize("kind", ["float", "8-bit", "cpu fallback"])
def test_clean_model_has_no_divergent_operation(programs, kind, monkeypatch):
    monkeypatch.delenv("EXECUTORCH_NNAPI_HOST_FAULT", raising=False)
    report = debug_program(*programs[kind])
    assert report.first_divergent is None, report.format()
    compared = [r for r in report.rows if r.compared()]
    assert compared and all(r.aten_nodes for r in compared), report.format()
    assert all(r.time_us is not None and r.time_us > 0 for r in report.rows), report.format()
    if kind == "8-bit":
        assert all(r.max_steps <= 1.001 for r in compared if r.max_steps is not None), report.format()
        assert any(r.max_steps is not None for r in compared), report.format()
    else:
        assert max(r.max_rel_error for r in compared) < 1e-4, report.format()
    if kind == "cpu fallback":
        assert {r.partition for r in report.rows} == {0, 1}


@pytest.mark.parametrize("kind, fault, partition", [
    ("float", "CONV_2D:0", 0), ("float", "DEPTHWISE_CONV_2D:0", 0), ("8-bit", "CONV_2D:0", 0),
    ("8-bit", "FULLY_CONNECTED:0", 0), ("cpu fallback", "CONV_2D:0", 0),
])
def test_faulted_operation_is_named_first(programs, kind, fault, partition, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_NNAPI_HOST_FAULT", fault)
    report = debug_program(*programs[kind])
    name, k = fault.split(":")
    # The K-th operation of that type in the (first) NNAPI model, counting from 0.
    want = [r for r in report.rows if r.partition == partition and r.nnapi_op == name][int(k)]
    first = report.first_divergent
    assert first is want, report.format()
    assert sum(r.first_divergent for r in report.rows) == 1
    assert "first divergent operation: " + name in report.format()


def test_fault_in_each_model_names_the_first_partition(programs, monkeypatch):
    """The variable faults every NNAPI model: with a CPU op between two partitions the second
    CONV_2D:0 is the second partition's conv, after the first partition's in execution order."""
    monkeypatch.setenv("EXECUTORCH_NNAPI_HOST_FAULT", "CONV_2D:0")
    rows = debug_program(*programs["cpu fallback"]).rows
    diverged = [r for r in rows if r.compared() and r.max_rel_error > 1e-3]
    assert [(r.partition, r.nnapi_op) for r in diverged if r.nnapi_op == "CONV_2D"] == [(0, "CONV_2D"), (1, "CONV_2D")]


def test_debug_command_prints_table_and_writes_json(programs, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_NNAPI_HOST_FAULT", "CONV_2D:0")
    pte, etrecord = programs["float"]
    out = tmp_path / "rows.json"
    assert main(["debug", pte, "--etrecord", etrecord, "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "NNAPI op" in text and "first divergent operation: CONV_2D (partition 0, operation 0)" in text
    rows = json.loads(out.read_text())["rows"]
    assert rows and all(ROW_KEYS <= set(r) for r in rows)
    assert [r["nnapi_index"] for r in rows if r["first_divergent"]] == [0]
    assert [r["nnapi_op"] for r in rows][:1] == ["CONV_2D"]


def test_debug_command_reads_inputs_file(programs, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("EXECUTORCH_NNAPI_HOST_FAULT", raising=False)
    inputs = tmp_path / "x.pt"
    torch.save((torch.rand(1, 3, 16, 16),), inputs)
    pte, etrecord = programs["float"]
    assert main(["debug", pte, "--etrecord", etrecord, "--inputs", str(inputs)]) == 0
    assert "no divergent operation" in capsys.readouterr().out


def test_debug_command_missing_file_is_one_line(tmp_path):
    with pytest.raises(SystemExit, match=r"executorch-nnapi debug: error: the \.pte: no such file: .*none\.pte$"):
        main(["debug", str(tmp_path / "none.pte"), "--etrecord", str(tmp_path / "none.etrecord")])


def test_malformed_fault_variable_is_named(monkeypatch):
    monkeypatch.setenv("EXECUTORCH_NNAPI_HOST_FAULT", "CONV_2D")
    from executorch_nnapi.host_driver.fault_injection import fault_spec
    with pytest.raises(ValueError, match="EXECUTORCH_NNAPI_HOST_FAULT='CONV_2D': expected OPERATION:K"):
        fault_spec()


def test_export_writes_an_etrecord_debug_reads(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("EXECUTORCH_NNAPI_HOST_FAULT", raising=False)
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[1]))
    pte, etrecord = tmp_path / "m.pte", tmp_path / "m.etrecord"
    assert main(["export", "cli_models:small_cnn", "-o", str(pte), "--input-shape", "1,3,16,16",
                 "--etrecord", str(etrecord)]) == 0
    capsys.readouterr()
    assert main(["debug", str(pte), "--etrecord", str(etrecord)]) == 0
    text = capsys.readouterr().out
    assert "no divergent operation (6 of 6 NNAPI operations compared)" in text, text
