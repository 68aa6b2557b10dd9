"""Each op's facts are declared once, on its builder, and everything else derives
from them: the support table, `executorch-nnapi ops`, the layout prediction."""

from __future__ import annotations

import ast
import copy
import dataclasses
import pathlib

import torch

from executorch.exir import to_edge_transform_and_lower
from torch.export import export

from executorch_nnapi.lowering import layout_analysis
from executorch_nnapi.lowering.builders import (BUILDERS, UNIT_BUILDERS, LayoutClass, NodeBuilder, OpSupport,
                                                QuantKind, Quantization, builders, get_builder,
                                                quantization_declarations)
from executorch_nnapi.tools.cli import main
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from executorch_nnapi.lowering.passes.exact_requantization import moves_data
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
    raised = tuple(dataclasses.replace(row, since=FeatureLevel.ANDROID_11) if row.op is aten.relu.default else row
                   for row in builder.ops)
    monkeypatch.setattr(type(builder), "ops", raised)
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


# -- 8 bits: each op's quantization is declared on its builder's row ---------------------------------------------
EIGHT_BIT_FILES = ("quantizer/nnapi_quantizer.py", "lowering/builders/quantized_op.py")


def test_no_op_table_or_feature_level_in_the_quantizer_or_the_quantized_dispatch():
    """The quantizer and the quantized-op builder name no ATen op and define no module-level
    table or feature-level constant: which op runs in 8 bits, how and from which level is
    stated on the op's builder (OpSupport(..., quantized=...))."""
    for name in EIGHT_BIT_FILES:
        tree = ast.parse((ROOT / name).read_text())
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        assert "aten" not in names, f"{name} names ATen ops"
        assert not any(isinstance(n, ast.Attribute) and n.attr == "ops" and getattr(n.value, "id", "") == "torch"
                       for n in ast.walk(tree)), f"{name} reads torch.ops"
        for stmt in tree.body:
            if not isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if [getattr(t, "id", "") for t in targets] == ["__all__"]:
                continue
            value = stmt.value
            assert not isinstance(value, (ast.Dict, ast.Tuple, ast.Set, ast.List, ast.DictComp, ast.SetComp)), \
                f"{name}:{stmt.lineno} defines a module-level table"
            assert not (isinstance(value, ast.Constant) and isinstance(value.value, int)), \
                f"{name}:{stmt.lineno} defines an integer constant (a feature level?)"
            assert not any(isinstance(n, ast.Attribute) and getattr(n.value, "id", "") == "FeatureLevel"
                           for n in ast.walk(value)), f"{name}:{stmt.lineno} defines a feature level"


def _declarations_on_rows() -> list[tuple[OpSupport, Quantization]]:
    return [(row, declared) for b in builders() for row in b.ops for declared in row.quantized]


def test_every_op_the_quantizer_annotates_is_declared_on_a_builder_and_vice_versa():
    from executorch_nnapi.quantizer import NnapiQuantizer

    on_rows = _declarations_on_rows()
    for level in (27, 29, 30):
        quantizer = NnapiQuantizer(feature_level=level)
        assert quantizer.declared == quantization_declarations()
        assert set(quantizer.declared) == {op for _, d in on_rows for op in d.annotates}
        assert all(any(d is declared for _, d in on_rows) for declared in quantizer.declared.values())
    for row, declared in on_rows:
        # A declaration the quantizer acts on annotates something; a float one nothing.
        assert bool(declared.annotates) == (declared.kind is not QuantKind.FLOAT), row.op


def test_the_quantized_dispatch_is_the_declarations():
    """The quantized-op builder takes exactly the ops whose rows declare an 8-bit lowering, with
    the kind, level and fixed parameters declared there (several declarations of a row agree). A
    rewrite (REWRITTEN, applied to the exported program before annotation) is no 8-bit form of the
    row's op itself."""
    from executorch_nnapi.lowering.builders.quantized_op import quantization_of

    for b in builders():
        for row in b.ops:
            declared = quantization_of(row.op)
            own = [d for d in row.quantized if d.kind is not QuantKind.REWRITTEN]
            if not own:
                assert declared is None, row.op
                continue
            assert declared is own[0]
            assert len({(d.kind, d.since, d.fixed) for d in own}) == 1, row.op
    assert quantization_of(aten.alias_copy.default) is None  # its row declares only alias's rewrite
    assert quantization_of(aten.upsample_bilinear2d.vec).kind is QuantKind.SAME_PARAMETERS
    assert quantization_of(aten.upsample_bilinear2d.vec).since == 30
    assert quantization_of(aten.hardswish.default).kind is QuantKind.REQUANTIZING


class _EightBitOps(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        z = torch.cat([torch.sigmoid(y), torch.nn.functional.hardswish(y)], dim=1)
        z = torch.maximum(z, torch.nn.functional.interpolate(z, scale_factor=1.0, mode="nearest"))
        return torch.nn.functional.interpolate(z.flatten(2).reshape(1, 8, 4, 4), size=(8, 8), mode="bilinear")


def test_what_the_quantizer_annotates_is_what_the_declarations_say():
    from executorch_nnapi.quantizer import NnapiQuantizer

    gm = export(_EightBitOps().eval(), (torch.randn(1, 3, 4, 4),)).module()
    for level in (28, 30):
        annotated = NnapiQuantizer(feature_level=level).annotate(copy.deepcopy(gm))
        targets = {n.target for n in annotated.graph.nodes if "quantization_annotation" in n.meta}
        declared = quantization_declarations()
        assert targets <= set(declared)
        quantized: set = set()  # nodes whose result is 8-bit, in graph order
        for n in gm.graph.nodes:
            d = declared.get(n.target)
            if d is None or level < d.since:
                continue
            # A data-movement op of a float result stays float (no quantize where NNAPI may not hold it).
            x = n.args[0]
            if (d.kind is QuantKind.SAME_PARAMETERS and moves_data(n) and isinstance(x, torch.fx.Node)
                    and x.op == "call_function" and x not in quantized):
                continue
            quantized.add(n)
        # An op without weights whose result no 8-bit op and no output reads stays float, users first
        # (the bilinear resize has no 8-bit form before API 30: the ops before it stay float); an
        # activation fused with its convolution stays with it.
        for n in reversed(gm.graph.nodes):
            d = declared.get(n.target)
            fused = isinstance(n.args[0] if n.args else None, torch.fx.Node) and \
                declared.get(n.args[0].target) is not None and declared[n.args[0].target].kind is QuantKind.WEIGHTED
            if (n in quantized and d.kind is not QuantKind.WEIGHTED and not fused
                    and not any(u in quantized or u.op == "output" for u in n.users)):
                quantized.discard(n)
        expected = {n.target for n in quantized}
        assert targets == expected, (level, targets ^ expected)
        assert (aten.upsample_bilinear2d.vec in targets) == (level >= 30)  # its PyTorch mappings need API 30


def test_ops_declared_without_cpu_kernel_have_none_in_the_portable_library():
    """``cpu_kernel=False`` (lowering stops at a refused node of the op) holds for ExecuTorch's
    portable kernels as installed: none of the op's variants is registered."""
    from executorch.extension.pybindings import portable_lib

    registered = {name.split(".")[0] for name in portable_lib._get_operator_names()}
    declared = [row.op for row in SUPPORT_TABLE if not row.cpu_kernel]
    assert declared, "no op declares cpu_kernel=False"
    for op in declared:
        assert op.name() not in registered, f"{op} has a portable kernel: drop cpu_kernel=False"
