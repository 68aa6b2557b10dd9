"""NnapiPartitioner: the op-support table, refusal reasons, feature levels."""

from __future__ import annotations

import torch
from torch.export import export

from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.lowering.builders import BUILDERS, get_builder
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from executorch_nnapi.tools.report import delegation_report
from executorch_nnapi.partitioners import SUPPORT_TABLE, NnapiPartitioner


def _lower(fn_or_module, *inputs, feature_level=30):
    module = fn_or_module if isinstance(fn_or_module, torch.nn.Module) else _Wrap(fn_or_module)
    partitioner = NnapiPartitioner(feature_level=feature_level)
    edge = to_edge_transform_and_lower(export(module.eval(), inputs), partitioner=[partitioner])
    return edge, partitioner


class _Wrap(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _reasons(partitioner):
    return {d.op: d.reason for d in partitioner.decisions if not d.supported}


def test_every_table_row_has_a_builder_and_every_builder_a_row():
    table_ops = {row.op for row in SUPPORT_TABLE}
    for op in table_ops:
        assert get_builder(op) is not None, f"{op} is in the support table but has no builder"
    for op in BUILDERS:
        assert op in table_ops, f"builder for {op} has no row in the support table"


def test_default_feature_level_is_android_11():
    assert NnapiPartitioner().feature_level == FeatureLevel.ANDROID_11


def test_op_without_nnapi_equivalent_names_the_reason():
    edge, p = _lower(lambda x: torch.erf(x), torch.randn(2, 3))
    assert _reasons(p)["aten.erf.default"] == "NNAPI has no erf operation"


def test_conv3d_is_refused_with_reason():
    # 3-D convolutions run as 2-D ones per tap (lowering/builders/conv3d.py) from API 28, with groups=1.
    edge, p = _lower(torch.nn.Conv3d(2, 2, 1), torch.randn(1, 2, 2, 2, 2), feature_level=27)
    assert "3-D convolution" in _reasons(p)["aten.convolution.default"]
    edge, p = _lower(torch.nn.Conv3d(2, 2, 1, groups=2), torch.randn(1, 2, 2, 2, 2))
    assert "3-D convolution with groups=2" in _reasons(p)["aten.convolution.default"]


def test_int64_tensor_is_refused_with_reason():
    edge, p = _lower(lambda x: x + x, torch.arange(6).reshape(2, 3))
    assert "int64" in _reasons(p)["aten.add.Tensor"]


def test_op_newer_than_feature_level_says_which_api_it_needs():
    edge, p = _lower(lambda x: x - 1.0, torch.randn(2, 3), feature_level=27)
    reason = _reasons(p)["aten.sub.Tensor"]
    assert "needs API 28" in reason and "API 27" in reason


def test_dilated_conv_is_taken_at_every_level():
    # Below API 29 (no dilation operand) as SPACE_TO_BATCH_ND + CONV_2D + BATCH_TO_SPACE_ND (API 28) or
    # a one-hot im2col (API 27); tests/lowering/test_dilated_conv_and_lrn.py has the forms.
    conv = torch.nn.Conv2d(2, 2, 3, dilation=2)
    for level in (27, 28, 29):
        _, p = _lower(conv, torch.randn(1, 2, 9, 9), feature_level=level)
        assert "aten.convolution.default" not in _reasons(p)


def test_kept_linear_that_is_refused_still_lowers():
    # linear is kept undecomposed only where NNAPI takes it: an int64 one must decompose.
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(x) + torch.erf(x)

    edge, p = _lower(M(), torch.randn(3, 4))
    report = delegation_report(edge, p.decisions)
    assert len(report.partitions) >= 1
    assert any(n.op == "aten.erf.default" for n in report.cpu_nodes)


def test_report_lists_cpu_nodes_with_reason_and_location():
    edge, p = _lower(lambda x: torch.erf(torch.relu(x)) * 2.0, torch.randn(2, 3))
    report = delegation_report(edge, p.decisions)
    (cpu,) = [n for n in report.cpu_nodes if n.op == "aten.erf.default"]
    assert "erf" in cpu.reason
    assert "test_partitioner.py" in cpu.location
    text = report.format()
    assert "subgraph" in text and "aten.erf.default" in text


def test_api27_refuses_reading_nhwc_in_pytorch_order_instead_of_failing():
    # conv -> flatten of a [N, C, H, W] activation with H, W > 1 needs a TRANSPOSE (API 28).
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 2))
    edge, p = _lower(model, torch.randn(1, 3, 6, 6), feature_level=27)
    assert "needs TRANSPOSE (API 28)" in _reasons(p)["aten.view_copy.default"]
    report = delegation_report(edge, p.decisions)
    assert len(report.partitions) == 2  # conv, then linear after the CPU-side view


def test_partitioner_from_a_delegates_compile_specs_has_its_options_and_ranges():
    from executorch_nnapi.lowering.compile_specs import symbol_ranges_spec

    original = NnapiPartitioner(28, max_cached_shapes=3, relax_fp32_to_fp16=True, priority="high")
    specs = [*original.delegation_spec.compile_specs, symbol_ranges_spec({"h": (16, 512)})]
    restored = NnapiPartitioner.from_compile_specs(specs)
    assert restored.options == original.options and restored.feature_level == FeatureLevel.ANDROID_9
    assert restored._export_ranges == {"h": (16, 512)}


def test_constant_computation_split_from_its_inputs_leaves_the_partition_when_nnapi_cannot_run_it():
    """Bicubic resizing at API 27 (no TRANSPOSE, so torch decomposes it): its index arithmetic on
    constants feeds both the CPU's gathers and delegated weights, so CapabilityBasedPartitioner
    leaves part of it out of the partition and a SUB inside reads it as an input. Lowering cannot
    fold that SUB and API 27 has no SUB: it leaves the partition with the reason, instead of
    stopping lowering, and the program runs and matches eager."""
    from executorch.runtime import Runtime
    import executorch_nnapi.runtime  # noqa: F401  (registers NnapiBackend, starts the host driver)
    from executorch_nnapi.host_driver import get_driver

    def resize(x):
        return torch.nn.functional.interpolate(x, size=(12, 10), mode="bicubic", align_corners=False)

    x = torch.randn(1, 3, 6, 5)
    edge, p = _lower(resize, x, feature_level=27)
    reasons = {d.reason for d in p.decisions if not d.supported and d.op == "aten.sub.Tensor"}
    assert "aten.sub.Tensor needs API 28 (Android 9); the target is API 27 (Android 8.1)" in reasons, reasons
    get_driver().feature_level = 27
    program = Runtime.get().load_program(edge.to_executorch().buffer)
    got = program.load_method("forward").execute([x])[0]
    torch.testing.assert_close(got, resize(x), rtol=1e-5, atol=1e-5)


def test_a_view_of_the_functional_program_is_judged_as_the_copy_to_edge_makes_of_it():
    # ops_to_not_decompose sees views (aten.view); the table describes the edge program's copies
    # (aten.view_copy): a view judged as itself split the proposal at every view.
    from executorch_nnapi.partitioners.nnapi_partitioner import NnapiOperatorSupport
    from executorch_nnapi.partitioners.op_support import edge_form

    assert edge_form(torch.ops.aten.view.default) is torch.ops.aten.view_copy.default
    assert edge_form(torch.ops.aten.slice.Tensor) is torch.ops.aten.slice_copy.Tensor
    assert edge_form(torch.ops.aten.add.Tensor) is torch.ops.aten.add.Tensor
    ep = export(_Wrap(lambda x: (x + 1).view(6, 2) * 2), (torch.randn(3, 4),)).run_decompositions({})
    support = NnapiOperatorSupport(ep, 30)
    view = next(n for n in ep.graph.nodes if n.target is torch.ops.aten.view.default)
    assert support.is_node_supported({}, view), support.decisions[view].reason


def test_a_program_without_ops_kept_whole_is_not_proposed_partitions_twice(monkeypatch):
    # Deciding which ops to keep whole needs a partition proposal only where such an op occurs
    # (the proposal's cost grows faster than the program: ~150 s of an int8 30-layer decoder).
    import executorch_nnapi.partitioners.nnapi_partitioner as module

    proposals = []
    real = module._proposed_partitions
    monkeypatch.setattr(module, "_proposed_partitions", lambda ep, s: proposals.append(ep) or real(ep, s))
    edge, _ = _lower(lambda x: torch.relu(x @ x), torch.randn(4, 4))
    assert len(proposals) == 1 and "executorch_call_delegate" in str(edge.exported_program().graph)
    proposals.clear()
    edge, _ = _lower(torch.nn.Linear(4, 4), torch.randn(2, 4))
    assert len(proposals) == 2 and "executorch_call_delegate" in str(edge.exported_program().graph)


def test_a_tensor_over_nnapis_4_gib_operand_limit_is_refused_with_the_limit_and_what_fits():
    # Lowered only (nothing runs): the sum is 4.0 GiB, its inputs are small.
    edge, p = _lower(lambda x, y: x + y, torch.randn(2**16, 1), torch.randn(1, 2**14 + 1))
    reason = _reasons(p)["aten.add.Tensor"]
    assert reason == ("its result [65536, 16385] is 4.00 GiB; NNAPI holds at most 4 GiB (4,294,967,295 bytes) in "
                      "one operand: 65,532 of its 65,536 rows would fit; in 8 bits it would take 1.00 GiB")
    assert "executorch_call_delegate" not in str(edge.exported_program().graph)


def test_partitions_that_reach_themselves_through_another_lose_the_closing_nodes():
    """Two partitions, {a, d} and {b, c}: no node path leaves the first and comes back, but once
    ExecuTorch fuses the second into one call node, a -> {b, c} -> d is a cycle (hf:lara_mini's
    'Invalid partition, found dependency cycles'). d, which closes it, stays on the CPU."""
    from executorch_nnapi.partitioners.nnapi_partitioner import CYCLE_REASON, without_cycles_between

    def f(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a = torch.relu(x)
        b = torch.sin(a)
        c = torch.cos(x)
        d = c + a
        return b, d

    graph = torch.fx.symbolic_trace(f).graph
    a, b, c, d = [n for n in graph.nodes if n.op == "call_function"]
    refused = {}
    kept = without_cycles_between([{a, d}, {b, c}], [], refused.__setitem__, lambda nodes: nodes)
    assert kept == [{a}, {b, c}] and refused == {d: CYCLE_REASON}
    # With d's partition fused alone, nothing is dropped.
    assert without_cycles_between([{a}, {b, c}, {d}], [], refused.__setitem__, lambda nodes: nodes) == [{a}, {b, c}, {d}]
