"""F.interpolate(mode="bicubic") -> FULLY_CONNECTED per resized axis with constant cubic weights,
through the C++ backend on the host driver, against eager; and the refusals that leave it to
PyTorch's decomposition on the CPU, with the reason recorded.

Tolerance: eager and NNAPI both compute two 4-tap weighted sums per output in float32, in
different orders (FULLY_CONNECTED also adds the exact zeros of the other taps, and the clamped
border taps are summed into one weight beforehand). Each pass rounds at most ~4 times with
sum |w| <= 1.375 (t = 0.5: 0.09375 + 2 x 0.59375 + 0.09375), so the two differ by a few 1e-7 of
max |x| per pass; 1e-5 of the result's max keeps a margin of ~10x for FMA and vector widths
(AVX2 and AVX-512 sum in different groupings) without hiding a wrong weight (those are >= 1e-2).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

from op_harness import AfterConv, Lambda, check_delegated_and_matches, lower, relative_max_error, run_pte
from quantized_reference import output_step, quantize, within_one_step

from executorch_nnapi.lowering.builders.upsample_bicubic2d import bicubic_matrix
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from executorch_nnapi.partitioners import NnapiOperatorSupport, NnapiPartitioner
from executorch_nnapi.tools.report import delegation_report

TOLERANCE = 1e-5
BICUBIC = "aten.upsample_bicubic2d.vec"


def decomposed_reasons(lowered) -> dict[str, str]:
    """Node -> reason, for the bicubic nodes NNAPI refused (decomposed by to_edge for the CPU)."""
    return {d.node: d.reason for d in lowered.partitioner.decomposed if d.op == BICUBIC}


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


def bicubic(**kwargs):
    return Lambda(lambda x: F.interpolate(x, mode="bicubic", **kwargs))


CASES = [
    # (id, module, input shape, FULLY_CONNECTED count)
    ("up_by_size", bicubic(size=(9, 11)), (1, 2, 4, 5), 2),
    ("up_by_size_aligned", bicubic(size=(9, 11), align_corners=True), (1, 2, 4, 5), 2),
    ("up_by_scale_factor", bicubic(scale_factor=2), (1, 3, 6, 6), 2),
    ("up_by_scale_factor_aligned", bicubic(scale_factor=2, align_corners=True), (1, 3, 6, 6), 2),
    # 1 / 1.7 is not in / out here (7 -> 11): PyTorch maps coordinates with 1 / scale_factor.
    ("non_integer_scale_factors", bicubic(scale_factor=(1.7, 0.6)), (1, 2, 7, 10), 2),
    ("downscale", bicubic(size=(5, 3)), (1, 2, 16, 12), 2),
    ("downscale_aligned", bicubic(size=(5, 3), align_corners=True), (1, 2, 16, 12), 2),
    ("non_square_to_one_pixel", bicubic(size=(1, 6)), (1, 2, 5, 9), 2),
    ("height_only", bicubic(size=(12, 7)), (1, 3, 5, 7), 1),
    ("width_only", bicubic(scale_factor=(1, 3), align_corners=True), (1, 3, 5, 7), 1),
    ("batch_3", bicubic(size=(10, 6)), (3, 4, 5, 4), 2),
    ("same_size", bicubic(size=(5, 7)), (2, 3, 5, 7), 0),
    # 5 * 1.1 rounds down to 5, but PyTorch still samples at (x + 0.5) / 1.1 - 0.5: not a copy.
    ("same_size_resampled", bicubic(scale_factor=1.1), (1, 2, 5, 7), 2),
    ("mask_upscale_4x", bicubic(size=(256, 256), align_corners=False), (1, 3, 64, 64), 2),
]


@pytest.mark.parametrize("module, shape, fully_connected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bicubic_matches_eager(module, shape, fully_connected):
    lowered = check_delegated_and_matches(module, (randn(*shape),), tolerance=TOLERANCE)
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []
    assert lowered.nnapi_operations.count("FULLY_CONNECTED") == fully_connected, lowered.nnapi_operations


def test_bicubic_after_a_convolution_reads_its_nhwc_value():
    """The resize reads the NHWC value in place: one TRANSPOSE to (N, C, W, H) and one back to NCHW."""
    module = AfterConv(lambda y: torch.sigmoid(F.interpolate(y, size=(12, 10), mode="bicubic")))
    lowered = check_delegated_and_matches(module, (randn(2, 3, 6, 5),), tolerance=TOLERANCE)
    ops = lowered.nnapi_operations
    assert ops.count("FULLY_CONNECTED") == 2 and ops.count("TRANSPOSE") == 2, ops


def test_bicubic_with_a_dynamic_batch():
    module = bicubic(size=(8, 6), align_corners=True)
    batch = Dim("batch", min=1, max=8)
    runs = [(randn(n, 2, 4, 3),) for n in (2, 5, 1)]
    check_delegated_and_matches(module, runs[0], run_inputs=runs, dynamic_shapes=(({0: batch},),), tolerance=TOLERANCE)


def test_bicubic_matrix_rows_sum_to_one_and_clamp_at_the_border():
    """Cubic convolution weights sum to 1; the taps left of column 0 add to column 0's weight."""
    for in_size, out_size, aligned in [(4, 9, False), (16, 5, True), (3, 1, False), (7, 7, True)]:
        matrix = bicubic_matrix(in_size, out_size, aligned)
        torch.testing.assert_close(matrix.sum(1), torch.ones(out_size), rtol=0, atol=1e-6)
    # Output 0 of 4 -> 8 (no align_corners) samples x = -0.25: taps -2, -1, 0, 1 -> columns 0, 0, 0, 1.
    row = bicubic_matrix(4, 8, False)[0]
    assert row[2:].abs().max() == 0 and row[1] < 0 < row[0]
    # Aligned corners map output 0 to input 0 exactly.
    assert torch.equal(bicubic_matrix(5, 9, True)[0], torch.tensor([1.0, 0, 0, 0, 0]))


def test_dynamic_size_is_refused_with_its_reason_and_runs_on_the_cpu():
    """A dynamic height has no constant weights: the node is decomposed for the CPU, as before."""
    module = bicubic(size=(12, 8))
    height = Dim("h", min=3, max=16)
    lowered = lower(module, (randn(1, 2, 6, 5),), dynamic_shapes=(({2: height},),))
    (reason,) = decomposed_reasons(lowered).values()
    assert reason.startswith("upsample_bicubic2d with a dynamic height (") and reason.endswith(
        " -> 12): its interpolation weights are constants computed from static sizes; left to torch's decomposition"), reason
    assert "aten.index.Tensor" in lowered.cpu_ops and BICUBIC not in lowered.cpu_ops
    for h in (6, 3, 16):
        x = randn(1, 2, h, 5)
        (got,) = run_pte(lowered.pte, [x])
        assert relative_max_error(got, module(x)) < TOLERANCE


def test_a_refused_node_decomposes_every_node_of_the_op_with_the_reason():
    """to_edge keeps an op whole or not at all: a static resize beside a refused one is decomposed
    too, and its reason names the refused node."""
    module = Lambda(lambda x, y: (F.interpolate(x, size=(12, 8), mode="bicubic"),
                                  F.interpolate(y, scale_factor=2, mode="bicubic")))
    inputs = (randn(1, 2, 6, 5), randn(1, 2, 3, 4))
    lowered = lower(module, inputs, dynamic_shapes=(({2: Dim("h", min=3, max=16)}, None),))
    reasons = decomposed_reasons(lowered)
    assert len(reasons) == 2, reasons
    assert reasons["upsample_bicubic2d"].startswith("upsample_bicubic2d with a dynamic height"), reasons
    assert reasons["upsample_bicubic2d_1"].startswith("decomposed with upsample_bicubic2d, which NNAPI refuses"), reasons
    outputs = run_pte(lowered.pte, list(inputs))
    for got, want in zip(outputs, module(*inputs)):
        assert relative_max_error(got, want) < TOLERANCE


def test_float64_is_refused_and_runs_on_the_cpu():
    module = bicubic(size=(7, 9), align_corners=True)
    x = randn(1, 2, 4, 5).double()
    lowered = lower(module, (x,))
    assert lowered.num_delegates == 0
    (reason,) = decomposed_reasons(lowered).values()
    assert "float64" in reason, reason
    (got,) = run_pte(lowered.pte, [x])
    assert relative_max_error(got, module(x)) < 1e-12


def test_a_weight_matrix_over_2_to_the_24_elements_is_refused():
    """5000 -> 4000 columns would be a 4000 x 5000 constant (80 MB): left to the CPU's gathers."""
    module = bicubic(size=(2, 4000))
    x = randn(1, 1, 2, 5000)
    lowered = lower(module, (x,))
    (reason,) = decomposed_reasons(lowered).values()
    assert reason.startswith("upsample_bicubic2d of width 5000 -> 4000: its 4000x5000 weight matrix exceeds 2^24"), reason
    (got,) = run_pte(lowered.pte, [x])
    assert relative_max_error(got, module(x)) < TOLERANCE


def test_below_api_28_is_not_kept_and_says_why():
    """A non-core op is kept only at its level, so below API 28 torch decomposes it before the
    partitioner sees it; asked about the node itself, the builder names the level."""
    program = torch.export.export(bicubic(size=(7, 9)), (randn(1, 2, 4, 5),))
    kept, _ = NnapiPartitioner(feature_level=27).ops_to_not_decompose(program)
    assert torch.ops.aten.upsample_bicubic2d.vec not in kept
    program = torch.export.export(bicubic(size=(7, 9)), (randn(1, 2, 4, 5),))
    (node,) = [n for n in program.graph.nodes if n.target == torch.ops.aten.upsample_bicubic2d.vec]
    assert NnapiOperatorSupport(program, FeatureLevel.ANDROID_8_1).refusal(node) == (
        f"{BICUBIC} needs API 28 (Android 9); the target is API 27 (Android 8.1)")


class ResizedEmbedding(torch.nn.Module):
    """A learned 7x7 table resized to the input's grid and added (EfficientSAM's position embedding):
    the resize reads a parameter only, so it is computed at lowering time inside the delegate."""

    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Parameter(randn(1, 4, 7, 7))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + F.interpolate(self.table, size=x.shape[2:], mode="bicubic", align_corners=False)


def test_a_constant_resize_read_inside_the_delegate_is_computed_at_lowering_time():
    lowered = check_delegated_and_matches(ResizedEmbedding(), (randn(2, 4, 12, 10),), tolerance=TOLERANCE)
    assert lowered.nnapi_operations == ["ADD"] and lowered.partitioner.decomposed == []


def test_a_constant_resize_nothing_delegated_reads_runs_on_the_cpu():
    """A constant computation alone is no partition: the op is left to the decomposition (whose
    parts have CPU kernels), and the resize of the input beside it with it."""
    table = randn(1, 2, 3, 3)
    module = Lambda(lambda x: (F.interpolate(table, size=(5, 5), mode="bicubic"),
                               F.interpolate(x, size=(5, 5), mode="bicubic")))
    x = randn(1, 2, 3, 4)
    lowered = lower(module, (x,))
    assert "aten.index.Tensor" in lowered.cpu_ops
    for got, want in zip(run_pte(lowered.pte, [x]), module(x)):
        assert relative_max_error(got, want) < TOLERANCE


class ConvBicubicConv(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(F.interpolate(self.conv1(x), size=(20, 16), mode="bicubic"))


def test_in_an_8bit_model_the_resize_is_a_float_island_inside_the_partition():
    """NnapiQuantizer leaves the resize unannotated (its declaration: stays float), so convert_pt2e
    gives dq -> resize -> q: DEQUANTIZE, the float FULLY_CONNECTEDs and QUANTIZE in the same
    model as the 8-bit convolutions, the result within one output step of convert_pt2e's."""
    torch.manual_seed(0)
    x = (randn(1, 3, 12, 10),)
    gm = quantize(ConvBicubicConv().eval(), x, signed=False, feature_level=30)
    lowered = lower(gm, x)
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1, lowered.cpu_ops
    precisions = list(zip(lowered.blobs[0].operation_types, lowered.blobs[0].operation_precisions))
    assert [op for op, p in precisions if p == "8-bit" and op != "TRANSPOSE"] == ["CONV_2D", "CONV_2D"]
    assert [op for op, p in precisions if op == "FULLY_CONNECTED"] == ["FULLY_CONNECTED"] * 2
    assert all(p == "float" for op, p in precisions if op == "FULLY_CONNECTED")
    (partition,) = delegation_report(lowered.edge, lowered.partitioner.decisions).partitions
    assert list(partition.float_islands) == [BICUBIC]
    (got,) = run_pte(lowered.pte, list(x))
    with torch.no_grad():
        want = gm(*x)
    assert within_one_step(want, got, output_step(gm)) == 1.0
