"""The host driver's compiled float32 LOGISTIC, SiLU, MUL, ADD and MEAN (kernels/nnapi_host_elementwise.c,
operations/_float_fast.py): LOGISTIC within a few float32 ulps of the exact logistic, with the
reference's results at the edges (NaN, infinities, exp(-x) past float32); SiLU equal to the two
operations' roundings; MUL and ADD with a broadcast row and each fused activation equal to torch,
small ones alike in a native run and alone; MEAN within one float32 step of the float64 mean; the
same bytes at every thread count; and a plan where SiLU's MUL(x, LOGISTIC(x)) becomes one step,
against the reference plan ($EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS=1)."""

from __future__ import annotations

import types

import pytest
import torch

from nnapi_client import Execution, Model
from executorch_nnapi.host_driver.compilation import Compilation
from executorch_nnapi.host_driver.operations import _float_fast as ff
from executorch_nnapi.host_driver.operations import _native
from executorch_nnapi.host_driver.operations._qfast import OperandInfo

NATIVE = _native.kernels()
MAX_ULPS = 4   # the logistic's float32 exp, sum and division


@pytest.fixture(autouse=True, scope="module")
def _library_loaded() -> None:
    assert NATIVE is not None, (f"{_native.library_path()} did not load: build the package "
                                "(host_driver/CMakeLists.txt, target nnapi_host_kernels)")


def _inputs() -> torch.Tensor:
    gen = torch.Generator().manual_seed(4)
    edges = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 86.0, -86.0, 88.7, -88.7, 88.75, -88.75, 89.0,
             -89.0, 103.0, -103.0, 1e-30, -1e-30]
    return torch.cat([torch.linspace(-100, 100, 100_001), torch.randn(60_000, generator=gen) * 6,
                      torch.tensor(edges)]).float()


def _logistic(x: torch.Tensor, silu: bool = False) -> torch.Tensor:
    out = torch.empty_like(x)
    NATIVE.float_logistic(x, out, silu)
    return out


def test_the_logistic_is_within_a_few_ulps_and_keeps_the_references_edges(at_thread_counts):
    x = _inputs()
    got = at_thread_counts(lambda: _logistic(x))
    exact = torch.sigmoid(x.double())
    # The reference's float32 formula: exp(-x) overflows to infinity (result 0) past float32's range.
    reference = 1.0 / (1.0 + torch.exp(-x))
    normal = torch.isfinite(exact) & (exact > 1.2e-38)
    ulp = (torch.nextafter(exact.float(), torch.tensor(float("inf"))).double() - exact.float().double())
    assert float(((got.double() - exact).abs() / ulp)[normal].max()) <= MAX_ULPS
    tiny = ~normal
    assert torch.equal(got[tiny].isnan(), reference[tiny].isnan())
    assert float((got[tiny] - reference[tiny]).nan_to_num().abs().max()) < 1e-38
    assert bool((got[x == 89.0] == 1.0).all()) and bool((got[x == -103.0] == 0.0).all())


def test_silu_is_the_product_of_x_and_its_rounded_logistic(at_thread_counts):
    x = _inputs()
    got = at_thread_counts(lambda: _logistic(x, silu=True))
    want = x * _logistic(x)
    assert torch.equal(got.nan_to_num(nan=7.0), want.nan_to_num(nan=7.0))


@pytest.mark.parametrize("add", [False, True], ids=["MUL", "ADD"])
@pytest.mark.parametrize("act", [ff.FUSE_NONE, ff.FUSE_RELU, ff.FUSE_RELU1, ff.FUSE_RELU6])
@pytest.mark.parametrize("a_shape,b_shape", [((3, 40, 37, 11), (3, 40, 37, 11)), ((1, 61, 53, 24), (1, 1, 1, 24)),
                                             ((24,), (2, 61, 53, 24)), ((300, 40), (40,))])
def test_mul_and_add_with_a_row_or_equal_shapes_equal_torch(add, act, a_shape, b_shape, at_thread_counts):
    gen = torch.Generator().manual_seed(act)
    a, b = torch.randn(a_shape, generator=gen) * 3, torch.randn(b_shape, generator=gen) * 3
    if add:   # exact cancellations, signed zeros and a NaN among the sums
        a.view(-1)[:5] = torch.tensor([1.5, -0.0, -0.0, float("nan"), 2.0])
        b.view(-1)[:5] = torch.tensor([-1.5, -0.0, 0.0, 1.0, float("inf")])
    p = types.SimpleNamespace(act=act, quant=False)
    lo, hi = ff.BOUNDS[act]

    def reference(xs, _p):
        return [(xs[0] + xs[1] if add else xs[0] * xs[1]).clamp(lo, hi)]

    shape = torch.broadcast_shapes(a_shape, b_shape)
    maker = ff.add_kernel if add else ff.mul_kernel
    kernel = maker(p, [OperandInfo(torch.float32, a_shape), OperandInfo(torch.float32, b_shape)],
                   [OperandInfo(torch.float32, shape)], reference)
    got = at_thread_counts(lambda: kernel([a, b], p)[0])
    want = reference([a, b], p)[0]
    assert got.shape == shape and torch.equal(got.nan_to_num(nan=7.0), want.nan_to_num(nan=7.0))
    assert torch.equal(got.signbit(), want.signbit())
    # Another broadcast runs the reference.
    full, column = (a if a.shape == shape else b), torch.randn(*shape[:-1], 1, generator=gen)
    assert torch.equal(kernel([full, column], p)[0].nan_to_num(nan=7.0),
                       reference([full, column], p)[0].nan_to_num(nan=7.0))


def _silu_model(lib):
    """conv-free SiLU and a squeeze-and-excite scale: y = SiLU(x) * LOGISTIC(s) (s one row)."""
    m = Model(lib)
    x, s = m.tensor([1, 23, 19, 40]), m.tensor([1, 1, 1, 40])
    sig = m.tensor([1, 23, 19, 40])
    m.op("LOGISTIC", [x], [sig])
    act = m.tensor([1, 23, 19, 40])
    m.op("MUL", [x, sig, m.i32(0)], [act])
    gate = m.tensor([1, 1, 1, 40])
    m.op("LOGISTIC", [s], [gate])
    y = m.tensor([1, 23, 19, 40])
    m.op("MUL", [act, gate, m.i32(1)], [y])
    m.io([x, s], [y])
    m.finish()
    return m


def _run(lib, m, inputs) -> torch.Tensor:
    ex = Execution(lib, m.compile().value)
    for j, t in enumerate(inputs):
        ex.set_input(j, t)
    out = torch.zeros(1, 23, 19, 40)
    ex.set_output(0, out)
    assert ex.compute() == 0
    return out


def test_a_plan_fuses_silu_and_equals_the_reference_plan_within_rounding(lib, driver, monkeypatch):
    gen = torch.Generator().manual_seed(9)
    inputs = [torch.randn(1, 23, 19, 40, generator=gen) * 4, torch.randn(1, 1, 1, 40, generator=gen)]
    m = _silu_model(lib)
    plan = driver.lookup(m.compile().value, Compilation, "compilation").plan
    # The gate's 40 values are below MIN_ELEMENTWISE: torch's LOGISTIC, as the reference plan's.
    assert sorted((st.op.name, getattr(st.fn, "prepared", None) or "reference") for st in plan.steps) == [
        ("LOGISTIC", "reference"), ("MUL", "compiled float32 MUL"), ("MUL", "compiled float32 SiLU")]
    got = _run(lib, m, inputs)
    monkeypatch.setenv("EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS", "1")
    want = _run(lib, _silu_model(lib), inputs)
    torch.testing.assert_close(got, want, rtol=4e-7 * MAX_ULPS, atol=1e-30)


def test_small_tensors_scalars_and_other_broadcasts_keep_torch(monkeypatch):
    """No compiled MUL / LOGISTIC where torch's call is cheaper or the loop would run short rows:
    below MIN_ELEMENTWISE elements (a MUL's kernel then calls torch unless a native run records
    it), a dynamic shape, a scalar factor of a large tensor (a [9, 256, 64, 1] x [1] product ran
    element by element, 0.4 ms), a broadcast other than one row."""
    p = types.SimpleNamespace(act=ff.FUSE_NONE, quant=False)

    def mul(a_shape, b_shape, out_shape):
        return ff.mul_kernel(p, [OperandInfo(torch.float32, a_shape), OperandInfo(torch.float32, b_shape)],
                             [OperandInfo(torch.float32, out_shape)], None)

    small = mul((5, 7), (7,), (5, 7))
    monkeypatch.setattr(NATIVE, "float_mul", lambda *a, **k: pytest.fail("the compiled MUL ran alone"))
    a, b = torch.randn(5, 7), torch.randn(7)
    assert torch.equal(small([a, b], p)[0], a * b)
    assert mul((9, 256, 64, 1), (1,), (9, 256, 64, 1)) is None
    assert mul((4, 60, 70), (4, 1, 70), (4, 60, 70)) is None
    assert mul(None, (40,), None) is None
    assert ff.logistic_kernel(p, [OperandInfo(torch.float32, (1, 40))], [OperandInfo(torch.float32, (1, 40))],
                              None) is None
    assert mul((300, 40), (40,), (300, 40)) is not None


@pytest.mark.parametrize("shape,axes", [((2, 7, 9, 40), (1, 2)), ((3, 50, 16), (1,)), ((1, 1, 1, 960), (1, 2)),
                                        ((2, 3, 4, 5, 33), (1, 2, 3))])
def test_mean_over_middle_dims_is_the_float64_mean_rounded_once(shape, axes, at_thread_counts):
    gen = torch.Generator().manual_seed(len(shape))
    x = torch.randn(shape, generator=gen) * 5 + 1
    p = types.SimpleNamespace(axes=axes, keep=True, quant=False)
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    kernel = ff.mean_kernel(p, [OperandInfo(torch.float32, shape)], [OperandInfo(torch.float32, out_shape)],
                            lambda xs, q: [xs[0].mean(axes, keepdim=True)])
    got = at_thread_counts(lambda: kernel([x], p)[0])
    want = x.double().mean(axes, keepdim=True).float()
    # Within one float32 step of the float64 mean's rounding (both sums are float64, in two orders).
    ulps = (got.view(torch.int32) - want.view(torch.int32)).abs().max()
    assert got.shape == out_shape and ulps <= 1
    # A strided input gives the same bytes.
    strided = x.transpose(0, -1).contiguous().transpose(0, -1)
    assert torch.equal(kernel([strided], p)[0], got)


@pytest.mark.parametrize("add", [False, True], ids=["MUL", "ADD"])
@pytest.mark.parametrize("a_shape,b_shape", [((1, 1, 1, 72), (1,)), ((1,), (1, 1, 1, 960)), ((1, 1, 1, 72), (1, 1, 1, 72)),
                                             ((1, 7, 7, 10), (10,))])
def test_small_mul_and_add_are_torchs_alone_and_compiled_in_a_run_with_the_same_bytes(add, a_shape, b_shape):
    gen = torch.Generator().manual_seed(1)
    a, b = torch.randn(a_shape, generator=gen) * 4, torch.randn(b_shape, generator=gen) * 4
    p = types.SimpleNamespace(act=ff.FUSE_RELU6, quant=False)
    shape = torch.broadcast_shapes(a_shape, b_shape)
    maker = ff.add_kernel if add else ff.mul_kernel
    kernel = maker(p, [OperandInfo(torch.float32, a_shape), OperandInfo(torch.float32, b_shape)],
                   [OperandInfo(torch.float32, shape)], None)
    want = (a + b if add else a * b).clamp(0.0, 6.0)
    alone = kernel([a, b], p)[0]
    with NATIVE.recording() as recording:
        recorded = kernel([a, b], p)[0]
    assert len(recording.calls) == 1 and recording.complete   # the compiled loop ran
    assert torch.equal(alone, want) and torch.equal(recorded, want)
