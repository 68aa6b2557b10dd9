"""Each op's facts are declared once, on its builder, and everything else derives
from them: the support table, `executorch-nnapi ops`, the layout prediction."""

from __future__ import annotations

import ast
import pathlib

import torch

from executorch.exir import to_edge_transform_and_lower
from torch.export import export

from executorch_nnapi.lowering import layout_analysis
from executorch_nnapi.lowering.builders import (BUILDERS, UNIT_BUILDERS, LayoutClass, NodeBuilder, OpSupport,
                                                builders, get_builder)
from executorch_nnapi.tools.cli import main
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from executorch_nnapi.partitioners import SUPPORT_TABLE, NnapiPartitioner

ROOT = pathlib.Path(__file__).resolve().parents[2]
aten = torch.ops.aten


def test_support_table_is_the_builders_rows():
    declared = [row for b in builders() for row in b.ops]
    assert len(SUPPORT_TABLE) == len(declared)
    assert all(a is b for a, b in zip(SUPPORT_TABLE, declared))
    assert {row.op for row in SUPPORT_TABLE} == set(BUILDERS)


def test_no_feature_level_outside_the_builders_for_an_aten_op():
    """The partitioner's files state no op's level: no OpSupport row, no FeatureLevel member
    other than the partitioner's own default target."""
    for path in (ROOT / "partitioners").glob("*.py"):
        tree = ast.parse(path.read_text())
        rows = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "OpSupport"]
        assert rows == [], f"{path.name} declares OpSupport rows"
        levels = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                  and getattr(n.value, "id", "") == "FeatureLevel"}
        assert levels <= {"ANDROID_11", "ANDROID_9", "parse"}, (path.name, levels)


def test_every_builder_has_a_doc_and_every_row_its_facts():
    for builder in [*builders(), *UNIT_BUILDERS.values()]:
        assert builder.doc(), f"{type(builder).__name__} has no one-line doc"
    for row in SUPPORT_TABLE:
        assert isinstance(row.since, FeatureLevel) and row.nnapi and row.constraints, row


def test_layout_prediction_is_derived_from_the_builders():
    by_layout = {layout: {op for op, b in BUILDERS.items() if b.layout is layout} for layout in LayoutClass}
    assert layout_analysis.NHWC_OPS == by_layout[LayoutClass.NHWC]
    assert layout_analysis.ORDER_PRESERVING == by_layout[LayoutClass.ORDER_PRESERVING]
    assert layout_analysis.REDUCTIONS == by_layout[LayoutClass.REDUCTION]
    assert aten.convolution.default in layout_analysis.NHWC_OPS


class _Relu(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


def _relu_reason(feature_level: int) -> str:
    partitioner = NnapiPartitioner(feature_level=feature_level)
    to_edge_transform_and_lower(export(_Relu(), (torch.randn(2, 3),)), partitioner=[partitioner])
    return {d.op: d.reason for d in partitioner.decisions}["aten.relu.default"]


def test_changing_a_builders_level_changes_the_partitioner_and_the_matrix(monkeypatch, capsys):
    """The one place relu's level is written is its builder's row: raising it there moves
    the partitioner's verdict and `executorch-nnapi ops` with it."""
    builder = get_builder(aten.relu.default)
    assert _relu_reason(29) == ""
    (row,) = builder.ops
    monkeypatch.setattr(type(builder), "ops", (OpSupport(row.op, FeatureLevel.ANDROID_11, row.nnapi, row.constraints),))
    assert _relu_reason(29) == "aten.relu.default needs API 30 (Android 11); the target is API 29 (Android 10)"
    main(["ops"])
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("| `aten.relu.default`"))
    assert line.startswith("| `aten.relu.default` | - | - | - | yes |")


def test_a_new_builder_is_a_new_row(monkeypatch):
    class Erf(NodeBuilder):
        """aten.erf -> (a test builder)."""
        ops = (OpSupport(aten.erf.default, FeatureLevel.ANDROID_10, "TEST", "float32"),)

    from executorch_nnapi.lowering.builders import registry
    from executorch_nnapi.partitioners.op_support import support_table

    monkeypatch.setitem(registry.BUILDERS, aten.erf.default, Erf())
    assert any(r.op is aten.erf.default and r.nnapi == "TEST" for r in support_table())
