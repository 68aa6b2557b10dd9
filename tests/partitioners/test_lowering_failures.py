"""A node NNAPI's lowering cannot take never stops lowering (issue 42 item 0): timm's hiera_tiny_224
raised ``LoweringError: ... has rank 5 and is held as a merged view`` from inside the backend.

Two guards: the partitioner refuses a node that reads or produces a run-time value of rank > 4
unless its builder reads the rank-4 views lowering holds such values as (``reads_merged_views``),
and, as a last line of defence, every proposed partition is lowered once before it is tagged: a
node whose builder fails there stays on the CPU with the failure as its reason
(partitioners/lowering_dry_run.py)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import export

from executorch.exir import to_edge

import executorch_nnapi.partitioners.nnapi_partitioner as nnapi_partitioner
from executorch_nnapi.lowering.builders import get_builder
from executorch_nnapi.lowering.graph import LoweringError
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from executorch_nnapi.lowering.node_utils import aten_op
from executorch_nnapi.partitioners.lowering_dry_run import KeptOpLoweringError
from executorch_nnapi.partitioners.nnapi_partitioner import NnapiOperatorSupport
from op_harness import Lambda, lower, relative_max_error, run_pte

aten = torch.ops.aten
DRY_RUN_REASON = "NNAPI's lowering of this node failed"


class MaskUnitAttention(torch.nn.Module):
    """hiera's mask-unit attention: q, k, v of rank 5 (batch, heads, windows, tokens, head dim) from
    one rank-6 view of a linear, attended by scaled_dot_product_attention (whose decomposition
    views the scores back to rank 5 and compares them with -inf)."""

    def __init__(self, dim: int = 16, heads: int = 2, windows: int = 4) -> None:
        super().__init__()
        self.heads, self.windows = heads, windows
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, _, c = x.shape
        qkv = self.qkv(x).reshape(b, -1, self.windows, 3, self.heads, c // self.heads).permute(3, 0, 4, 2, 1, 5)
        q, k, v = qkv.unbind(0)
        x = F.scaled_dot_product_attention(q, k, v)
        return self.proj(x.transpose(1, 3).reshape(b, -1, c))


def _lowered_equal_to_eager(model: torch.nn.Module, x: torch.Tensor):
    torch.manual_seed(0)
    lowered = lower(model, (x,))
    assert lowered.num_delegates >= 1
    (got,) = run_pte(lowered.pte, [x])
    with torch.no_grad():
        assert relative_max_error(got, model(x)) < 1e-4
    return lowered


def test_hieras_rank5_attention_lowers_and_matches_eager():
    torch.manual_seed(0)
    lowered = _lowered_equal_to_eager(MaskUnitAttention().eval(), torch.randn(1, 32, 16))
    assert all(d.reason for d in lowered.partitioner.decisions if not d.supported)
    assert "FULLY_CONNECTED" in lowered.nnapi_operations


def test_without_the_rank_check_the_dry_run_refuses_what_lowering_cannot_take(monkeypatch):
    """A comparison reading a rank-5 partition value (held as a rank-4 view) was claimed and then
    failed in its builder (hiera's attention once did so; it is now delegated whole); with the
    rank check removed, the dry run of the partitions finds it and leaves it on the CPU with the
    lowering's own message, and the program still equals eager."""
    monkeypatch.setattr(nnapi_partitioner, "merged_view_refusal", lambda *args: None)

    def fn(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.exp(x)
        return y, y > 0.5

    x = torch.randn(1, 2, 3, 4, 5)
    lowered = lower(Lambda(fn), (x,))
    (reason,) = lowered.reasons["aten.gt.Scalar"]
    assert DRY_RUN_REASON in reason and "held as a merged view" in reason, reason
    assert lowered.num_delegates == 1 and "EXP" in lowered.nnapi_operations
    for got, want in zip(run_pte(lowered.pte, [x]), fn(x), strict=True):
        assert torch.equal(got, want)


def test_a_rank5_value_is_read_only_by_builders_that_read_its_view():
    def fn(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.exp(x)
        return y, y > 0.5

    program = to_edge(export(Lambda(fn), (torch.randn(1, 2, 3, 4, 5),))).exported_program()
    support = NnapiOperatorSupport(program, FeatureLevel.ANDROID_11)
    by_op = {aten_op(n): n for n in program.graph.nodes if n.op == "call_function"}
    assert support.refusal(by_op[aten.exp.default]) is None  # EXP on the view: the same bytes
    reason = support.refusal(by_op[aten.gt.Scalar])
    assert reason is not None and "has rank 5" in reason and "cannot read" in reason, reason


def test_a_builder_that_fails_leaves_its_node_on_the_cpu_with_the_failure(monkeypatch):
    builder = get_builder(aten.convolution.default)

    def broken_define(node, lc):
        raise LoweringError("a form this builder did not foresee")

    monkeypatch.setattr(builder, "define", broken_define)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(64, 5))
    lowered = _lowered_equal_to_eager(model.eval(), torch.randn(1, 3, 6, 6))
    (reason,) = lowered.reasons["aten.convolution.default"]
    assert DRY_RUN_REASON in reason and "a form this builder did not foresee" in reason, reason
    assert "aten.convolution.default" in lowered.cpu_ops and "FULLY_CONNECTED" in lowered.nnapi_operations


def test_a_failure_in_an_op_kept_whole_is_an_error_naming_it(monkeypatch):
    """An op to_edge kept whole for NNAPI (linear) cannot stay on the CPU: lowering stops with
    the node, the failure and why, not with ExecuTorch's "was not decomposed or delegated"."""
    builder = get_builder(aten.linear.default)

    def broken_define(node, lc):
        raise LoweringError("a form this builder did not foresee")

    monkeypatch.setattr(builder, "define", broken_define)
    with pytest.raises(KeptOpLoweringError, match=r"aten\.linear\.default.*a form this builder did not foresee"):
        lower(torch.nn.Linear(4, 3), (torch.randn(2, 4),))
