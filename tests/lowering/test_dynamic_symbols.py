"""Partitions that need a symbolic size only the program's input carries (issue 12, item 5).

A partition after a CPU op may see only derived sizes (``h // 2`` after a stride-2 pooling):
the shape program then recovers ``h`` as the least value giving that size, or reads it from
an integer argument (a SymInt the CPU computed, e.g. for a view: ``ArgKind.INT``). Each model
here lowers to two subgraphs around one CPU op (erf: NNAPI has none) and matches eager at
several sizes, odd ones included (``h // 2`` is then not ``h / 2``).
"""

from __future__ import annotations

import itertools

import pytest
import sympy
import torch
from torch.export import Dim
from torch.utils._sympy.functions import CeilDiv, FloorDiv

from executorch_nnapi.blob.ArgKind import ArgKind
from executorch_nnapi.blob.Blob import Blob
from executorch_nnapi.lowering.shape_program import ShapeProgramBuilder, evaluate, recoverable_symbols
from op_harness import lower, relative_max_error, run_pte

s0, s1 = sympy.symbols("s0 s1", integer=True, positive=True)


@pytest.mark.parametrize("size", [FloorDiv(s0, 2), FloorDiv(s0 - 1, 2) + 1, FloorDiv(FloorDiv(s0, 2) - 3, 4),
                                  CeilDiv(s0, 3), 3 * FloorDiv(s0, 2) + 1])
def test_symbol_recovered_from_a_monotone_size(size):
    """The least h giving the input size reproduces every other size of it (the DimCheck holds)."""
    program = ShapeProgramBuilder(export_ranges={"s0": (16, 200)})
    program.bind_input(0, [1, size])
    program.finish_inputs()
    assert [s.name for s in program.symbols] == ["s0"]
    other = program.expression(FloorDiv(size, 2) * 3 + 1)
    for h in range(16, 201):
        dims = [[1, int(size.subs(s0, h))]]
        (chosen,) = [evaluate(program.expressions[s.definition].code, [], dims) for s in program.symbols]
        assert 16 <= chosen <= 200
        for check in program.checks:
            assert evaluate(program.expressions[check.expression].code, [chosen], dims) == dims[check.arg][check.dim]
        assert evaluate(program.expressions[other].code, [chosen], dims) == int((FloorDiv(size, 2) * 3 + 1).subs(s0, h))


def test_symbol_seen_only_through_several_monotone_sizes_satisfies_them_all():
    """h // 8 alone allows h = 8t..8t+7, but h // 2 narrows it: the symbol is the largest of
    the sizes' least preimages, whichever input comes first (swin_v2_t's window grids at
    three scales, 8 * ceil(s / 8), 8 * ceil(2 s / 8), 8 * ceil(4 s / 8), once failed at s = 14)."""
    rounded = [8 * CeilDiv(k * s0, 8) for k in (1, 2, 4)]
    for sizes in ([FloorDiv(s0, 8), FloorDiv(s0, 2)], [FloorDiv(s0, 2), FloorDiv(s0, 8)], rounded, rounded[::-1]):
        program = ShapeProgramBuilder(export_ranges={"s0": (2, 64)})
        program.bind_input(0, [1, sizes[0]])
        for arg, size in enumerate(sizes[1:], start=1):
            program.bind_input(arg, [size])
        program.finish_inputs()
        for h in range(16, 65):
            dims = [[1, int(sizes[0].subs(s0, h))], *[[int(size.subs(s0, h))] for size in sizes[1:]]]
            (chosen,) = [evaluate(program.expressions[s.definition].code, [], dims) for s in program.symbols]
            for check in program.checks:
                assert evaluate(program.expressions[check.expression].code, [chosen], dims) == dims[check.arg][check.dim], \
                    f"{sizes} at h = {h}: chose {chosen}"


def test_non_monotone_or_two_symbol_sizes_reveal_nothing():
    assert recoverable_symbols([s0 * s1, s0 % 7, s0 * s0, FloorDiv(s0, 2) + FloorDiv(s0, 3)]) == set()
    assert recoverable_symbols([FloorDiv(s0, 2), 2 * s1 + 1, 5]) == {"s0", "s1"}


def test_integer_argument_defines_a_symbol():
    """A SymInt argument (ArgKind.INT) is a one-dimensional input whose size is its value."""
    program = ShapeProgramBuilder()
    program.bind_input(0, [FloorDiv(s0 * s1, 2)])   # reveals neither
    program.bind_input(1, [s1], optional=True)       # the integer argument s1
    program.bind_input(2, [s0 * s1], optional=True)  # checked once s0 is known
    program.bind_input(3, [s0 - 1], optional=True)   # reveals s0
    program.finish_inputs()
    assert sorted(s.name for s in program.symbols) == ["s0", "s1"]
    dims = [[(9 * 5) // 2], [5], [45], [8]]
    values = {s.name: evaluate(program.expressions[s.definition].code, [], dims) for s in program.symbols}
    assert values == {"s0": 9, "s1": 5}
    # Argument 1 is s1 itself; the others are checked against the symbols.
    assert {(c.arg, c.dim) for c in program.checks} == {(0, 0), (2, 0), (3, 0)}


class PoolErfPool(torch.nn.Module):
    """max_pool2d (NNAPI) -> erf (CPU) -> relu, avg_pool2d (NNAPI): the second partition
    sees h // 2 and w // 2 only."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.erf(torch.nn.functional.max_pool2d(x, 2))
        return torch.nn.functional.avg_pool2d(torch.relu(y) * 2, 2)


class PoolErfView(torch.nn.Module):
    """As above, then a view whose sizes come from the program input: the second partition reads
    them itself (sym_size inside it, the input a VALUES argument no NNAPI operation reads)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.erf(torch.nn.functional.max_pool2d(x, 2))
        z = torch.relu(y).reshape(x.shape[0], 3, (x.shape[2] // 2) * (x.shape[3] // 2))
        return torch.nn.functional.softmax(z - 1, dim=-1)


def _size_arguments(raw_blob: bytes) -> int:
    """Arguments only the shape program reads: integers the CPU computed, tensors read for sizes."""
    blob = Blob.GetRootAs(raw_blob, 0)
    return sum(1 for i in range(blob.InputsLength()) if blob.Inputs(i).Kind() in (ArgKind.INT, ArgKind.VALUES))


@pytest.mark.parametrize("model, size_args", [(PoolErfPool, 0), (PoolErfView, 1)],
                         ids=["pool-erf-pool", "pool-erf-view"])
def test_partition_after_cpu_op_needs_only_derived_sizes(model, size_args):
    h, w = Dim("h", min=8, max=96), Dim("w", min=8, max=96)
    x = torch.randn(1, 3, 20, 24)
    lowered = lower(model(), (x,), dynamic_shapes={"x": {2: h, 3: w}})
    tensor_ops = [op for op in lowered.cpu_ops if op.startswith("aten.")]  # not the size arithmetic
    assert tensor_ops == ["aten.erf.default"], lowered.reasons
    assert lowered.num_delegates == 2
    assert sum(_size_arguments(b) for b in lowered.raw_blobs) >= size_args
    for hw in itertools.chain([(20, 24)], [(9, 17), (8, 8), (33, 96), (64, 11)]):
        xs = torch.randn(1, 3, *hw, generator=torch.Generator().manual_seed(hw[0]))
        (got,) = run_pte(lowered.pte, [xs])
        want = model()(xs)
        assert got.shape == want.shape, hw
        assert relative_max_error(got, want) < 1e-5, hw



class TwoScalesErfCat(torch.nn.Module):
    """Pools by 8 and by 2 (NNAPI), erf of each (CPU), then a partition reading both: its
    first input (h // 8) alone gives the least h = 8 (h // 8), at which h // 2 is wrong."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = torch.erf(torch.nn.functional.max_pool2d(x, 8))
        b = torch.erf(torch.nn.functional.max_pool2d(x, 2))
        return torch.cat([torch.relu(a).flatten(2), torch.relu(b).flatten(2)], dim=2)


def test_partition_seeing_a_symbol_through_sizes_of_two_scales_runs():
    lowered = lower(TwoScalesErfCat(), (torch.randn(1, 3, 24, 32),),
                    dynamic_shapes={"x": {2: Dim("h", min=16, max=64), 3: Dim("w", min=16, max=64)}})
    assert [op for op in lowered.cpu_ops if op.startswith("aten.")] == ["aten.erf.default"] * 2, lowered.reasons
    for hw in [(24, 32), (22, 30), (16, 63), (31, 17)]:
        xs = torch.randn(1, 3, *hw, generator=torch.Generator().manual_seed(hw[0]))
        (got,) = run_pte(lowered.pte, [xs])
        want = TwoScalesErfCat()(xs)
        assert got.shape == want.shape and relative_max_error(got, want) < 1e-5, hw


class FlattenCumsumRelu(torch.nn.Module):
    """The CPU cumsum's output is h * w long (a cumsum along a dim of dynamic length stays on the
    CPU): a partition after it could not recover h or w (a product of two symbols), so the
    partitioner leaves the relu on the CPU up front."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.cumsum(torch.sigmoid(x).flatten(1), dim=1))


def test_partition_needing_an_unrecoverable_symbol_is_refused_up_front():
    x = torch.randn(1, 6, 10)
    lowered = lower(FlattenCumsumRelu(), (x,), dynamic_shapes={"x": {1: Dim("h", min=2, max=64),
                                                                     2: Dim("w", min=2, max=64)}})
    assert "aten.relu.default" in lowered.cpu_ops
    assert any("no input of the partition reveals" in r for r in lowered.reasons["aten.relu.default"])
    for hw in [(6, 10), (3, 33)]:
        xs = torch.randn(1, *hw)
        (got,) = run_pte(lowered.pte, [xs])
        assert relative_max_error(got, FlattenCumsumRelu()(xs)) < 1e-5, hw


class PadToWindowMultiple(torch.nn.Module):
    """swin's pad of H and W to a multiple of the window (7): the pad amounts are sizes the
    CPU computes, (7 - H % 7) % 7; PAD takes them as shape-program values."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pad_b, pad_r = (7 - x.shape[1] % 7) % 7, (7 - x.shape[2] % 7) % 7
        return torch.nn.functional.pad(torch.relu(x), (0, 0, 0, pad_r, 0, pad_b)) * 2


def test_pad_by_computed_sizes_is_delegated():
    x = torch.randn(1, 16, 16, 8)
    model = PadToWindowMultiple()
    lowered = lower(model, (x,), dynamic_shapes={"x": {1: 8 * Dim("kh", min=2, max=8), 2: 8 * Dim("kw", min=2, max=8)}})
    assert [op for op in lowered.cpu_ops if op.startswith("aten.")] == [], lowered.reasons
    assert lowered.num_delegates == 1 and "PAD" in lowered.nnapi_operations
    for hw in [(16, 16), (24, 56), (64, 40)]:
        xs = torch.randn(1, *hw, 8)
        (got,) = run_pte(lowered.pte, [xs])
        want = model(xs)
        assert got.shape == want.shape and relative_max_error(got, want) < 1e-6, hw


class ReadsPaddedSize(torch.nn.Module):
    """Reads the padded tensor's own size (swin: ``_, pad_H, pad_W, _ = x.shape``)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = PadToWindowMultiple()(x)
        b, h, w, c = y.shape
        return y.view(b, h * w, c).softmax(1)


def test_size_of_a_computed_tensor_is_read_from_the_input():
    """sym_size of the padded tensor would make the partition hand it to the CPU and split
    at the view; it is rewritten to arithmetic on the input's size (lowering/passes/size_arithmetic.py)."""
    lowered = lower(ReadsPaddedSize(), (torch.randn(1, 16, 16, 8),),
                    dynamic_shapes={"x": {1: 8 * Dim("kh", min=2, max=8), 2: 8 * Dim("kw", min=2, max=8)}})
    assert lowered.cpu_ops == [] and lowered.num_delegates == 1, lowered.reasons
    for hw in [(16, 16), (24, 56), (64, 40)]:
        xs = torch.randn(1, *hw, 8)
        (got,) = run_pte(lowered.pte, [xs])
        want = ReadsPaddedSize()(xs)
        assert got.shape == want.shape and relative_max_error(got, want) < 1e-5, hw


def test_partition_reading_only_sizes_stays_on_the_cpu():
    """zeros(x.shape[1], 3) + 1 where x feeds only a CPU op: a partition of it would have no
    NNAPI input (the runtime could not load it), so it stays on the CPU with that reason."""
    class ZerosOfInputSize(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return torch.zeros(x.shape[1], 3) + 1.0, torch.erf(x)

    lowered = lower(ZerosOfInputSize(), (torch.randn(2, 5),), dynamic_shapes={"x": {1: Dim("n", min=2, max=10)}})
    assert lowered.num_delegates == 0
    assert "an NNAPI model needs an input" in lowered.reasons["aten.add.Tensor"][0]
    x = torch.randn(2, 7)
    got = run_pte(lowered.pte, [x])
    assert [tuple(t.shape) for t in got] == [(7, 3), (2, 7)] and torch.equal(got[0], torch.ones(7, 3))


def test_rewritten_sizes_compute_the_same_values_in_executorch():
    """The rewritten size arithmetic runs on ExecuTorch's integer prim ops (whose % and //
    are C++'s): a CPU-only program using the padded size gives eager's shapes at every size."""
    from executorch.exir import to_edge
    from executorch.runtime import Runtime
    from executorch_nnapi.lowering.passes.size_arithmetic import sizes_from_inputs

    class ZerosOfPaddedSize(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = torch.nn.functional.pad(x, (0, (7 - x.shape[1] % 7) % 7)) * 2
            return torch.zeros(y.shape[1], 2) + y.sum()

    ep = torch.export.export(ZerosOfPaddedSize(), (torch.randn(1, 16),),
                             dynamic_shapes={"x": {1: 8 * Dim("k", min=1, max=20)}})
    assert sizes_from_inputs(ep) == 1
    assert all(n.args[0].op == "placeholder" for n in ep.graph.nodes if n.target is torch.ops.aten.sym_size.int)
    program = Runtime.get().load_program(to_edge(ep).to_executorch().buffer)
    for k in range(1, 21):
        x = torch.randn(1, 8 * k)
        (got,) = program.load_method("forward").execute([x])
        assert got.shape == ZerosOfPaddedSize()(x).shape, k


def test_symbol_recovered_from_a_size_rounded_up_to_a_multiple():
    """swin pads H to a multiple of its window: 8k + (7 - 8k % 7) % 7 reveals k (least fit)."""
    from torch.utils._sympy.functions import PythonMod
    size = 8 * s0 + PythonMod(7 - PythonMod(8 * s0, 7), 7)
    assert recoverable_symbols([size]) == {"s0"}
    program = ShapeProgramBuilder(export_ranges={"s0": (2, 40)})
    program.bind_input(0, [size])
    program.finish_inputs()
    other = program.expression(FloorDiv(size, 7) * 49)
    for k in range(2, 41):
        dims = [[int(size.subs(s0, k))]]
        chosen = evaluate(program.expressions[program.symbols[0].definition].code, [], dims)
        (check,) = program.checks
        assert evaluate(program.expressions[check.expression].code, [chosen], dims) == dims[0][0]
        assert evaluate(program.expressions[other].code, [chosen], dims) == int((FloorDiv(size, 7) * 49).subs(s0, k))


class MaskedRows(torch.nn.Module):
    """Higgs Audio's selection of the audio positions: rows picked by a bool mask computed from the
    input (a count only the data gives, which may be 0), then worked on. NNAPI cannot hold an empty
    tensor, so what reads the selected rows stays on the CPU; the rest is delegated."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.tanh(x * 2.0)
        picked = y[y[:, 0] > 0.5]                       # [u0, 8], u0 in [0, 6]
        return picked * 3.0 + 1.0, y.sum(dim=1)


def test_a_size_the_data_may_make_zero_stays_on_the_cpu():
    x = torch.randn(6, 8, generator=torch.Generator().manual_seed(0))
    lowered = lower(MaskedRows(), (x,))
    reasons = lowered.reasons
    assert any("may be 0 at run time" in r for rs in reasons.values() for r in rs), reasons
    assert lowered.num_delegates >= 1
    for inputs in (x, -torch.ones(6, 8), torch.ones(6, 8)):        # some rows, none, all
        got = run_pte(lowered.pte, [inputs])
        want = MaskedRows()(inputs)
        assert got[0].shape == want[0].shape
        assert all(relative_max_error(g, w) < 1e-6 for g, w in zip(got, want) if w.numel())
