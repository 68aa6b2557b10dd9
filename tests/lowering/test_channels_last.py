"""Channels-last tensors at a partition's edge: a model exported with channels-last inputs,
or asking for channels-last outputs, hands them to NNAPI's NHWC operands and back as they
are stored; the runtime permutes only where the two orders differ."""

from __future__ import annotations

import torch
from torch.export import Dim

from op_harness import Lambda, lower, relative_max_error, run_pte

NHWC = (0, 2, 3, 1)
CHANNELS_LAST = torch.channels_last


class ConvBlock(torch.nn.Module):
    def __init__(self, out_format=None) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 4, 1)
        self.out_format = out_format

    def forward(self, x):
        y = self.conv2(torch.relu(self.conv(x)))
        return y.contiguous(memory_format=self.out_format) if self.out_format is not None else y


def _program_dim_orders(lowered):
    """(input dim orders, output dim orders) of the .pte's own tensors, from its flatbuffer."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    plan = deserialize_pte_binary(lowered.pte).program.execution_plan[0]
    orders = [tuple(getattr(v.val, "dim_order", ()) or ()) for v in plan.values]
    return [orders[i] for i in plan.inputs], [orders[i] for i in plan.outputs]


def test_channels_last_input_and_output_cross_the_boundary_unpermuted():
    model = ConvBlock().eval()
    x = torch.randn(1, 3, 12, 10).to(memory_format=CHANNELS_LAST)
    lowered = lower(model, (x,))
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1
    blob = lowered.blobs[0]
    assert blob.count("TRANSPOSE") == 0
    inputs, outputs = _program_dim_orders(lowered)
    # NNAPI holds the operands in NHWC, and the program's tensors are stored NHWC: no permute.
    assert blob.input_dim_orders == [NHWC] and inputs == [NHWC]
    assert blob.output_dim_orders == [NHWC] and outputs == [NHWC]
    for shape in [(1, 3, 12, 10)]:
        x2 = torch.randn(shape).to(memory_format=CHANNELS_LAST)
        (got,) = run_pte(lowered.pte, [x2])
        assert got.is_contiguous(memory_format=CHANNELS_LAST)
        assert relative_max_error(got, model(x2)) < 1e-5


def test_channels_last_input_with_dynamic_size():
    model = ConvBlock().eval()
    x = torch.randn(1, 3, 16, 16).to(memory_format=CHANNELS_LAST)
    h, w = Dim("h", min=4, max=64), Dim("w", min=4, max=64)
    lowered = lower(model, (x,), dynamic_shapes={"x": {2: h, 3: w}})
    assert lowered.cpu_ops == [] and lowered.blobs[0].input_dim_orders == [NHWC]
    for size in [(1, 3, 5, 9), (1, 3, 64, 33)]:
        x2 = torch.randn(size).to(memory_format=CHANNELS_LAST)
        (got,) = run_pte(lowered.pte, [x2])
        assert got.shape == (1, 4, *size[2:])
        assert relative_max_error(got, model(x2)) < 1e-5


def test_asked_for_channels_last_output_from_a_contiguous_input():
    model = ConvBlock(out_format=CHANNELS_LAST).eval()
    x = torch.randn(1, 3, 9, 7)
    lowered = lower(model, (x,))
    assert lowered.cpu_ops == [], lowered.reasons        # the layout copy is an alias in NNAPI
    inputs, outputs = _program_dim_orders(lowered)
    assert inputs == [(0, 1, 2, 3)] and lowered.blobs[0].input_dim_orders == [NHWC]   # permuted in
    assert outputs == [NHWC] and lowered.blobs[0].output_dim_orders == [NHWC]          # as produced
    (got,) = run_pte(lowered.pte, [x])
    assert got.is_contiguous(memory_format=CHANNELS_LAST)
    assert relative_max_error(got, model(x)) < 1e-5


def test_channels_last_copy_of_an_elementwise_result_is_permuted_out():
    """NNAPI produces this value in PyTorch's order; the runtime writes it channels-last."""
    fn = Lambda(lambda x: (x + 1).contiguous(memory_format=CHANNELS_LAST) * 2)
    x = torch.randn(1, 8, 3, 3)
    lowered = lower(fn, (x,))
    assert lowered.cpu_ops == []
    assert lowered.blobs[0].output_dim_orders in ([()], [(0, 1, 2, 3)])
    (got,) = run_pte(lowered.pte, [x])
    assert got.is_contiguous(memory_format=CHANNELS_LAST)
    assert relative_max_error(got, (x + 1) * 2) < 1e-6
