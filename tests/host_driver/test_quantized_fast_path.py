"""The host driver's prepared 8-bit kernels (operations/_qfast.py, _qconv.py) against its reference
kernels (operations/_qkernels.py): equal bytes, always.

Each model is compiled twice through the shim's C API, once with
$EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS=1 (the reference plan: no prepared kernel, no constant
folding) and once without, and both compilations run on the same inputs. The tests also assert
that the prepared kernel they mean to test was the one the plan took, so that a kernel that stops
being prepared cannot pass by comparing the reference with itself. Android's 8-bit conformance
cases of the same operations are compared the same way; a whole NnapiQuantizer model too.
"""

from __future__ import annotations

import ctypes
import sys
import types
from ctypes import POINTER, byref, c_float, c_uint32, c_void_p
from pathlib import Path

import pytest
import torch

from nnapi_client import QA8, TF32, TI32, Execution, Model
from executorch_nnapi.host_driver import operations
from executorch_nnapi.host_driver.compilation import Compilation
from executorch_nnapi.host_driver.operations import _native, _prepared
from executorch_nnapi.host_driver.operations import _qfast as qf
from executorch_nnapi.host_driver.operations import _qkernels as qk
from executorch_nnapi.host_driver.operations import _qmath as qm

QA8S, QS8PC, QS8 = 14, 11, 13
DTYPES = {"uint8": (QA8, torch.uint8), "int8": (QA8S, torch.int8)}


class PerChannel(ctypes.Structure):
    _fields_ = [("channelDim", c_uint32), ("scaleCount", c_uint32), ("scales", POINTER(c_float))]


@pytest.fixture(scope="module")
def lib(lib):
    lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams.argtypes = (c_void_p, ctypes.c_int32,
                                                                             POINTER(PerChannel))
    return lib


def _codes(gen: torch.Generator, shape, dtype: torch.dtype) -> torch.Tensor:
    lo, hi = qm.QRANGE[dtype]
    return torch.randint(lo, hi + 1, tuple(shape), generator=gen, dtype=torch.int32).to(dtype)


def _execute(lib, comp, inputs, out_shapes, out_dtypes) -> list[torch.Tensor]:
    ex = Execution(lib, comp)
    for j, x in enumerate(inputs):
        ex.set_input(j, x)
    outs = [torch.zeros(tuple(s), dtype=dt) for s, dt in zip(out_shapes, out_dtypes)]
    for j, o in enumerate(outs):
        ex.set_output(j, o)
    assert ex.compute() == 0
    return outs


def _kinds(driver, comp) -> dict[str, list]:
    """Operation name -> what each of its steps runs (a prepared kernel's description, or None)."""
    plan = driver.lookup(comp.value, Compilation, "compilation").plan
    kinds: dict[str, list] = {}
    for st in plan.steps:
        kinds.setdefault(st.op.name, []).append(getattr(st.fn, "prepared", None))
    return kinds


def same_bytes(lib, driver, monkeypatch, m: Model, inputs, out_shapes, out_dtypes, expect: dict[str, tuple[str, ...]],
               runs: int = 2, expect_passes: dict[str, tuple[str, ...]] | None = None) -> list[torch.Tensor]:
    """Compile ``m`` as the reference plan, as the prepared one and as the prepared one without
    the compiled loops (`_native`: their torch passes instead); assert the prepared plans took a
    kernel whose description contains each of ``expect[name]`` (``expect_passes[name]`` for the
    plan without the loops, when given) for every step of each named operation, and that all
    three give the same bytes (on ``inputs`` and on ``runs - 1`` runs of fresh codes)."""
    m.finish()
    monkeypatch.setenv(qf.REFERENCE_VARIABLE, "1")
    reference = m.compile()
    monkeypatch.delenv(qf.REFERENCE_VARIABLE)
    fast = m.compile()
    monkeypatch.setenv(_native.LIBRARY_VARIABLE, "off")
    passes = m.compile()
    monkeypatch.delenv(_native.LIBRARY_VARIABLE)
    assert all(k is None for ks in _kinds(driver, reference).values() for k in ks)
    for comp, expected in ((fast, expect), (passes, expect if expect_passes is None else expect_passes)):
        kinds = _kinds(driver, comp)
        for name, parts in expected.items():
            if not ONEDNN_EXACT and any("oneDNN" in w or "convolution, 2 parts" in w for w in parts):
                continue   # this machine's oneDNN sums saturate: another kernel or the reference (bytes below)
            assert kinds.get(name) and all(k is not None and all(w in k for w in parts) for k in kinds[name]), \
                (name, kinds.get(name))
    gen = torch.Generator().manual_seed(99)
    results = None
    for run in range(runs):
        if run:
            inputs = [_codes(gen, x.shape, x.dtype) if x.dtype in qf.EIGHT_BIT else x for x in inputs]
        want = _execute(lib, reference, inputs, out_shapes, out_dtypes)
        for comp in (fast, passes):
            got = _execute(lib, comp, inputs, out_shapes, out_dtypes)
            for w, g in zip(want, got):
                assert torch.equal(w, g), f"{(w.to(torch.int64) - g.to(torch.int64)).abs().max()} off"
            results = results or got
    return results


# -- convolutions -----------------------------------------------------------------------------------
def _out_size(size: int, k: int, stride: int, head: int, tail: int, dilation: int) -> int:
    return (size + head + tail - ((k - 1) * dilation + 1)) // stride + 1


def _per_channel_filter(lib, m: Model, w: torch.Tensor, scales: list[float], axis: int) -> int:
    idx = m.tensor(list(w.shape), QS8PC)
    arr = (c_float * len(scales))(*scales)
    m.keep.append(arr)
    pc = PerChannel(axis, len(scales), arr)
    assert lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(m.handle, idx, byref(pc)) == 0
    m.set_value(idx, w.contiguous().numpy().tobytes())
    return idx


def conv_model(lib, name: str, kind: str, *, h=9, w=8, cin=4, cout=6, k=3, stride=1, pads=(1, 1, 1, 1),
               act=0, per_channel=True, nchw=False, dilation=1, extra=None, weight_range=127, zp_w=0,
               batch=1, seed=0, s_out=None, then=None, both=False):
    """One 8-bit convolution with random codes, scales and zero points; returns (model, inputs,
    output shape, output dtype). ``then``: a one-input 8-bit operation applied to its result, which
    becomes the model's output instead (``both``: the convolution's result stays one, first)."""
    q_type, dtype = DTYPES[kind]
    gen = torch.Generator().manual_seed(seed)
    m = Model(lib)
    lo, hi = qm.QRANGE[dtype]
    zp_in, zp_out = (int(torch.randint(lo, hi + 1, (), generator=gen)) for _ in range(2))
    s_in = 0.02 + 0.03 * float(torch.rand((), generator=gen))
    s_out = s_out or 0.05 + 0.4 * float(torch.rand((), generator=gen))
    x = _codes(gen, (batch, cin, h, w) if nchw else (batch, h, w, cin), dtype)
    depthwise = name == "DEPTHWISE_CONV_2D"
    if depthwise:
        wshape, axis = (1, k, k, cout), 3
    else:
        groups = extra if name == "GROUPED_CONV_2D" else 1
        wshape, axis = (cout, k, k, cin // groups), 0
    inp = m.tensor(list(x.shape), q_type, scale=s_in, zp=zp_in)
    if per_channel:
        wq = torch.randint(-weight_range, weight_range + 1, wshape, generator=gen, dtype=torch.int32).to(torch.int8)
        scales = [0.002 + 0.02 * float(v) for v in torch.rand(cout, generator=gen)]
        filt = _per_channel_filter(lib, m, wq, scales, axis)
        bias_scale = 0.0
    else:
        wq = _codes(gen, wshape, dtype)
        s_w = 0.002 + 0.02 * float(torch.rand((), generator=gen))
        filt = m.const(wq, q_type, scale=s_w, zp=zp_w)
        bias_scale = float(torch.tensor(s_in * s_w, dtype=torch.float32))
    bias = m.const(torch.randint(-3000, 3000, (cout,), generator=gen, dtype=torch.int32), TI32, scale=bias_scale)
    left, right, top, bottom = pads
    ins = [inp, filt, bias, *(m.i32(v) for v in pads), m.i32(stride), m.i32(stride)]
    if extra is not None:
        ins.append(m.i32(extra))
    ins.append(m.i32(act))
    if nchw or dilation != 1 or name == "GROUPED_CONV_2D":
        ins.append(m.bool(nchw))
    if dilation != 1:
        ins += [m.i32(dilation), m.i32(dilation)]
    oh, ow = _out_size(h, k, stride, top, bottom, dilation), _out_size(w, k, stride, left, right, dilation)
    out_shape = (batch, cout, oh, ow) if nchw else (batch, oh, ow, cout)
    out = m.tensor(list(out_shape), q_type, scale=s_out, zp=zp_out)
    m.op(name, ins, [out])
    if then is not None:
        s_act, zp_act = {"LOGISTIC": (1 / 256, lo), "TANH": (1 / 128, (lo + hi + 1) // 2)}.get(then, (s_out, zp_out))
        activated = m.tensor(list(out_shape), q_type, scale=s_act, zp=zp_act)
        m.op(then, [out], [activated])
        if both:
            m.io([inp], [out, activated])
            return m, [x], out_shape, dtype
        out = activated
    m.io([inp], [out])
    return m, [x], out_shape, dtype


# 1x1 convolutions: the compiled product with its requantization on machines with AVX-512 VNNI or
# AVX2 (its plain C product is compared in test_native_kernels.py), torch._int_mm elsewhere.
VECTOR = _native.kernels() is not None and _native.kernels().vector_product is not None
# oneDNN's u8 x s8 sums saturate on x86 without VNNI (VPMADDUBSW): its kernels are not chosen there.
ONEDNN_EXACT = qf.onednn_exact()
PACKED = "compiled 8-bit product" if VECTOR else "torch._int_mm"


def unrolled(otherwise: str) -> tuple[str, str]:
    """Other ungrouped NHWC convolutions: the same product over taps unrolled in C where it runs,
    else oneDNN (or torch._int_mm over the float32 bound); a (with the loops, without) pair."""
    return ("compiled 8-bit product" if VECTOR else otherwise, otherwise)


# Depth multiplier 1 at any size: the compiled depthwise loop where the machine has its vector sums.
DEPTHWISE_VECTOR = _native.kernels() is not None and _native.kernels().depthwise_vector
CONV_CASES = {
    # name: (operation, keyword arguments, the prepared kernel expected)
    "conv3x3": ("CONV_2D", dict(), unrolled("oneDNN")),
    "conv_relu6_stride2_same_asymmetric": ("CONV_2D", dict(h=10, w=10, stride=2, pads=(0, 1, 0, 1), act=3),
                                           unrolled("oneDNN")),
    "conv_relu_dilated": ("CONV_2D", dict(h=11, w=12, dilation=2, pads=(2, 2, 2, 2), act=1), unrolled("oneDNN")),
    "conv_nchw_batch2": ("CONV_2D", dict(nchw=True, batch=2, act=2), "oneDNN"),
    "conv1x1": ("CONV_2D", dict(k=1, pads=(0, 0, 0, 0), cin=16, cout=24), (PACKED, "torch._int_mm")),
    # Depth and channels that are not multiples of the packed blocks (4 and 16), two images.
    "conv1x1_ragged": ("CONV_2D", dict(k=1, pads=(0, 0, 0, 0), cin=37, cout=21, batch=2, act=1),
                       (PACKED, "torch._int_mm")),
    # uint8 codes 0..255 of a zero point 0 do not fit int8: oneDNN's two parts.
    "conv_per_tensor_filter": ("CONV_2D", dict(per_channel=False, zp_w=0),
                               {"int8": unrolled("oneDNN"), "uint8": "convolution, 2 parts"}),
    "conv_per_tensor_uint8_filter_split": ("CONV_2D", dict(per_channel=False, zp_w=3, act=1), "convolution, 2 parts"),
    "conv_over_float32_bound": ("CONV_2D", dict(cin=300, cout=5, h=5, w=6, s_out=40.0), unrolled("torch._int_mm")),
    "conv1x1_over_float32_bound_stride2": ("CONV_2D", dict(k=1, pads=(0, 0, 0, 0), cin=3000, cout=7, stride=2,
                                                           s_out=60.0), unrolled("torch._int_mm")),
    "conv_over_float32_bound_nchw_padded": ("CONV_2D", dict(cin=300, cout=5, h=5, w=6, nchw=True,
                                                            pads=(1, 0, 2, 1), s_out=40.0), "torch._int_mm"),
    "depthwise": ("DEPTHWISE_CONV_2D", dict(cout=8, extra=2), "oneDNN"),       # depth multiplier 2
    # Multiplier 1: the compiled depthwise loop (oneDNN without it).
    "depthwise_relu6_stride2": ("DEPTHWISE_CONV_2D", dict(cin=8, cout=8, extra=1, stride=2, pads=(0, 1, 0, 1),
                                                          act=3), ("compiled depthwise", "oneDNN")),
    "depthwise_per_tensor_split": ("DEPTHWISE_CONV_2D", dict(cin=5, cout=5, extra=1, per_channel=False, zp_w=200),
                                   ("compiled depthwise", "convolution, 2 parts")),
    "depthwise_dilated_5x5_asymmetric": ("DEPTHWISE_CONV_2D", dict(cin=40, cout=40, extra=1, k=5, dilation=2, h=13,
                                                                   w=12, pads=(3, 5, 4, 4), act=1, batch=2),
                                         ("compiled depthwise", "oneDNN")),
    "depthwise_large": ("DEPTHWISE_CONV_2D", dict(cin=24, cout=24, extra=1, h=20, w=19),
                        ("compiled depthwise" if DEPTHWISE_VECTOR else "oneDNN", "oneDNN")),
    "grouped": ("GROUPED_CONV_2D", dict(cin=6, cout=4, extra=2, act=1), "oneDNN"),
}


# A per-tensor int8 filter has zero point 0 and fits int8 as it is: the split is for uint8 filters.
CONV_PARAMS = [(case, kind) for case in CONV_CASES for kind in DTYPES if not ("split" in case and kind == "int8")]


def _engines(engine, kind: str) -> tuple[str, str]:
    """(with the compiled loops, without): a case's expected kernel, one name or a pair (or a
    dict of those by input type)."""
    if isinstance(engine, dict):
        engine = engine[kind]
    if isinstance(engine, str):
        return engine, engine
    return engine if _native.kernels() is not None else (engine[1], engine[1])


@pytest.mark.parametrize("case,kind", CONV_PARAMS)
def test_convolutions_equal_the_reference(lib, driver, monkeypatch, case, kind):
    name, kw, engine = CONV_CASES[case]
    fast, passes = _engines(engine, kind)
    m, inputs, out_shape, dtype = conv_model(lib, name, kind, seed=len(case), **kw)
    codes = same_bytes(lib, driver, monkeypatch, m, inputs, [out_shape], [dtype],
                       {name: (fast, "proved float64 requantization")}, runs=3,
                       expect_passes={name: (passes, "proved float64 requantization")})[0]
    assert len(codes.unique()) > 3  # the case exercises the requantization, not only its clamp


@pytest.mark.parametrize("kind", DTYPES)
@pytest.mark.parametrize("case,then", [("conv3x3", "HARD_SWISH"), ("conv1x1", "LOGISTIC"),
                                       ("depthwise_relu6_stride2", "TANH"), ("conv_nchw_batch2", "HARD_SWISH")])
def test_an_activation_table_joins_the_convolution_before_it(lib, driver, monkeypatch, kind, case, then):
    """conv -> HARD_SWISH / LOGISTIC / TANH: one step, the table looked up as the codes are written."""
    name, kw, engine = CONV_CASES[case]
    fast, passes = _engines(engine, kind)
    m, inputs, out_shape, dtype = conv_model(lib, name, kind, seed=len(case), then=then, **kw)
    codes = same_bytes(lib, driver, monkeypatch, m, inputs, [out_shape], [dtype],
                       {name: (fast, "proved float64 requantization", "then a table of 256 codes")}, runs=3,
                       expect_passes={name: (passes, "then a table of 256 codes")})[0]
    assert len(codes.unique()) > 3
    plan = driver.lookup(m.compile().value, Compilation, "compilation").plan
    assert [st.op.name for st in plan.steps] == [name]


def test_an_activation_does_not_join_a_convolution_whose_result_is_a_model_output(lib, driver, monkeypatch):
    m, inputs, out_shape, dtype = conv_model(lib, "CONV_2D", "uint8", then="HARD_SWISH", both=True)
    same_bytes(lib, driver, monkeypatch, m, inputs, [out_shape] * 2, [dtype] * 2,
               {"CONV_2D": ("proved float64 requantization",), "HARD_SWISH": ("table",)})
    plan = driver.lookup(m.compile().value, Compilation, "compilation").plan
    assert [st.op.name for st in plan.steps] == ["CONV_2D", "HARD_SWISH"]


@pytest.mark.parametrize("kind", DTYPES)
@pytest.mark.parametrize("batch,act,zp_w", [(1, 0, 0), (5, 1, 9), (3, 3, 250), (2, 0, 128)])
def test_fully_connected_equals_the_reference(lib, driver, monkeypatch, kind, batch, act, zp_w):
    q_type, dtype = DTYPES[kind]
    gen = torch.Generator().manual_seed(batch)
    lo, hi = qm.QRANGE[dtype]
    units, depth = 10, 37
    s_in, s_w, s_out = 0.03, 0.004, 0.07
    zp_w = zp_w if dtype == torch.uint8 else zp_w % 20 - 10
    m = Model(lib)
    x = _codes(gen, (batch, depth), dtype)
    inp = m.tensor([batch, depth], q_type, scale=s_in, zp=int(torch.randint(lo, hi + 1, (), generator=gen)))
    wq = m.const(_codes(gen, (units, depth), dtype), q_type, scale=s_w, zp=zp_w)
    bias = m.const(torch.randint(-500, 500, (units,), generator=gen, dtype=torch.int32), TI32,
                   scale=float(torch.tensor(s_in * s_w, dtype=torch.float32)))
    out = m.tensor([batch, units], q_type, scale=s_out, zp=(lo + hi) // 2)
    m.op("FULLY_CONNECTED", [inp, wq, bias, m.i32(act)], [out])
    m.io([inp], [out])
    # The compiled product where there is one (per-tensor weights as q_w − 128 or q_w, the rest of
    # the zero point times each row's sum), else torch._int_mm with the same correction.
    same_bytes(lib, driver, monkeypatch, m, [x], [(batch, units)], [dtype],
               {"FULLY_CONNECTED": (PACKED, "proved float64 requantization")}, runs=3,
               expect_passes={"FULLY_CONNECTED": ("torch._int_mm", "proved float64 requantization")})


# -- element-wise operations: tables --------------------------------------------------------------------
@pytest.mark.parametrize("kind", DTYPES)
@pytest.mark.parametrize("name,act", [("ADD", 0), ("ADD", 1), ("SUB", 2), ("MUL", 0), ("MUL", 3)])
@pytest.mark.parametrize("b_shape", [(2, 5, 6, 7), (1, 1, 1, 7), (6, 7)])
def test_binary_operations_equal_the_reference(lib, driver, monkeypatch, kind, name, act, b_shape):
    q_type, dtype = DTYPES[kind]
    gen = torch.Generator().manual_seed(len(b_shape) + act)
    lo, hi = qm.QRANGE[dtype]
    zps = [int(torch.randint(lo, hi + 1, (), generator=gen)) for _ in range(3)]
    scales = (0.05, 0.02, 0.04) if name != "MUL" else (0.05, 0.02, 0.01)
    m = Model(lib)
    a = m.tensor([2, 5, 6, 7], q_type, scale=scales[0], zp=zps[0])
    b = m.tensor(list(b_shape), q_type, scale=scales[1], zp=zps[1])
    out = m.tensor([2, 5, 6, 7], q_type, scale=scales[2], zp=zps[2])
    m.op(name, [a, b, m.i32(act)], [out])
    m.io([a, b], [out])
    inputs = [_codes(gen, (2, 5, 6, 7), dtype), _codes(gen, b_shape, dtype)]
    same_bytes(lib, driver, monkeypatch, m, inputs, [(2, 5, 6, 7)], [dtype], {name: ("table",)})


@pytest.mark.parametrize("kind", DTYPES)
@pytest.mark.parametrize("name", ["LOGISTIC", "TANH", "HARD_SWISH", "DEQUANTIZE"])
def test_one_input_operations_equal_the_reference(lib, driver, monkeypatch, kind, name):
    q_type, dtype = DTYPES[kind]
    s_out, zp_out = {"LOGISTIC": (1 / 256, 0 if kind == "uint8" else -128),
                     "TANH": (1 / 128, 128 if kind == "uint8" else 0)}.get(name, (0.03, 5))
    m = Model(lib)
    x = m.tensor([3, 4, 5, 6], q_type, scale=0.06, zp=17)
    out_type, out_dtype = (TF32, torch.float32) if name == "DEQUANTIZE" else (q_type, dtype)
    out = m.tensor([3, 4, 5, 6], out_type, **({} if name == "DEQUANTIZE" else dict(scale=s_out, zp=zp_out)))
    m.op(name, [x], [out])
    m.io([x], [out])
    inputs = [_codes(torch.Generator().manual_seed(1), (3, 4, 5, 6), dtype)]
    same_bytes(lib, driver, monkeypatch, m, inputs, [(3, 4, 5, 6)], [out_dtype], {name: ("table",)})


@pytest.mark.parametrize("kind", DTYPES)
@pytest.mark.parametrize("logistic_first", [False, True])
def test_silu_becomes_one_table(lib, driver, monkeypatch, kind, logistic_first):
    """MUL(x, LOGISTIC(x)): one table of x's codes, the LOGISTIC step gone."""
    q_type, dtype = DTYPES[kind]
    m = Model(lib)
    x = m.tensor([2, 6, 6, 5], q_type, scale=0.07, zp=3)
    sig = m.tensor([2, 6, 6, 5], q_type, scale=1 / 256, zp=0 if kind == "uint8" else -128)
    out = m.tensor([2, 6, 6, 5], q_type, scale=0.05, zp=-7 if kind == "int8" else 9)
    m.op("LOGISTIC", [x], [sig])
    m.op("MUL", [sig, x, m.i32(0)] if logistic_first else [x, sig, m.i32(0)], [out])
    m.io([x], [out])
    inputs = [_codes(torch.Generator().manual_seed(6), (2, 6, 6, 5), dtype)]
    same_bytes(lib, driver, monkeypatch, m, inputs, [(2, 6, 6, 5)], [dtype], {"MUL": ("two operations",)})
    plan = driver.lookup(m.compile().value, Compilation, "compilation").plan
    assert [st.op.name for st in plan.steps] == ["MUL"]


# -- pooling ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", DTYPES)
@pytest.mark.parametrize("name", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
@pytest.mark.parametrize("pads,stride,kernel,act,nchw", [
    ((0, 0, 0, 0), 1, (7, 6), 0, False),      # the whole image (a global pool)
    ((1, 1, 1, 1), 2, (3, 3), 1, False),
    ((0, 2, 1, 0), 1, (3, 4), 3, False),
    ((1, 1, 0, 0), 2, (2, 3), 0, True),
])
def test_pools_equal_the_reference(lib, driver, monkeypatch, kind, name, pads, stride, kernel, act, nchw):
    q_type, dtype = DTYPES[kind]
    n, h, w, c = 2, 7, 6, 37   # 37 channels: a vector of the compiled max pool and a remainder
    kh, kw = kernel
    oh, ow = _out_size(h, kh, stride, pads[2], pads[3], 1), _out_size(w, kw, stride, pads[0], pads[1], 1)
    in_shape, out_shape = ((n, c, h, w), (n, c, oh, ow)) if nchw else ((n, h, w, c), (n, oh, ow, c))
    m = Model(lib)
    x = m.tensor(list(in_shape), q_type, scale=0.1, zp=-3 if kind == "int8" else 40)
    out = m.tensor(list(out_shape), q_type, scale=0.1, zp=-3 if kind == "int8" else 40)
    ins = [x, *(m.i32(v) for v in pads), m.i32(stride), m.i32(stride), m.i32(kw), m.i32(kh), m.i32(act)]
    m.op(name, ins + ([m.bool(True)] if nchw else []), [out])
    m.io([x], [out])
    inputs = [_codes(torch.Generator().manual_seed(2), in_shape, dtype)]
    same_bytes(lib, driver, monkeypatch, m, inputs, [out_shape], [dtype], {name: ("pool",)})


# -- constant folding ------------------------------------------------------------------------------------------
def test_a_constant_weight_is_dequantized_once_when_the_plan_is_made(lib, driver, monkeypatch):
    """Weight-only int8: DEQUANTIZE of a constant feeding FULLY_CONNECTED (float)."""
    gen = torch.Generator().manual_seed(4)
    m = Model(lib)
    x = m.tensor([2, 16])
    wq = m.const(_codes(gen, (8, 16), torch.uint8), QA8, scale=0.01, zp=120)
    wf = m.tensor([8, 16])
    m.op("DEQUANTIZE", [wq], [wf])
    out = m.tensor([2, 8])
    m.op("FULLY_CONNECTED", [x, wf, m.const(torch.randn(8, generator=gen)), m.i32(0)], [out])
    m.io([x], [out])
    same_bytes(lib, driver, monkeypatch, m, [torch.randn(2, 16, generator=gen)], [(2, 8)], [torch.float32], {})
    plan = driver.lookup(m.compile().value, Compilation, "compilation").plan
    assert [st.op.name for st in plan.steps] == ["FULLY_CONNECTED"]
    assert plan.env_template[wf].dtype == torch.float32


@pytest.mark.parametrize("rows,per_channel,bias_input", [(1, True, False), (5, True, True), (3, False, False),
                                                         (40, True, False)])
def test_int8_weights_of_a_float_fully_connected_are_read_as_codes(lib, driver, monkeypatch, rows, per_channel,
                                                                     bias_input):
    """Weight-only int8 with int8 codes (zero point 0): the FULLY_CONNECTED reads the DEQUANTIZE's
    codes and scales (no float32 copy of the weights) up to _weight_only.MAX_ROWS rows, and
    equals the reference plan's DEQUANTIZE + FULLY_CONNECTED within float32 rounding; more rows
    keep the folded DEQUANTIZE."""
    from executorch_nnapi.host_driver.operations import _weight_only

    gen = torch.Generator().manual_seed(rows)
    units, depth = 21, 67
    m = Model(lib)
    x = m.tensor([rows, depth])
    codes = torch.randint(-127, 128, (units, depth), dtype=torch.int8, generator=gen)
    scales = [0.002 + 0.0003 * i for i in range(units)]
    wq = _per_channel_filter(lib, m, codes, scales, 0) if per_channel else m.const(codes, QS8, scale=0.004, zp=0)
    wf = m.tensor([units, depth])
    m.op("DEQUANTIZE", [wq], [wf])
    bias = m.tensor([units]) if bias_input else m.const(torch.randn(units, generator=gen))
    out = m.tensor([rows, units])
    m.op("FULLY_CONNECTED", [x, wf, bias, m.i32(1)], [out])
    m.io([x, bias] if bias_input else [x], [out])
    m.finish()
    inputs = [torch.randn(rows, depth, generator=gen)] + ([torch.randn(units, generator=gen)] if bias_input else [])
    monkeypatch.setenv(qf.REFERENCE_VARIABLE, "1")
    reference = m.compile()
    monkeypatch.delenv(qf.REFERENCE_VARIABLE)
    fast = m.compile()
    plan = driver.lookup(fast.value, Compilation, "compilation").plan
    fused = rows <= _weight_only.MAX_ROWS and _native.kernels() is not None
    assert [st.op.name for st in plan.steps] == ["FULLY_CONNECTED"]
    assert ("weight-only int8" in (getattr(plan.steps[0].fn, "prepared", None) or "")) == fused
    assert (plan.env_template[wf] is None) == fused          # no float32 copy of the weights when fused
    (want,) = _execute(lib, reference, inputs, [(rows, units)], [torch.float32])
    (got,) = _execute(lib, fast, inputs, [(rows, units)], [torch.float32])
    assert (want > 0).any() and (want == 0).any()           # the fused RELU at work
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


# -- the requantization proof ------------------------------------------------------------------------------
def _params(multipliers, dtype=torch.uint8, zp=100, act_range=None) -> types.SimpleNamespace:
    mults = [qm.quantize_multiplier(v) for v in multipliers]
    return types.SimpleNamespace(q_m=torch.tensor([a for a, _ in mults]), q_shift=torch.tensor([s for _, s in mults]),
                                 q_zp=(0, 0, zp), q_dtype=dtype, q_range=act_range or qm.QRANGE[dtype])


@pytest.mark.parametrize("multipliers,dtype,zp,act_range", [
    ([0.0037, 0.5, 0.25, 0.0009765625, 0.013], torch.uint8, 100, None),     # 0.5, 0.25, 2^-10: M = 2^30
    ([0.0037, 0.02, 1.7, 3.0], torch.int8, -5, None),                        # multipliers above 1: a left shift
    ([2.1e-7, 0.0003, 0.06], torch.int8, 0, (-20, 90)),                      # a tiny multiplier, a clamped range
    ([0.0041, 0.008], torch.uint8, 0, (0, 255)),                             # ReLU-like: no negative branch
])
def test_the_proved_requantizer_equals_multiply_by_quantized_multiplier(multipliers, dtype, zp, act_range):
    p = _params(multipliers, dtype, zp, act_range)
    channels = len(multipliers)
    gen = torch.Generator().manual_seed(channels)
    offset = torch.randint(-4000, 4000, (channels,), generator=gen)
    bound = torch.full((channels,), 1 << 23)
    req = qf.build_requantizer(p, offset, -bound, bound)
    assert req is not None
    # Random accumulators, and every integer around each of the reference's steps.
    steps = qf.reference_steps(p, torch.arange(p.q_range[0] + 1, p.q_range[1] + 1), slice(None)) - offset[:, None]
    near = (steps[:, :, None] + torch.arange(-3, 4)).reshape(channels, -1)
    acc = torch.cat([torch.randint(-(1 << 23), 1 << 23, (channels, 5000), generator=gen), near], 1)
    acc = acc.clamp(-(1 << 23), 1 << 23)
    want = qk.requantize_acc(acc + offset[:, None], p, 0)
    assert torch.equal(req(acc.to(torch.float32), 0), want)
    assert torch.equal(req(acc.to(torch.int32), 0), want)


def test_the_proof_refuses_a_requantizer_one_step_off():
    p = _params([0.0037, 0.011], torch.uint8, 120)
    offset, bound = torch.tensor([10, -7]), torch.full((2,), 1 << 20)
    req = qf.build_requantizer(p, offset, -bound, bound)
    assert req is not None and qf.verify(req, p, offset, -bound, bound)
    # One accumulator unit later: every step moves by one, which the pairs around the steps see.
    wrong = qf.Requantizer(req.r, req.c - req.r, req.branch, *p.q_range, p.q_dtype, req.int32_clamp)
    assert not qf.verify(wrong, p, offset, -bound, bound)


# -- Android's 8-bit cases, both ways -------------------------------------------------------------------------
PREPARED = set(_prepared.MAKERS)
QUANT8 = {"TENSOR_QUANT8_ASYMM", "TENSOR_QUANT8_ASYMM_SIGNED", "TENSOR_QUANT8_SYMM_PER_CHANNEL"}


def _android_8bit_cases():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "conformance"))
    from spec_cases import load_cases

    return [c for c in load_cases() if not c.expect_failure and not c.lifetime
            and any(name in PREPARED for name, _, _ in c.main.operations)
            and any(o.type_name in QUANT8 for o in c.main.operands)]


@pytest.mark.xdist_group("aosp_specs")  # on the worker that parses the specs (test_conformance.py)
def test_androids_8bit_cases_give_the_same_bytes_both_ways(lib, driver, monkeypatch):
    cases = _android_8bit_cases()
    import cts_runner
    from cts_runner import declare_extra_signatures, run_case

    declare_extra_signatures(lib)
    assert len(cases) > 200
    captured: list = []
    monkeypatch.setattr(cts_runner, "check_outputs", lambda case, outputs: captured.append(
        [o.copy() for o in outputs]))
    compared = 0
    for case in cases:
        results = []
        for reference in (True, False):
            if reference:
                monkeypatch.setenv(qf.REFERENCE_VARIABLE, "1")
            else:
                monkeypatch.delenv(qf.REFERENCE_VARIABLE)
            captured.clear()
            outcome = run_case(lib, case)
            results.append((outcome.status, [o.tobytes() for o in captured[0]] if captured else None))
        assert results[0] == results[1], case.name
        compared += results[0][1] is not None
    assert compared > 200


# -- a whole model -------------------------------------------------------------------------------------------
def _small_cnn() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU6(),
        torch.nn.Conv2d(16, 16, 3, padding=1, groups=16), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 24, 1), torch.nn.Hardswish(), torch.nn.Conv2d(24, 24, 1), torch.nn.SiLU(),
        torch.nn.Conv2d(24, 24, 3, padding=1), torch.nn.Sigmoid(),
        torch.nn.MaxPool2d(2), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(24, 10)).eval()


@pytest.mark.parametrize("signed", [False, True])
def test_a_quantized_model_gives_the_same_bytes_both_ways(monkeypatch, signed):
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e

    import executorch_nnapi.runtime  # noqa: F401  (the NNAPI backend, on the host driver)
    from quantized_reference import calibrated
    from executorch_nnapi.partitioners import NnapiPartitioner
    from executorch_nnapi.quantizer import NnapiQuantizer

    x = torch.randn(1, 3, 32, 32)
    gm = prepare_pt2e(torch.export.export(_small_cnn(), (x,)).module(), NnapiQuantizer(30, signed=signed))
    program = to_edge_transform_and_lower(torch.export.export(calibrated(gm, (x,), 4), (x,)),
                                          partitioner=[NnapiPartitioner(30)]).to_executorch()
    prepared: list = []
    real = _prepared.prepared_kernel
    monkeypatch.setattr(_prepared, "prepared_kernel", lambda name, *a: prepared.append((name, real(name, *a))) or
                        prepared[-1][1])
    programs, methods = [], []   # a Method needs its Program alive
    for reference in (True, False):
        if reference:
            monkeypatch.setenv(qf.REFERENCE_VARIABLE, "1")
        else:
            monkeypatch.delenv(qf.REFERENCE_VARIABLE)
        programs.append(Runtime.get().load_program(program.buffer))
        methods.append(programs[-1].load_method("forward"))
    made = {name for name, kernel in prepared if kernel is not None}
    assert {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "HARD_SWISH", "LOGISTIC"} <= made
    gen = torch.Generator().manual_seed(5)
    for _ in range(4):
        inp = torch.randn(1, 3, 32, 32, generator=gen) * 2
        want, got = (method.execute([inp])[0] for method in methods)
        assert torch.equal(want, got)


def test_every_prepared_operation_is_a_driver_operation_with_an_8bit_kernel():
    """The prepared set names real 8-bit operations (a renamed one would silently lose its kernel)."""
    by_name = {op.NAME: op for op in operations.OPERATIONS.values()}
    for name in PREPARED:
        assert name in by_name, name
        assert by_name[name].QUANT_COMPUTE, name
