"""Ops whose bounds or sizes are computed at run time (issue 12, toward a dynamic swin_t in one subgraph).

``roll`` becomes two slices and a cat per dim (lowering/passes/composite_ops.py); ``slice_copy`` takes
a bound computed on the CPU (``x[:, :H]`` after a pad) or a negative constant on a symbolic dim;
``full`` / ``zeros`` / ``new_zeros`` of a symbolic size become FILL (API 30); ``t[a:b] = v``
(``slice_scatter`` of ``copy`` / ``fill`` after functionalization) becomes STRIDED_SLICE +
CONCATENATION. Each is lowered with static and dynamic shapes (torch.export Dim), run on the
host driver at several sizes and compared with eager; refusals are asserted with their reason.
"""

from __future__ import annotations

import pytest
import sympy
import torch
from torch._dynamo.source import ConstantSource
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.export import Dim, export
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
from torch.utils._sympy.value_ranges import ValueRanges

from executorch_nnapi.lowering.builders import CheckContext, Refused
from executorch_nnapi.lowering.builders.slice_scatter import SliceScatterBuilder
from executorch_nnapi.lowering.builders.slicing import slice_bounds, slice_index
from executorch_nnapi.lowering.passes.composite_ops import decompose_composites
from op_harness import Lambda, check_delegated_and_matches, lower

_GEN = torch.Generator().manual_seed(0)


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_GEN)


def dynamic_hw(step: int = 8, least: int = 2, most: int = 8) -> tuple[dict]:
    """Dims 1 and 2 of the one (NHWC-like) input as multiples of ``step`` (as swin's input)."""
    return ({1: step * Dim("kh", min=least, max=most), 2: step * Dim("kw", min=least, max=most)},)


SIZES = [(1, 16, 16, 4), (1, 16, 24, 4), (1, 40, 16, 4), (1, 64, 56, 4)]


def runs(shapes=SIZES) -> list[tuple[torch.Tensor]]:
    return [(randn(*s),) for s in shapes]


class Roll(torch.nn.Module):
    def __init__(self, shifts, dims) -> None:
        super().__init__()
        self.shifts, self.dims = shifts, dims

    def forward(self, x):
        return torch.roll(x * 2, shifts=self.shifts, dims=self.dims) + 1


class Unpad(torch.nn.Module):
    """swin's pad to a multiple of the window and the slice back to the input's size."""

    def forward(self, x):
        h, w = x.shape[1], x.shape[2]
        y = torch.nn.functional.pad(x * 2, (0, 0, 0, (7 - w % 7) % 7, 0, (7 - h % 7) % 7)) + 1
        return y[:, :h, :w, :]


class ShiftMask(torch.nn.Module):
    """swin's attention mask: zeros of the padded size, then nine block assignments with
    negative constant bounds (nested slice_scatter of copy after functionalization)."""

    def forward(self, x):
        h, w = x.shape[1], x.shape[2]
        ph, pw = h + (7 - h % 7) % 7, w + (7 - w % 7) % 7
        mask = x.new_zeros((ph, pw))
        count = 0
        for h0, h1 in ((0, -7), (-7, -3), (-3, None)):
            for w0, w1 in ((0, -7), (-7, -3), (-3, None)):
                mask[h0:h1, w0:w1] = count
                count += 1
        return x * 2 + mask[:h, :w].unsqueeze(-1)


class Assignments(torch.nn.Module):
    """``t[a:b] = v`` with a constant, a same-shape tensor and a broadcast tensor (slice_scatter
    of copy), and fill_ (slice_scatter of full_like)."""

    def forward(self, x):
        y = x * 2
        y[:, 1:3] = 0.5
        y[:, -4:-2] = x[:, :2] + 1
        y[:, :, -1:] = x[:, :1, :1, :] * 3
        y[:, 5:6] = x[0, 0, 0] - 2  # a lower-rank value: broadcast from trailing dims
        z = x + 1
        z[:, 2:5].fill_(-1.0)
        return y, z


class Zeros(torch.nn.Module):
    def forward(self, x):
        z = torch.zeros(x.shape[1], x.shape[2]) + x.new_zeros(x.shape[1], 1) + torch.full((1, x.shape[2]), 1.5)
        return x + z.unsqueeze(0).unsqueeze(-1)


class NegativeBounds(torch.nn.Module):
    """Constant negative bounds on symbolic dims: begin = h - 7, end = h - 3."""

    def forward(self, x):
        return x[:, -7:-3] * 3 + x[:, 2:-4][:, :4] - x[:, :4, -1:]


# (id, module, expected NNAPI operations with dynamic sizes)
CASES = [
    ("roll", Roll((3, -2), (1, 2)), ["STRIDED_SLICE", "CONCATENATION"]),
    ("roll_one_dim", Roll(-3, 2), ["STRIDED_SLICE", "CONCATENATION"]),
    ("unpad", Unpad(), ["PAD", "STRIDED_SLICE"]),
    ("negative_bounds", NegativeBounds(), ["STRIDED_SLICE"]),
    ("shift_mask", ShiftMask(), ["FILL", "CONCATENATION"]),
    ("assignments", Assignments(), ["CONCATENATION", "ADD"]),
    ("zeros", Zeros(), ["FILL"]),
]


@pytest.mark.parametrize("module, operations", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_dynamic_sizes(module, operations):
    lowered = check_delegated_and_matches(module, runs()[0], run_inputs=runs(), dynamic_shapes=dynamic_hw(),
                                          expect_operations=operations, allow_cpu_ops=("add", "sub", "mod"))
    assert lowered.num_delegates == 1
    assert "GATHER" not in lowered.nnapi_operations


@pytest.mark.parametrize("module, operations", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_static_sizes(module, operations):
    lowered = check_delegated_and_matches(module, (randn(1, 16, 16, 4),))
    assert lowered.num_delegates == 1
    # A static full / fill / copy of a constant is a constant: no FILL at run time.
    assert "FILL" not in lowered.nnapi_operations and "GATHER" not in lowered.nnapi_operations


def test_static_roll_by_more_than_the_size():
    """A static size allows any shift (taken modulo the size), negative ones included."""
    lowered = check_delegated_and_matches(Roll((19, -9), (1, 2)), (randn(1, 8, 6, 3),),
                                          expect_operations=["CONCATENATION"])
    assert "GATHER" not in lowered.nnapi_operations


def test_roll_by_the_least_size_or_more_is_left_to_torch():
    """|shift| >= the dim's least size: the constant slice bounds would not hold for every size."""
    x = randn(1, 16, 16, 4)
    ep = export(Roll((16, 1), (1, 2)), (x,), dynamic_shapes=dynamic_hw())
    assert decompose_composites(ep) >= 0
    rolls = [n for n in ep.graph.nodes if n.target is torch.ops.aten.roll.default]
    assert len(rolls) == 1
    ep = export(Roll((15, 1), (1, 2)), (x,), dynamic_shapes=dynamic_hw())
    decompose_composites(ep)
    assert not [n for n in ep.graph.nodes if n.target is torch.ops.aten.roll.default]


def test_symbolic_full_needs_api_30():
    lowered = lower(Zeros(), (randn(1, 16, 16, 4),), dynamic_shapes=dynamic_hw(), feature_level=29)
    reasons = lowered.reasons["aten.full.default"]
    assert reasons and all("full of a size computed at run time (FILL) needs API 30" in r for r in reasons)


def test_static_full_and_mask_need_no_fill_below_api_30():
    """Static sizes: the zeros and the assigned blocks are constants, so API 29 takes them."""
    check_delegated_and_matches(ShiftMask(), (randn(1, 16, 16, 4),), feature_level=29)


def test_strided_slice_scatter_is_refused_with_its_reason():
    def assign_every_other(x):
        y = x * 2
        y[:, ::2] = 0.5
        return y
    lowered = lower(Lambda(assign_every_other), (randn(1, 6, 4, 3),))
    assert lowered.reasons["aten.slice_scatter.default"] == [
        "slice_scatter with step 2 (only step 1 is a concatenation)"]


def _symbolic_width(least: int, most: int, hint: int):
    """A ShapeEnv with one size symbol ranging over [least, most], and that size as a SymInt."""
    env = ShapeEnv()
    symbol = env.create_symbol(hint, source=ConstantSource("w"), dynamic_dim=DimDynamic.DYNAMIC)
    env.var_to_range[symbol] = ValueRanges(least, most)
    return env, symbol, env.create_symintnode(symbol, hint=hint)


def _size_node(value) -> torch.fx.Node:
    node = torch.fx.Graph().placeholder("bound")
    node.meta["val"] = value
    return node


def test_slice_bound_of_undecidable_sign_is_refused_with_its_reason():
    """A bound computed at run time that may be negative or not: PyTorch would wrap it or not.
    (torch.export itself decides such a sign and narrows the range, so it is built here.)"""
    env, w, width = _symbolic_width(16, 64, 40)
    with pytest.raises(Refused, match=r"slice end s\d+ - 20 may be negative or not"):
        slice_index(_size_node(width - 20), w + 3, env, "end")


def test_slice_bounds_clamp_only_where_needed():
    env, w, width = _symbolic_width(16, 64, 40)
    size = w + 3
    assert slice_index(_size_node(width - 10), size, env, "end") == w - 10          # provably in [0, size]
    assert slice_index(_size_node(width - 70), size, env, "end") == sympy.Max(0, 2 * w - 67)  # wrapped, clamped
    assert slice_index(-7, size, env, "start") == w - 4                              # provably >= 0
    assert slice_index(-30, size, env, "start") == sympy.Max(0, w - 27)
    assert slice_index(30, w, env, "start") == sympy.Min(30, w)
    assert slice_index(10, w, env, "start") == 10
    assert slice_bounds(None, _size_node(width + 3), size, env) == (0, None)        # the whole dim


def test_slice_scatter_of_undecidable_emptiness_is_refused_with_its_reason():
    """``t[0:8] = v`` on a dim of size w in [4, 64]: the part after the slice may be empty or not."""
    env, _, width = _symbolic_width(4, 64, 40)
    with FakeTensorMode(shape_env=env):
        target, src = torch.empty(width, 3), torch.empty(8, 3)
    graph = torch.fx.Graph()
    nodes = [graph.placeholder(name) for name in ("target", "src")]
    for node, value in zip(nodes, (target, src)):
        node.meta["val"] = value
    scatter = graph.call_function(torch.ops.aten.slice_scatter.default, (*nodes, 0, 0, 8))
    scatter.meta["val"] = target
    with pytest.raises(Refused, match=r"cannot decide whether the part after the slice \(size s\d+ - 8\) is empty"):
        SliceScatterBuilder().check(scatter, CheckContext(30))
