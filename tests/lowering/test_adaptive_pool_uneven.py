"""adaptive_avg_pool2d whose output size does not divide its input size (CSATv2's spatial
attention pools 16x16 and 32x32 to 7x7; builders/adaptive_avg_pool2d.py): windows of one size at
one step are one AVERAGE_POOL_2D (8 -> 7, 64 -> 7); uneven windows are constant pooling matrices
(DEPTHWISE_CONV_2D); a mixed pair pools the even axis first. Each form lowered at API 27, 28 and
30, its NNAPI operations checked, run on the host driver and compared with eager.

Tolerance 1e-5 of the result's max: PyTorch divides each window's sum by its size, the matrix
form adds x / size per axis, in float32: a few 1e-7 apart; a wrong window moves the result by
1e-2 or more.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import executorch.kernels.quantized  # noqa: F401  (CPU kernels of the quantize / dequantize NNAPI leaves)
from op_harness import AfterConv, Lambda, check_delegated_and_matches, lower, run_pte
from quantized_reference import output_step, quantize, quantized_inside

from executorch_nnapi.lowering.builders.adaptive_avg_pool2d import adaptive_windows, pooling_matrix, uniform_window

TOLERANCE = 1e-5
POOL = "aten._adaptive_avg_pool2d.default"


def pool(size) -> Lambda:
    return Lambda(lambda x: F.adaptive_avg_pool2d(x, size))


def test_windows_and_matrices_are_pytorchs() -> None:
    """Every (size, output) up to 40: the matrix is PyTorch's pooling along one axis, and an axis
    called uniform is one average pool of that kernel and stride."""
    torch.manual_seed(0)
    uniform = 0
    for n in range(1, 41):
        x = torch.randn(1, 1, n, 3)
        for o in range(1, n + 1):
            want = F.adaptive_avg_pool2d(x, (o, 3))
            assert torch.allclose(torch.einsum("oh,nchw->ncow", pooling_matrix(n, o), x), want, atol=1e-6), (n, o)
            window = uniform_window(n, o)
            if window:
                uniform += 1
                assert torch.allclose(F.avg_pool2d(x, (window[0], 1), (window[1], 1)), want, atol=1e-6), (n, o)
    assert uniform > 200          # divisors and more (8 -> 7, 64 -> 7)
    assert uniform_window(8, 7) == (2, 1) and uniform_window(64, 7) == (10, 9)
    assert uniform_window(16, 7) is None and adaptive_windows(16, 7)[3] == (6, 10)


EVEN = ["AVERAGE_POOL_2D"]
UNEVEN_27 = ["DEPTHWISE_CONV_2D", "RESHAPE"] * 4        # height product, one-hot move, width product, move
UNEVEN_28 = ["DEPTHWISE_CONV_2D", "RESHAPE", "TRANSPOSE"] * 2
# One axis uneven, the other even (pooled first) or kept: at API 28 one product and one TRANSPOSE.
ONE_AXIS_28 = ["DEPTHWISE_CONV_2D", "RESHAPE", "TRANSPOSE"]


class Pools(torch.nn.Module):
    """Each input ([N, C, H, W]) pooled to its output size; the first through a 3x3 convolution
    (an NHWC value inside NNAPI). One lowering covers several forms."""

    def __init__(self, sizes, channels: int) -> None:
        super().__init__()
        self.sizes = sizes
        self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, *xs):
        return tuple(F.adaptive_avg_pool2d(self.conv(x) if i == 0 else x, size)
                     for i, (x, size) in enumerate(zip(xs, self.sizes)))


CASES = [
    # (id, level, [(input shape, output size)], NNAPI operations)
    ("api27", 27, [((1, 2, 32, 32), 7),            # CSATv2's 32 -> 7: uneven (5, 6, 5, 6, 5, 6, 5)
                   ((1, 2, 8, 8), 7),              # overlapping even windows (kernel 2, stride 1)
                   ((1, 3, 16, 12), (7, 4))],      # width even, pooled first; height uneven
     ["CONV_2D", *UNEVEN_27, *EVEN, *EVEN, *UNEVEN_27]),
    ("api28", 28, [((2, 4, 8, 13), (3, 5)),
                   ((1, 3, 12, 16), (4, 7)),       # height even, pooled first; width uneven
                   ((1, 1, 12, 12), 5)],           # one channel: the moves are RESHAPEs
     ["CONV_2D", *UNEVEN_28, *EVEN, *ONE_AXIS_28, *["DEPTHWISE_CONV_2D", "RESHAPE"] * 2]),
    ("api30", 30, [((1, 2, 16, 16), 7),            # CSATv2's 16 -> 7
                   ((2, 3, 64, 64), 7),            # even, not dividing (kernel 10, stride 9)
                   ((2, 3, 16, 12), (7, 4)),
                   ((1, 2, 6, 9), (6, 5))],        # height kept
     ["CONV_2D", *UNEVEN_28, *EVEN, *EVEN, *ONE_AXIS_28, *ONE_AXIS_28]),
]


@pytest.mark.parametrize("name,level,pools,operations", CASES, ids=[c[0] for c in CASES])
def test_adaptive_pool(name, level, pools, operations) -> None:
    torch.manual_seed(0)
    module = Pools([size for _, size in pools], pools[0][0][1])
    shapes = [shape for shape, _ in pools]
    low = check_delegated_and_matches(module, tuple(torch.randn(*s) for s in shapes),
                                      run_inputs=[tuple(torch.randn(*s) * 3 for s in shapes)],
                                      feature_level=level, tolerance=TOLERANCE)
    assert low.num_delegates == 1 and low.nnapi_operations == operations, low.nnapi_operations


def test_dynamic_size_stays_on_the_cpu_with_reason() -> None:
    h = Dim("h", min=8, max=32)
    low = lower(pool(7), (torch.randn(1, 2, 16, 16),), dynamic_shapes=(({2: h},),))
    assert low.cpu_ops == [POOL]
    (reason,) = low.reasons[POOL]
    assert "dynamic" in reason and "windows depend on the sizes" in reason


@pytest.mark.parametrize("size,shape,inside", [(7, (1, 4, 8, 8), "AVERAGE_POOL_2D"), (7, (1, 4, 16, 16), None)],
                         ids=["even_in_8_bits", "uneven_stays_float"])
def test_quantized(size, shape, inside) -> None:
    """Even windows pool the 8-bit codes (one rounding per window, as convert_pt2e: within one
    output step); uneven ones are left float by the quantizer and pool the dequantized values in
    float inside the partition."""
    torch.manual_seed(0)
    example = (torch.randn(*shape),)
    gm = quantize(AfterConv(lambda y: F.adaptive_avg_pool2d(y, size), 4, 4), example, signed=False, feature_level=30)
    low = lower(gm, example)
    assert low.num_delegates == 1 and low.cpu_ops == [], (low.cpu_ops, low.reasons)
    if inside:
        assert inside in quantized_inside(low.raw_blobs[0])
    else:
        assert {"DEQUANTIZE", "DEPTHWISE_CONV_2D", "QUANTIZE"} <= set(low.nnapi_operations)
    inputs = (torch.randn(*shape) * 2,)
    got, want = run_pte(low.pte, list(inputs))[0], gm(*inputs)
    if inside:
        assert (got - want).abs().max().item() <= output_step(gm) * 1.0001
    else:
        # The float pool of the dequantized convolution: its codes may differ by one step from
        # convert_pt2e's, and so may an average of them.
        pooled = next(n for n in gm.graph.nodes if n.target == torch.ops.aten.adaptive_avg_pool2d.default)
        assert (got - want).abs().max().item() <= float(pooled.args[0].args[1]) * 1.0001
