"""torch.while_loop with PyTorch's default int64 counter -> WHILE (API 30): the counter is held in
TENSOR_INT32 when the loop's condition bounds it (``i < n`` proves ``i + 1 <= max(n)`` inside the
body; lowering/builders/integer_ranges.py), widened back to int64 by the runtime; a counter the
condition does not bound stops lowering with the bounds it may reach (docs/control_flow.md)."""

from __future__ import annotations

import pytest
import torch

from op_harness import check_delegated_and_matches, lower, run_pte
from executorch_nnapi.partitioners.cpu_kernels import NoCpuKernelError


class CountToN(torch.nn.Module):
    """while i < n: i += 1; acc = acc * 0.5 + b, with i an int64 zeros(1) and n an int64 input."""

    def forward(self, n: torch.Tensor, x: torch.Tensor, b: torch.Tensor):
        def cond_fn(i, acc, n, b):
            return (i < n).all()

        def body_fn(i, acc, n, b):
            return i + 1, acc * 0.5 + b

        return torch.ops.higher_order.while_loop(cond_fn, body_fn, (torch.zeros(1, dtype=torch.int64), x), (n, b))


def test_int64_counter_bounded_by_an_int64_input_runs_in_int32():
    x, b = torch.randn(2, 3), torch.randn(2, 3)
    runs = [(torch.tensor([n]), x, b) for n in (0, 1, 5)]
    lowered = check_delegated_and_matches(CountToN(), runs[1], run_inputs=runs, expect_operations=["WHILE"])
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []
    assert [sorted(set(ops)) for ops in lowered.blobs[0].subgraph_operation_types] == [
        ["LESS", "LOGICAL_NOT", "REDUCE_ANY"], ["ADD", "MUL"]]
    # n in, i out: the program's int64 (ScalarType::Long) in TENSOR_INT32 (OperandCode 4).
    assert lowered.blobs[0].input_types[0] == (4, 4) and lowered.blobs[0].output_types[0] == (4, 4)
    count, _ = run_pte(lowered.pte, runs[2])
    assert count.dtype == torch.int64 and count.tolist() == [5]


class CountDownFromZeroD(torch.nn.Module):
    """A 0-d int64 counter from torch.tensor(10) down while ``i > 3`` (a number bound)."""

    def forward(self, x: torch.Tensor):
        return torch.ops.higher_order.while_loop(lambda i, acc: i > 3, lambda i, acc: (i - 1, acc + 1),
                                                 (torch.tensor(10), x), ())


def test_zero_d_counter_bounded_below_by_a_number():
    x = torch.randn(3)
    lowered = check_delegated_and_matches(CountDownFromZeroD(), (x,), expect_operations=["WHILE"])
    count, acc = run_pte(lowered.pte, [x])
    assert count.shape == () and count.item() == 3
    torch.testing.assert_close(acc, x + 7)


class Doubling(torch.nn.Module):
    """while i < n: i = 2 i + 1: below n, 2 i + 1 may still exceed int32."""

    def forward(self, n: torch.Tensor, x: torch.Tensor):
        return torch.ops.higher_order.while_loop(lambda i, acc, n: (i < n).all(),
                                                 lambda i, acc, n: (i * 2 + 1, acc * 0.5),
                                                 (torch.zeros(1, dtype=torch.int64), x), (n,))


def test_counter_the_condition_does_not_keep_in_int32_stops_lowering_with_its_bounds():
    with pytest.raises(NoCpuKernelError) as info:
        lower(Doubling(), (torch.tensor([9]), torch.randn(2)))
    message = str(info.value)
    assert "\n" not in message
    assert "body (submodule_1): aten_mul_tensor (aten.mul.Tensor): int64 result in [-4294967296, 4294967292] " \
           "may not fit int32" in message
    assert "from arg0_1 in [INT32_MIN, 2147483646]" in message  # i < n, n at most INT32_MAX
