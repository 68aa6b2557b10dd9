"""torch.cond -> IF and torch.while_loop -> WHILE (API 30): lowered, delegated whole, run through
the C++ backend on the host driver and compared with eager; below API 30 a cond stays on the CPU
and a loop stops lowering with one line (docs/control_flow.md)."""

from __future__ import annotations

import pytest
import torch

from op_harness import check_delegated_and_matches, lower, run_pte
from executorch_nnapi.partitioners.cpu_kernels import NoCpuKernelError


class CondModel(torch.nn.Module):
    """A conv, then a branch on the sign of its sum: relu(y) * w + x or y - 2 * x."""

    def __init__(self) -> None:
        super().__init__()
        # Fixed weights: the tests need inputs taking both branches, which random weights whose
        # bias dominates may not give (a CI run drew such weights from its worker's RNG state).
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.w = torch.nn.Parameter(torch.randn(4, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)

        def then_branch(y, x):
            return torch.relu(y) * self.w + x.mean(1, keepdim=True)

        def else_branch(y, x):
            return y - 2 * x.mean(1, keepdim=True)

        return torch.cond(y.sum() > 0, then_branch, else_branch, (y, x)) + 1


def _inputs_taking(model: torch.nn.Module, taken: bool) -> tuple[torch.Tensor]:
    """An input whose conv output sums to a positive (taken) or negative value."""
    for seed in range(100):
        x = torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(seed)) * 3
        if bool(model.conv(x).sum() > 0) == taken:
            return (x,)
    raise AssertionError("no input takes the branch")


def test_cond_becomes_if_and_matches_eager_on_both_branches():
    model = CondModel().eval()
    runs = [_inputs_taking(model, True), _inputs_taking(model, False)]
    lowered = check_delegated_and_matches(model, runs[0], run_inputs=runs, expect_operations=["IF"])
    assert lowered.num_delegates == 1
    (blob,) = lowered.blobs
    assert blob.schema_version == 3 and blob.min_feature_level == 30
    # The branches are referenced models emitted by the same builders.
    assert [sorted(set(ops)) for ops in blob.subgraph_operation_types] == [["ADD", "MEAN", "MUL", "RELU"], ["MEAN", "MUL", "SUB"]]


def test_cond_below_api_30_stays_on_the_cpu_and_runs():
    model = CondModel().eval()
    lowered = lower(model, _inputs_taking(model, True), feature_level=29)
    assert "cond" in lowered.cpu_ops
    assert lowered.reasons["cond"] == ["cond needs API 30 (Android 11); the target is API 29 (Android 10)"]
    assert lowered.num_delegates >= 1  # the conv and the predicate around it still go to NNAPI
    for taken in (True, False):
        inputs = _inputs_taking(model, taken)
        (out,) = run_pte(lowered.pte, inputs, 29)
        torch.testing.assert_close(out, model(*inputs), rtol=1e-4, atol=1e-4)


class CondWithErf(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.sum() > 0, lambda x: torch.erf(x), lambda x: x * 2, (x,))


def test_cond_with_a_branch_nnapi_lacks_stays_on_the_cpu_with_the_reason():
    lowered = lower(CondWithErf(), (torch.randn(2, 5),))
    assert "cond" in lowered.cpu_ops
    (reason,) = lowered.reasons["cond"]
    assert reason.startswith("true branch (submodule_0): aten_erf_default (aten.erf.default): ")
    for x in (torch.rand(2, 5), -torch.rand(2, 5)):
        (out,) = run_pte(lowered.pte, (x,))
        torch.testing.assert_close(out, CondWithErf()(x))


class CountingLoop(torch.nn.Module):
    """while i < n: i += 1; acc = acc * 0.5 + b (an int32 counter and a tensor carried)."""

    def forward(self, n: torch.Tensor, x: torch.Tensor, b: torch.Tensor):
        def cond_fn(i, acc, n, b):
            return (i < n).all()

        def body_fn(i, acc, n, b):
            return i + 1, acc * 0.5 + b

        return torch.ops.higher_order.while_loop(cond_fn, body_fn, (torch.zeros(1, dtype=torch.int32), x), (n, b))


def _count(n: int) -> torch.Tensor:
    return torch.tensor([n], dtype=torch.int32)


def test_while_loop_becomes_while_and_matches_eager_for_several_trip_counts():
    x, b = torch.randn(2, 3), torch.randn(2, 3)
    runs = [(_count(n), x, b) for n in (0, 1, 5)]
    lowered = check_delegated_and_matches(CountingLoop(), runs[1], run_inputs=runs, expect_operations=["WHILE"])
    assert lowered.num_delegates == 1
    assert [sorted(set(ops)) for ops in lowered.blobs[0].subgraph_operation_types] == [
        ["LESS", "LOGICAL_NOT", "REDUCE_ANY"], ["ADD", "MUL"]]


def test_while_loop_below_api_30_stops_lowering_with_one_line():
    with pytest.raises(NoCpuKernelError) as info:
        lower(CountingLoop(), (_count(2), torch.randn(2, 3), torch.randn(2, 3)), feature_level=29)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("while_loop (while_loop, ")
    assert "test_control_flow.py" in message and "in forward" in message
    assert "while_loop needs API 30 (Android 11); the target is API 29 (Android 10)" in message


class LoopWithErf(torch.nn.Module):
    def forward(self, n: torch.Tensor, x: torch.Tensor):
        return torch.ops.higher_order.while_loop(
            lambda i, acc, n: (i < n).all(), lambda i, acc, n: (i + 1, torch.erf(acc)),
            (torch.zeros(1, dtype=torch.int32), x), (n,))


def test_while_loop_with_an_op_nnapi_lacks_stops_lowering_naming_it():
    with pytest.raises(NoCpuKernelError) as info:
        lower(LoopWithErf(), (_count(2), torch.randn(2, 3)))
    message = str(info.value)
    assert "\n" not in message
    assert "body (submodule_1): aten_erf_default (aten.erf.default): NNAPI has no erf operation" in message


def test_delegation_report_names_each_body_and_what_it_holds():
    from executorch_nnapi.tools.report import delegation_report

    x, b = torch.randn(2, 3), torch.randn(2, 3)
    lowered = lower(CountingLoop(), (_count(3), x, b))
    text = delegation_report(lowered.edge, lowered.partitioner.decisions).format()
    assert "    WHILE while_loop: condition (submodule_0): aten aten.any.dims x1, aten.logical_not.default x2, " \
           "aten.lt.Tensor x1 -> nnapi LESS x1, LOGICAL_NOT x2, REDUCE_ANY x1" in text
    assert "    WHILE while_loop: body (submodule_1): aten aten.add.Tensor x2, aten.mul.Tensor x1, " \
           "dim_order_ops._to_dim_order_copy.default x1 -> nnapi ADD x2, MUL x1" in text


def test_loop_timeout_option_aborts_a_loop_that_runs_too_long():
    from torch.export import export
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime
    from executorch_nnapi.partitioners import NnapiPartitioner

    x, b = torch.randn(2, 3), torch.randn(2, 3)
    ep = export(CountingLoop(), (_count(3), x, b))
    pte = to_edge_transform_and_lower(ep, partitioner=[NnapiPartitioner(loop_timeout_ms=500)]).to_executorch()
    program = Runtime.get().load_program(pte.buffer)
    method = program.load_method("forward")
    torch.testing.assert_close(method.execute([_count(3), x, b])[1], CountingLoop()(_count(3), x, b)[1])
    with pytest.raises(RuntimeError):
        method.execute([_count(2**31 - 1), x, b])  # about 2**31 iterations: far beyond 500 ms
