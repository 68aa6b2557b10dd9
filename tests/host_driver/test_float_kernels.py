"""The host driver's compiled float32 kernels (kernels/nnapi_host_float.c, operations/_float_fast.py):
the packed matrix product and the NHWC depthwise convolution against torch in float64, within
float32 rounding of the sums, with the same bytes at every thread count, on the plain C loops and
each vector one the machine has (AVX-512, AVX2: the same bits); and whole plans through the driver against the
reference plan ($EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS=1: torch's kernels).
"""

from __future__ import annotations

import types

import pytest
import torch
import torch.nn.functional as F

from nnapi_client import Execution, Model
from executorch_nnapi.host_driver.compilation import Compilation, Plan
from executorch_nnapi.host_driver.operations import _float_fast as ff
from executorch_nnapi.host_driver.operations import _native
from executorch_nnapi.host_driver.operations import _qfast as qf

NATIVE = _native.kernels()
PATHS = list(NATIVE.float_loops) if NATIVE is not None else []   # the plain C loops and this machine's vector ones
ACTS = [ff.FUSE_NONE, ff.FUSE_RELU, ff.FUSE_RELU1, ff.FUSE_RELU6]
RELATIVE = 1e-5   # of Σ|a||w| + |bias|: float32 sums of up to a few thousand terms


@pytest.fixture(autouse=True, scope="module")
def _library_loaded() -> None:
    assert NATIVE is not None, (f"{_native.library_path()} did not load: build the package "
                                "(host_driver/CMakeLists.txt, target nnapi_host_kernels)")


def _activated(y: torch.Tensor, act: int) -> torch.Tensor:
    lo, hi = ff.BOUNDS[act]
    return y.clamp(lo, hi)


def _within_rounding(got: torch.Tensor, want: torch.Tensor, scale: torch.Tensor) -> None:
    err = (got.double() - want).abs()
    assert bool((err <= RELATIVE * scale + 1e-30).all()), float((err / (scale + 1e-30)).max())


@pytest.mark.parametrize("loops", PATHS)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (1, 1280, 1000), (7, 3, 17), (49, 320, 37), (250, 16, 96),
                                   (13, 145, 24), (97, 33, 48)])
def test_the_product_is_the_float64_one_within_rounding(loops, m, k, n, at_thread_counts):
    gen = torch.Generator().manual_seed(m * 7919 + k * 31 + n)
    a, w, bias = torch.randn(m, k, generator=gen), torch.randn(n, k, generator=gen), torch.randn(n, generator=gen)
    packed, padded = ff.pack_float_weights(w), ff.pad_bias(bias)
    exact = a.double() @ w.double().t() + bias.double()
    scale = a.double().abs() @ w.double().abs().t() + bias.double().abs()
    for act in ACTS:
        lo, hi = ff.BOUNDS[act]

        def compute() -> torch.Tensor:
            out = torch.full((m, n), float("nan"))
            NATIVE.float_gemm(a, packed, n, padded, lo, hi, out, loops)
            return out

        got = at_thread_counts(compute)
        _within_rounding(got, _activated(exact, act), scale)
    no_bias = torch.empty(m, n)
    NATIVE.float_gemm(a, packed, n, None, -float("inf"), float("inf"), no_bias, loops)
    _within_rounding(no_bias, a.double() @ w.double().t(), scale)


def _depthwise_params(weight: torch.Tensor, bias: torch.Tensor, pads, stride, dilation, act):
    return types.SimpleNamespace(weight=weight, bias=bias, pads=pads, stride=stride, dilation=dilation, act=act)


CONV_CASES = [   # h, w, c, k, stride, dilation, pads (left, right, top, bottom), batch
    (9, 8, 5, 3, (1, 1), (1, 1), (1, 1, 1, 1), 1),
    (12, 11, 37, 3, (2, 2), (1, 1), (0, 1, 0, 1), 2),          # SAME at stride 2: the odd pad at the end
    (10, 13, 16, 5, (1, 2), (2, 1), (3, 0, 2, 4), 1),          # asymmetric pads, dilation, unequal strides
    (1, 1, 33, 3, (1, 1), (1, 1), (1, 1, 1, 1), 1),            # one pixel: only the centre tap inside
    (7, 20, 48, 2, (3, 1), (1, 3), (0, 0, 0, 0), 1),           # even kernel, no pads
]


def _float64_conv(x, weight, bias, pads, stride, dilation, groups):
    """The convolution and the sums of its terms' magnitudes, float64, NHWC."""
    left, right, top, bottom = pads
    padded = F.pad(x.double().permute(0, 3, 1, 2), (left, right, top, bottom))
    exact = F.conv2d(padded, weight.double(), bias.double(), stride, 0, dilation, groups)
    scale = F.conv2d(padded.abs(), weight.double().abs(), bias.double().abs(), stride, 0, dilation, groups)
    return exact.permute(0, 2, 3, 1), scale.permute(0, 2, 3, 1)


@pytest.mark.parametrize("loops", PATHS)
@pytest.mark.parametrize("h,w,c,k,stride,dilation,pads,batch", CONV_CASES + [(16, 15, 3, 3, (2, 2), (1, 1),
                                                                              (0, 1, 0, 1), 1)])   # a stem
def test_a_convolution_over_unrolled_taps_is_the_float64_one_within_rounding(loops, h, w, c, k, stride, dilation,
                                                                              pads, batch, at_thread_counts):
    gen = torch.Generator().manual_seed(h * 17 + c)
    cout = 21
    x = torch.randn(batch, h, w, c, generator=gen)
    weight = torch.randn(cout, c, k, k, generator=gen)
    bias = torch.randn(cout, generator=gen)
    exact, scale = _float64_conv(x, weight, bias, pads, stride, dilation, 1)
    p = types.SimpleNamespace(pads=pads, stride=stride, dilation=dilation)
    geometry = ff._geometry(p, tuple(x.shape), k, k, tuple(exact.shape))
    matrix = weight.permute(0, 2, 3, 1).reshape(cout, -1)
    for act in ACTS:
        kernel = ff.gemm_kernel(NATIVE, matrix, bias, act, tuple(exact.shape), geometry, loops=loops)
        got = at_thread_counts(lambda: kernel([x], p)[0])
        _within_rounding(got, _activated(exact, act), scale)


@pytest.mark.parametrize("loops", PATHS)
@pytest.mark.parametrize("h,w,c,k,stride,dilation,pads,batch", CONV_CASES)
def test_the_depthwise_convolution_is_the_float64_one_within_rounding(loops, h, w, c, k, stride, dilation, pads,
                                                                       batch, at_thread_counts):
    gen = torch.Generator().manual_seed(h * 131 + c)
    x = torch.randn(batch, h, w, c, generator=gen)
    weight = torch.randn(c, 1, k, k, generator=gen).contiguous(memory_format=torch.channels_last)
    bias = torch.randn(c, generator=gen)
    exact, scale = _float64_conv(x, weight, bias, pads, stride, dilation, c)
    for act in ACTS:
        p = _depthwise_params(weight, bias, pads, stride, dilation, act)
        kernel = ff.depthwise_kernel(NATIVE, p, tuple(x.shape), tuple(exact.shape), loops=loops)
        got = at_thread_counts(lambda: kernel([x], p)[0])
        _within_rounding(got, _activated(exact, act), scale)


def test_each_loop_is_deterministic_and_the_loops_differ_at_most_by_rounding():
    gen = torch.Generator().manual_seed(5)
    a, w = torch.randn(61, 300, generator=gen), torch.randn(70, 300, generator=gen)
    packed = ff.pack_float_weights(w)
    outs = {}
    for loops in PATHS:
        runs = []
        for _ in range(2):
            out = torch.empty(61, 70)
            NATIVE.float_gemm(a, packed, 70, None, -float("inf"), float("inf"), out, loops)
            runs.append(out)
        assert torch.equal(runs[0], runs[1])
        outs[loops] = runs[0]
    for name in set(outs) - {"plain C"}:
        torch.testing.assert_close(outs[name], outs["plain C"], rtol=1e-5, atol=1e-5)
    if "AVX-512" in outs and "AVX2" in outs:   # the same chain of fused multiply-adds: the same bits
        assert torch.equal(outs["AVX-512"], outs["AVX2"])


# -- whole plans -------------------------------------------------------------------------------------
def _execute(lib, comp, inputs, out_shape) -> torch.Tensor:
    ex = Execution(lib, comp)
    for j, x in enumerate(inputs):
        ex.set_input(j, x)
    out = torch.zeros(out_shape)
    ex.set_output(0, out)
    assert ex.compute() == 0
    return out


def _block_model(lib, gen: torch.Generator, act: int):
    """A mobilenet-like block: 1x1 expansion, 3x3 depthwise at stride 2 (SAME pads), 1x1
    projection, a 3x3 ungrouped convolution, a FULLY_CONNECTED; odd channel counts."""
    m = Model(lib)
    h, w, cin, mid, cout, units = 11, 9, 5, 19, 17, 13
    x = m.tensor([1, h, w, cin])
    e = m.tensor([1, h, w, mid])
    m.op("CONV_2D", [x, m.const(torch.randn(mid, 1, 1, cin, generator=gen)), m.const(torch.randn(mid, generator=gen)),
                     *(m.i32(v) for v in (0, 0, 0, 0, 1, 1, act))], [e])
    oh, ow = 6, 5
    d = m.tensor([1, oh, ow, mid])
    m.op("DEPTHWISE_CONV_2D", [e, m.const(torch.randn(1, 3, 3, mid, generator=gen)),
                               m.const(torch.randn(mid, generator=gen)), *(m.i32(v) for v in (1, 1, 1, 1, 2, 2, 1, act))],
         [d])
    pr = m.tensor([1, oh, ow, cout])
    m.op("CONV_2D", [d, m.const(torch.randn(cout, 1, 1, mid, generator=gen)), m.const(torch.randn(cout, generator=gen)),
                     *(m.i32(v) for v in (0, 0, 0, 0, 1, 1, 0))], [pr])
    c3 = m.tensor([1, oh, ow, cout])
    m.op("CONV_2D", [pr, m.const(torch.randn(cout, 3, 3, cout, generator=gen)),
                     m.const(torch.randn(cout, generator=gen)), *(m.i32(v) for v in (1, 1, 1, 1, 1, 1, act))], [c3])
    out = m.tensor([1, units])
    flat = oh * ow * cout
    m.op("FULLY_CONNECTED", [c3, m.const(torch.randn(units, flat, generator=gen) / flat ** 0.5),
                             m.const(torch.randn(units, generator=gen)), m.i32(act)], [out])
    m.io([x], [out])
    m.finish()
    return m, (1, h, w, cin), (1, units)


def _kinds(driver, comp) -> list:
    plan = driver.lookup(comp.value, Compilation, "compilation").plan
    return [(st.op.name, getattr(st.fn, "prepared", None)) for st in plan.steps]


def test_an_image_stem_keeps_onednn_and_a_wider_convolution_takes_the_unrolled_product():
    native = NATIVE
    params = types.SimpleNamespace(quant=False, nchw=False, act=ff.FUSE_RELU6, pads=(0, 1, 0, 1), stride=(2, 2),
                                   dilation=(1, 1), bias=torch.zeros(8))
    for cin, taken in ((3, False), (ff.UNROLL_MIN_CHANNELS, True)):
        params.weight = torch.ones(8, cin, 3, 3)
        ins = [qf.OperandInfo(torch.float32, (1, 9, 9, cin))]
        outs = [qf.OperandInfo(torch.float32, (1, 5, 5, 8))]
        kernel = ff.conv_kernel(params, ins, outs, None)
        assert (kernel is not None) == taken and native is not None
        if taken:
            assert "unrolled taps" in kernel.prepared


@pytest.mark.parametrize("act", ACTS)
def test_a_plan_with_the_float_kernels_equals_the_reference_plan_within_rounding(lib, driver, monkeypatch, act):
    gen = torch.Generator().manual_seed(act)
    m, in_shape, out_shape = _block_model(lib, gen, act)
    monkeypatch.setenv(qf.REFERENCE_VARIABLE, "1")
    reference = m.compile()
    monkeypatch.delenv(qf.REFERENCE_VARIABLE)
    fast = m.compile()
    assert all(k is None for _, k in _kinds(driver, reference))
    kinds = _kinds(driver, fast)
    assert [n for n, _ in kinds] == ["CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D", "CONV_2D", "FULLY_CONNECTED"]
    for (name, kind), want in zip(kinds, ("float32 product", "float32 depthwise", "float32 product",
                                          "over unrolled taps", "float32 product")):
        assert kind is not None and want in kind, (name, kind)
    for run in range(3):
        x = torch.randn(in_shape, generator=gen)
        want = _execute(lib, reference, [x], out_shape)
        got = _execute(lib, fast, [x], out_shape)
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
        assert torch.equal(got, _execute(lib, fast, [x], out_shape))   # one answer per input


def _execute_all(lib, comp, inputs, out_shapes) -> list[torch.Tensor]:
    ex = Execution(lib, comp)
    for j, x in enumerate(inputs):
        ex.set_input(j, x)
    outs = [torch.zeros(s) for s in out_shapes]
    for j, out in enumerate(outs):
        ex.set_output(j, out)
    assert ex.compute() == 0
    return outs


def _silu(m: Model, x: int, shape: list) -> int:
    """SiLU as a model writes it: MUL(x, LOGISTIC(x))."""
    sig, out = m.tensor(shape), m.tensor(shape)
    m.op("LOGISTIC", [x], [sig])
    m.op("MUL", [x, sig, m.i32(0)], [out])
    return out


def _silu_block_model(lib, gen: torch.Generator):
    """EfficientNet's pattern: every convolution followed by SiLU (1x1 expansion, 3x3 depthwise,
    3x3 ungrouped over unrolled taps, a FULLY_CONNECTED of many rows), each large enough for the
    compiled SiLU loop; the 3x3 convolution's result is read by two SiLUs (neither is fused); a
    last 1x1 convolution followed by HARD_SWISH (mobilenet_v3's)."""
    m = Model(lib)
    h, w, cin, mid = 24, 23, 5, 19
    x = m.tensor([1, h, w, cin])
    e = m.tensor([1, h, w, mid])
    m.op("CONV_2D", [x, m.const(torch.randn(mid, 1, 1, cin, generator=gen)), m.const(torch.randn(mid, generator=gen)),
                     *(m.i32(v) for v in (0, 0, 0, 0, 1, 1, 0))], [e])
    e = _silu(m, e, [1, h, w, mid])
    d = m.tensor([1, h, w, mid])
    m.op("DEPTHWISE_CONV_2D", [e, m.const(torch.randn(1, 3, 3, mid, generator=gen)),
                               m.const(torch.randn(mid, generator=gen)), *(m.i32(v) for v in (1, 1, 1, 1, 1, 1, 1, 0))],
         [d])
    d = _silu(m, d, [1, h, w, mid])
    c = m.tensor([1, h, w, mid])
    m.op("CONV_2D", [d, m.const(torch.randn(mid, 3, 3, mid, generator=gen) / 13), m.const(torch.randn(mid, generator=gen)),
                     *(m.i32(v) for v in (1, 1, 1, 1, 1, 1, 3))], [c])
    c_silu = _silu(m, c, [1, h, w, mid])
    f = m.tensor([h * w, 24])
    m.op("FULLY_CONNECTED", [c_silu, m.const(torch.randn(24, mid, generator=gen)), m.const(torch.randn(24, generator=gen)),
                             m.i32(0)], [f])
    f = _silu(m, f, [h * w, 24])
    kept = _silu(m, c, [1, h, w, mid])      # c is read twice: its SiLUs stay steps
    p = m.tensor([1, h, w, 8])
    m.op("CONV_2D", [kept, m.const(torch.randn(8, 1, 1, mid, generator=gen)), m.const(torch.randn(8, generator=gen)),
                     *(m.i32(v) for v in (0, 0, 0, 0, 1, 1, 0))], [p])
    swished = m.tensor([1, h, w, 8])
    m.op("HARD_SWISH", [p], [swished])
    m.io([x], [f, swished])
    m.finish()
    return m, (1, h, w, cin), [(h * w, 24), (1, h, w, 8)]


def test_silu_and_hard_swish_after_a_convolution_are_its_epilogue_with_the_same_bytes(lib, driver, monkeypatch):
    """The SiLU and HARD_SWISH steps after a compiled convolution or product become its epilogue
    (applied to each block of results while in cache, by the same float32 operations): the plan
    is shorter and its bytes equal the plan's without the fusion, at one and two threads."""
    gen = torch.Generator().manual_seed(3)
    m, in_shape, out_shapes = _silu_block_model(lib, gen)
    fused = m.compile()
    kinds = _kinds(driver, fused)
    assert [n for n, k in kinds if k and k.endswith("then SiLU")] == ["CONV_2D", "DEPTHWISE_CONV_2D",
                                                                      "FULLY_CONNECTED"], kinds
    assert [n for n, k in kinds if k and k.endswith("then HARD_SWISH")] == ["CONV_2D"], kinds
    assert "HARD_SWISH" not in [n for n, _ in kinds]
    assert sum(1 for _, k in kinds if k == "compiled float32 SiLU") == 2, kinds    # both of c's
    monkeypatch.setattr(Plan, "_fuse_epilogues", lambda self, steps: steps)
    separate = m.compile()
    assert sum(1 for _, k in _kinds(driver, separate) if k == "compiled float32 SiLU") == 5
    x = torch.randn(*in_shape, generator=gen) * 3
    for threads in (1, 2):
        NATIVE.set_threads(threads)
        try:
            got, want = (_execute_all(lib, comp, [x], out_shapes) for comp in (fused, separate))
        finally:
            NATIVE.set_threads(_native.kernel_threads())
        for g, w in zip(got, want):
            assert torch.equal(g, w)


def test_hard_swish_epilogue_at_the_edges_is_torchs_hardswish(lib, driver):
    """NaN, infinities, the kinks at -3 and 3, values beyond them: the epilogue's HARD_SWISH equals
    torch's hardswish (what the unfused step runs), element for element."""
    edges = torch.tensor([float("nan"), float("inf"), -float("inf"), -3.0, 3.0, -4.0, 5.5, 1e30, -1e30, 0.5,
                          -2.9999998, 2.9999998, 1e-30, -1e-30, 6.0, -6.0]).view(1, 1, 16, 1)
    m = Model(lib)
    x, y, out = m.tensor([1, 1, 16, 1]), m.tensor([1, 1, 16, 1]), m.tensor([1, 1, 16, 1])
    m.op("CONV_2D", [x, m.const(torch.ones(1, 1, 1, 1)), m.const(torch.zeros(1)),
                     *(m.i32(v) for v in (0, 0, 0, 0, 1, 1, 0))], [y])
    m.op("HARD_SWISH", [y], [out])
    m.io([x], [out])
    m.finish()
    comp = m.compile()
    assert [k for _, k in _kinds(driver, comp)] == [
        f"compiled float32 product ({NATIVE.float_vector or 'plain C'}), then HARD_SWISH"]
    (got,) = _execute_all(lib, comp, [edges], [(1, 1, 16, 1)])
    torch.testing.assert_close(got, F.hardswish(edges * 1.0 + 0.0), rtol=0, atol=0, equal_nan=True)
