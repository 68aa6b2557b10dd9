"""The host driver's 8-bit integer kernels against LiteRT's reference kernels and NNAPI's rules.

Each test builds one operation twice on the same operands (codes, scales, zero points; random but
seeded): as an NNAPI model run on the host driver through the shim, and as a one-op .tflite model
run on LiteRT's BUILTIN_REF kernels. Where NNAPI's rule and TFLite's agree the results must be
equal bit for bit; where docs/nnapi_facts.md §10 says they differ, the driver must equal the
integer model of NNAPI's rule in nnapi_rules.py, and the test reports how far LiteRT is from it.
"""

from __future__ import annotations

import ctypes
import zlib
from ctypes import POINTER, byref, c_bool, c_float, c_uint32, c_void_p

import numpy as np
import pytest
import tflite
import torch

import nnapi_rules as rules
from litert_oracle import T, options_of, q, run_single_op
from nnapi_client import BAD_DATA, FL6, OP_FAILED, QA8, TB8, TI32, Model, host_driver_at

QA8S, QS8PC, QS8, TF32 = 14, 11, 13, 3
BO, OPT = tflite.BuiltinOperator, tflite.BuiltinOptions
KINDS = {"uint8": (np.uint8, QA8, torch.uint8), "int8": (np.int8, QA8S, torch.int8)}


class PerChannel(ctypes.Structure):
    _fields_ = [("channelDim", c_uint32), ("scaleCount", c_uint32), ("scales", POINTER(c_float))]


@pytest.fixture(scope="module")
def lib(lib):
    """The shared shim, with the per-channel parameters' C struct declared."""
    lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams.argtypes = (c_void_p, ctypes.c_int32,
                                                                             POINTER(PerChannel))
    return lib


def seeded(*key) -> np.random.Generator:
    """A generator seeded from the test's parameters (stable across runs, unlike hash())."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def codes(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


class Op:
    """One NNAPI operation on the host driver: operands added as the NNAPI inputs are listed."""

    def __init__(self, lib):
        self.m, self.lib = Model(lib), lib
        self.ins, self.feeds = [], []

    def tensor(self, x: np.ndarray, type_: int, scale=0.0, zp=0, const=False, channel_scales=None, axis=0):
        t = torch.from_numpy(np.ascontiguousarray(x))
        idx = self.m.tensor(list(x.shape), type_, scale=scale, zp=zp)
        if channel_scales is not None:
            arr = (c_float * len(channel_scales))(*channel_scales)
            self.m.keep.append(arr)
            pc = PerChannel(axis, len(channel_scales), arr)
            assert self.lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
                self.m.handle, idx, byref(pc)) == 0
        if const:
            self.m.set_value(idx, t.numpy().tobytes())
        else:
            self.feeds.append((idx, t))
        self.ins.append(idx)
        return self

    def i32(self, *vs):
        self.ins += [self.m.i32(v) for v in vs]
        return self

    def f32(self, v):
        self.ins.append(self.m.f32(v))
        return self

    def run(self, name: str, out_shape, out_type: int, scale=0.0, zp=0, dtype=torch.uint8) -> np.ndarray:
        out = self.m.tensor(list(out_shape), out_type, scale=scale, zp=zp)
        self.m.op(name, self.ins, [out])
        self.m.io([i for i, _ in self.feeds], [out])
        (res,) = self.m.run([t for _, t in self.feeds], [out_shape], out_dtype=dtype)
        return res.numpy()


def report(name: str, driver_out: np.ndarray, litert_out: np.ndarray) -> int:
    """Print how many elements of LiteRT's result differ from NNAPI's rule, and by how much."""
    d = np.abs(driver_out.astype(np.int64) - litert_out.astype(np.int64))
    print(f"{name}: LiteRT differs from NNAPI's rule in {int((d > 0).sum())} of {d.size} elements "
          f"(max {int(d.max())})")
    return int(d.max())


# -- ADD, SUB, MUL: the same rule in both (bit-exact) ------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name,act", [("ADD", 0), ("ADD", 1), ("SUB", 3), ("MUL", 0), ("MUL", 2)])
def test_binary_bit_exact_with_litert(lib, driver, kind, name, act):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, name, act))
    a, b = codes(rng, (2, 3, 4, 5), npt), codes(rng, (4, 5), npt)
    info = np.iinfo(npt)
    s1, s2, so = rng.uniform(0.01, 0.1), rng.uniform(0.01, 0.1), rng.uniform(0.02, 0.3)
    z1, z2, zo = (int(rng.integers(info.min, info.max + 1)) for _ in range(3))
    ours = Op(lib).tensor(a, nt, s1, z1).tensor(b, nt, s2, z2).i32(act).run(name, (2, 3, 4, 5), nt, so, zo, tt)
    options = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions"}[name]
    (ref,) = run_single_op(getattr(BO, name), [q(a.shape, npt, s1, z1), q(b.shape, npt, s2, z2),
                                               q((2, 3, 4, 5), npt, so, zo)], [0, 1], [2], [a, b],
                           getattr(OPT, options), options_of(options, FusedActivationFunction=act))
    np.testing.assert_array_equal(ours, ref)


# -- convolutions ------------------------------------------------------------------------------------------
def _conv_case(rng, npt, depthwise: bool, per_channel: bool):
    n, h, w, cin, mult, k = 1, 9, 8, 4, 2, 3
    cout = cin * mult if depthwise else 5
    info = np.iinfo(npt)
    x = codes(rng, (n, h, w, cin), npt)
    wshape = (1, k, k, cout) if depthwise else (cout, k, k, cin)
    s_in, s_out = rng.uniform(0.01, 0.05), rng.uniform(0.05, 0.5)
    zp_in, zp_out = (int(rng.integers(info.min, info.max + 1)) for _ in range(2))
    if per_channel:
        wq = codes(rng, wshape, np.int8)
        wq[wq == -128] = -127
        s_w = rng.uniform(0.002, 0.02, size=cout).astype(np.float32)
        zp_w = 0
    else:
        wq, s_w, zp_w = codes(rng, wshape, npt), np.float32(rng.uniform(0.002, 0.02)), 0
        if npt == np.uint8:
            zp_w = int(rng.integers(0, 256))
    bias_scale = (np.float32(s_in) * s_w).astype(np.float32)
    bias = rng.integers(-2000, 2000, size=cout).astype(np.int32)
    return x, wq, s_w, zp_w, bias, bias_scale, (s_in, zp_in, s_out, zp_out), cout


def _run_conv(lib, name, kind, case, stride, act, padding):
    npt, nt, tt = KINDS[kind]
    x, wq, s_w, zp_w, bias, bias_scale, (s_in, zp_in, s_out, zp_out), cout = case
    per_channel = np.ndim(s_w) == 1
    depthwise = name == "DEPTHWISE_CONV_2D"
    op = Op(lib).tensor(x, nt, s_in, zp_in)
    if per_channel:
        op.tensor(wq, QS8PC, const=True, channel_scales=[float(s) for s in s_w], axis=3 if depthwise else 0)
        op.tensor(bias, TI32, 0.0, 0, const=True)
    else:
        op.tensor(wq, nt, float(s_w), zp_w, const=True).tensor(bias, TI32, float(bias_scale), 0, const=True)
    op.i32(padding, stride, stride, *([2] if depthwise else []), act)
    oh, ow = (-(-x.shape[1] // stride), -(-x.shape[2] // stride)) if padding == 1 else \
        ((x.shape[1] - 3) // stride + 1, (x.shape[2] - 3) // stride + 1)
    out_shape = (1, oh, ow, cout)
    ours = op.run(name, out_shape, nt, s_out, zp_out, tt)
    tensors = [q(x.shape, npt, s_in, zp_in),
               q(wq.shape, np.int8 if per_channel else npt, s_w, zp_w, const=wq, axis=3 if depthwise else 0),
               q(bias.shape, np.int32, bias_scale, 0, const=bias, axis=0), q(out_shape, npt, s_out, zp_out)]
    pad = tflite.Padding.SAME if padding == 1 else tflite.Padding.VALID
    if depthwise:
        opts = options_of("DepthwiseConv2DOptions", Padding=pad, StrideW=stride, StrideH=stride, DepthMultiplier=2,
                          FusedActivationFunction=act)
        (ref,) = run_single_op(BO.DEPTHWISE_CONV_2D, tensors, [0, 1, 2], [3], [x], OPT.DepthwiseConv2DOptions, opts)
    else:
        opts = options_of("Conv2DOptions", Padding=pad, StrideW=stride, StrideH=stride, FusedActivationFunction=act)
        (ref,) = run_single_op(BO.CONV_2D, tensors, [0, 1, 2], [3], [x], OPT.Conv2DOptions, opts)
    return ours, ref


def _conv_rule(case, name, stride, act, padding, signed):
    """docs/nnapi_facts.md §9.6 element by element: integer accumulation over in-bounds taps, then the NNAPI multiplier."""
    x, wq, s_w, zp_w, bias, _, (s_in, zp_in, s_out, zp_out), cout = case
    xi = torch.from_numpy(x.astype(np.int64) - zp_in)
    wi = wq.astype(np.int64) - zp_w
    _, h, w, cin = x.shape
    oh, ow = (-(-h // stride), -(-w // stride)) if padding == 1 else ((h - 3) // stride + 1, (w - 3) // stride + 1)
    top = max(0, (oh - 1) * stride + 3 - h) // 2 if padding == 1 else 0
    left = max(0, (ow - 1) * stride + 3 - w) // 2 if padding == 1 else 0
    lo, hi = rules.activation_range(act, s_out, zp_out, signed)
    out = np.zeros((1, oh, ow, cout), dtype=np.int64)
    for oy in range(oh):
        for ox in range(ow):
            acc = bias.astype(np.int64).copy()
            for ky in range(3):
                for kx in range(3):
                    iy, ix = oy * stride - top + ky, ox * stride - left + kx
                    if 0 <= iy < h and 0 <= ix < w:
                        v = xi[0, iy, ix].numpy()
                        acc += np.repeat(v, 2) * wi[0, ky, kx] if name == "DEPTHWISE_CONV_2D" else wi[:, ky, kx] @ v
            for c in range(cout):
                sw = float(s_w[c]) if np.ndim(s_w) else float(s_w)
                out[0, oy, ox, c] = rules.conv_output(int(acc[c]), s_in, sw, s_out, zp_out, lo, hi)
    return out


@pytest.mark.parametrize("name", ["CONV_2D", "DEPTHWISE_CONV_2D"])
@pytest.mark.parametrize("stride,act,padding", [(1, 0, 1), (2, 1, 2), (1, 3, 1)])
def test_uint8_convolution_bit_exact_with_litert(lib, driver, name, stride, act, padding):
    rng = seeded((name, stride, act))
    case = _conv_case(rng, np.uint8, name == "DEPTHWISE_CONV_2D", per_channel=False)
    ours, ref = _run_conv(lib, name, "uint8", case, stride, act, padding)
    np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(ours, _conv_rule(case, name, stride, act, padding, signed=False))


@pytest.mark.parametrize("name", ["CONV_2D", "DEPTHWISE_CONV_2D"])
@pytest.mark.parametrize("stride,act,padding", [(1, 0, 1), (2, 1, 2), (1, 3, 1)])
def test_int8_per_channel_convolution_follows_nnapi_float32_multiplier(lib, driver, name, stride, act, padding):
    # docs/nnapi_facts.md §10: NNAPI forms the multiplier from float32(s_in·s_w[c]); TFLite's int8 kernel from the
    # double product, so LiteRT may differ by ±1 where that moves a rounding.
    rng = seeded((name, stride, act, "int8"))
    case = _conv_case(rng, np.int8, name == "DEPTHWISE_CONV_2D", per_channel=True)
    ours, ref = _run_conv(lib, name, "int8", case, stride, act, padding)
    np.testing.assert_array_equal(ours, _conv_rule(case, name, stride, act, padding, signed=True))
    assert report(f"{name} int8 per-channel", ours, ref) <= 1


# -- GROUPED_CONV_2D (LiteRT: CONV_2D whose filter has C/groups input channels), TRANSPOSE_CONV_2D ------------------
def _weights(rng, npt, shape, per_channel: bool):
    """(codes, scale(s), zero point) of a filter: int8 per output channel (dim 0), or per-tensor codes of the
    activations' type."""
    if per_channel:
        w = codes(rng, shape, np.int8)
        w[w == -128] = -127
        return w, rng.uniform(0.002, 0.02, size=shape[0]).astype(np.float32), 0
    zp = int(rng.integers(0, 256)) if npt == np.uint8 else 0
    return codes(rng, shape, npt), np.float32(rng.uniform(0.002, 0.02)), zp


def _add_filter(op: "Op", nt: int, w, s_w, zp_w, bias, s_in):
    if np.ndim(s_w):
        op.tensor(w, QS8PC, const=True, channel_scales=[float(v) for v in s_w], axis=0)
        return op.tensor(bias, TI32, 0.0, 0, const=True)
    return op.tensor(w, nt, float(s_w), zp_w, const=True).tensor(bias, TI32, float(np.float32(s_in) * s_w), 0,
                                                                 const=True)


def _requantized_acc(acc: np.ndarray, s_in, s_w, s_out, zp_out, act, signed) -> np.ndarray:
    """docs/nnapi_facts.md §9.6 output stage of every accumulator [N, H, W, C] with the rule model."""
    lo, hi = rules.activation_range(act, s_out, zp_out, signed)
    out = np.empty(acc.shape, dtype=np.int64)
    for idx in np.ndindex(acc.shape):
        sw = float(s_w[idx[-1]]) if np.ndim(s_w) else float(s_w)
        out[idx] = rules.conv_output(int(acc[idx]), s_in, sw, s_out, zp_out, lo, hi)
    return out


def _grouped_acc(x, zp_in, w, zp_w, bias, groups, top, left, out_hw) -> np.ndarray:
    """Integer accumulators of a grouped convolution (stride 1): out-of-bounds taps contribute nothing."""
    cout, k, _, cg = w.shape
    xi = x.astype(np.int64) - zp_in
    xi = np.pad(xi, ((0, 0), (top, k), (left, k), (0, 0)))
    wi = w.astype(np.int64) - zp_w
    oh, ow = out_hw
    acc = np.zeros((x.shape[0], oh, ow, cout), dtype=np.int64) + bias
    per_group = cout // groups
    for ky in range(k):
        for kx in range(k):
            patch = xi[:, ky:ky + oh, kx:kx + ow, :]
            for g in range(groups):
                sl = slice(g * per_group, (g + 1) * per_group)
                acc[..., sl] += patch[..., g * cg:(g + 1) * cg] @ wi[sl, ky, kx, :].T
    return acc


@pytest.mark.parametrize("kind,per_channel", [("uint8", False), ("int8", True)])
@pytest.mark.parametrize("act", [0, 1])
def test_grouped_convolution(lib, driver, kind, per_channel, act):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, "GROUPED_CONV_2D", act))
    info = np.iinfo(npt)
    groups, cin, cout, k = 3, 6, 9, 3
    x = codes(rng, (2, 7, 6, cin), npt)
    w, s_w, zp_w = _weights(rng, npt, (cout, k, k, cin // groups), per_channel)
    bias = rng.integers(-2000, 2000, size=cout).astype(np.int32)
    s_in, s_out = rng.uniform(0.01, 0.05), rng.uniform(0.05, 0.3)
    zp_in, zp_out = (int(rng.integers(info.min, info.max + 1)) for _ in range(2))
    op = _add_filter(Op(lib).tensor(x, nt, s_in, zp_in), nt, w, s_w, zp_w, bias, s_in)
    op.i32(1, 1, 1, groups, act)  # SAME padding, stride 1
    op.ins.append(op.m.bool(False))
    ours = op.run("GROUPED_CONV_2D", (2, 7, 6, cout), nt, s_out, zp_out, tt)
    acc = _grouped_acc(x, zp_in, w, zp_w, bias, groups, 1, 1, (7, 6))
    np.testing.assert_array_equal(ours, _requantized_acc(acc, s_in, s_w, s_out, zp_out, act, kind == "int8"))
    bias_scale = (np.float32(s_in) * s_w).astype(np.float32)
    tensors = [q(x.shape, npt, s_in, zp_in), q(w.shape, np.int8 if per_channel else npt, s_w, zp_w, const=w),
               q(bias.shape, np.int32, bias_scale, 0, const=bias), q((2, 7, 6, cout), npt, s_out, zp_out)]
    (ref,) = run_single_op(BO.CONV_2D, tensors, [0, 1, 2], [3], [x], OPT.Conv2DOptions,
                           options_of("Conv2DOptions", Padding=tflite.Padding.SAME, StrideW=1, StrideH=1,
                                      FusedActivationFunction=act))
    if per_channel:  # docs/nnapi_facts.md §10: TFLite's int8 multiplier comes from the double product
        assert report(f"GROUPED_CONV_2D {kind} act={act}", ours, ref) <= 1
    else:
        np.testing.assert_array_equal(ours, ref)


def _transposed_acc(x, zp_in, w, zp_w, bias, stride, out_hw, top, left) -> np.ndarray:
    """Integer accumulators of a transposed convolution: each input pixel scattered through the filter."""
    cout, k, _, _ = w.shape
    n, h, wd, _ = x.shape
    xi = x.astype(np.int64) - zp_in
    wi = w.astype(np.int64) - zp_w
    full = np.zeros((n, (h - 1) * stride + k, (wd - 1) * stride + k, cout), dtype=np.int64)
    for iy in range(h):
        for ix in range(wd):
            # [n, cin] x [cout, k, k, cin] -> [n, k, k, cout]
            full[:, iy * stride:iy * stride + k, ix * stride:ix * stride + k, :] += np.einsum(
                "nc,okjc->nkjo", xi[:, iy, ix, :], wi)
    oh, ow = out_hw
    return full[:, top:top + oh, left:left + ow, :] + bias


@pytest.mark.parametrize("kind,per_channel", [("uint8", False), ("int8", True)])
@pytest.mark.parametrize("padding", [1, 2])
def test_transpose_convolution(lib, driver, kind, per_channel, padding):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, "TRANSPOSE_CONV_2D", padding))
    info = np.iinfo(npt)
    stride, cin, cout, k = 2, 4, 5, 3
    x = codes(rng, (1, 5, 4, cin), npt)
    w, s_w, zp_w = _weights(rng, npt, (cout, k, k, cin), per_channel)
    bias = rng.integers(-2000, 2000, size=cout).astype(np.int32)
    s_in, s_out = rng.uniform(0.01, 0.05), rng.uniform(0.1, 0.5)
    zp_in, zp_out = (int(rng.integers(info.min, info.max + 1)) for _ in range(2))
    # SAME: out = in * stride; VALID: out = (in - 1) * stride + k (AOSP / TFLite padding codes).
    oh, ow = (5 * stride, 4 * stride) if padding == 1 else (4 * stride + k, 3 * stride + k)
    out_shape = np.array([1, oh, ow, cout], dtype=np.int32)
    op = _add_filter(Op(lib).tensor(x, nt, s_in, zp_in), nt, w, s_w, zp_w, bias, s_in)
    op.tensor(out_shape, TI32, const=True).i32(padding, stride, stride, 0)
    op.ins.append(op.m.bool(False))
    ours = op.run("TRANSPOSE_CONV_2D", tuple(out_shape), nt, s_out, zp_out, tt)
    total_h, total_w = 4 * stride + k, 3 * stride + k
    top, left = (total_h - oh) // 2, (total_w - ow) // 2
    acc = _transposed_acc(x, zp_in, w, zp_w, bias, stride, (oh, ow), top, left)
    np.testing.assert_array_equal(ours, _requantized_acc(acc, s_in, s_w, s_out, zp_out, 0, kind == "int8"))
    bias_scale = (np.float32(s_in) * s_w).astype(np.float32)
    tensors = [T([4], np.dtype(np.int32), const=out_shape),
               q(w.shape, np.int8 if per_channel else npt, s_w, zp_w, const=w), q(x.shape, npt, s_in, zp_in),
               q(bias.shape, np.int32, bias_scale, 0, const=bias), q(tuple(out_shape), npt, s_out, zp_out)]
    pad = tflite.Padding.SAME if padding == 1 else tflite.Padding.VALID
    (ref,) = run_single_op(BO.TRANSPOSE_CONV, tensors, [0, 1, 2, 3], [4], [x], OPT.TransposeConvOptions,
                           options_of("TransposeConvOptions", Padding=pad, StrideW=stride, StrideH=stride))
    if per_channel:
        assert report(f"TRANSPOSE_CONV_2D {kind} padding={padding}", ours, ref) <= 1
    else:
        np.testing.assert_array_equal(ours, ref)


# -- FULLY_CONNECTED: NNAPI rounds twice (conv path), LiteRT once ---------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_fully_connected_follows_nnapi_conv_rounding(lib, driver, kind):
    npt, nt, tt = KINDS[kind]
    rng = np.random.default_rng(7 if kind == "uint8" else 8)
    info = np.iinfo(npt)
    x, w = codes(rng, (16, 32), npt), codes(rng, (24, 32), npt)
    s_in, s_w, s_out = rng.uniform(0.01, 0.05), rng.uniform(0.002, 0.02), rng.uniform(0.05, 0.5)
    zp_in, zp_out = (int(rng.integers(info.min, info.max + 1)) for _ in range(2))
    zp_w = int(rng.integers(0, 256)) if npt == np.uint8 else 0
    bias = rng.integers(-3000, 3000, size=24).astype(np.int32)
    bs = float(np.float32(s_in) * np.float32(s_w))
    ours = (Op(lib).tensor(x, nt, s_in, zp_in).tensor(w, nt, s_w, zp_w, const=True)
            .tensor(bias, TI32, bs, 0, const=True).i32(1).run("FULLY_CONNECTED", (16, 24), nt, s_out, zp_out, tt))
    acc = (x.astype(np.int64) - zp_in) @ (w.astype(np.int64) - zp_w).T + bias
    lo, hi = rules.activation_range(1, s_out, zp_out, npt == np.int8)
    want = np.vectorize(lambda a: rules.conv_output(int(a), s_in, s_w, s_out, zp_out, lo, hi))(acc)
    np.testing.assert_array_equal(ours, want)
    (ref,) = run_single_op(BO.FULLY_CONNECTED, [q(x.shape, npt, s_in, zp_in), q(w.shape, npt, s_w, zp_w, const=w),
                                                q((24,), np.int32, bs, 0, const=bias), q((16, 24), npt, s_out, zp_out)],
                           [0, 1, 2], [3], [x], OPT.FullyConnectedOptions,
                           options_of("FullyConnectedOptions", FusedActivationFunction=1))
    assert report(f"FULLY_CONNECTED {kind}", ours, ref) <= 1


# -- pooling -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_pooling_bit_exact_with_litert(lib, driver, kind, name):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, name))
    x = codes(rng, (2, 7, 9, 3), npt)
    s, zp = 0.05, int(rng.integers(np.iinfo(npt).min, np.iinfo(npt).max + 1))
    for padding, stride, k, act in ((1, 2, 3, 0), (2, 1, 2, 1), (1, 1, 3, 3)):
        oh, ow = (-(-7 // stride), -(-9 // stride)) if padding == 1 else ((7 - k) // stride + 1, (9 - k) // stride + 1)
        ours = Op(lib).tensor(x, nt, s, zp).i32(padding, stride, stride, k, k, act).run(name, (2, oh, ow, 3), nt, s,
                                                                                        zp, tt)
        pad = tflite.Padding.SAME if padding == 1 else tflite.Padding.VALID
        (ref,) = run_single_op(BO.AVERAGE_POOL_2D if name.startswith("AVERAGE") else BO.MAX_POOL_2D,
                               [q(x.shape, npt, s, zp), q((2, oh, ow, 3), npt, s, zp)], [0], [1], [x],
                               OPT.Pool2DOptions, options_of("Pool2DOptions", Padding=pad, StrideW=stride,
                                                             StrideH=stride, FilterWidth=k, FilterHeight=k,
                                                             FusedActivationFunction=act))
        np.testing.assert_array_equal(ours, ref)


# -- CONCATENATION with requantization ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_concatenation_requantizes(lib, driver, kind):
    npt, nt, tt = KINDS[kind]
    rng = np.random.default_rng(11 if kind == "uint8" else 12)
    info = np.iinfo(npt)
    xs = [codes(rng, (2, 3, 4, c), npt) for c in (3, 5, 2)]
    qs = [(float(np.float32(rng.uniform(0.01, 0.2))), int(rng.integers(info.min, info.max + 1))) for _ in xs]
    qs[1] = (0.1, 3)                      # one input quantized like the output: copied
    out_q = (0.1, 3)
    op = Op(lib)
    for x, (s, z) in zip(xs, qs):
        op.tensor(x, nt, s, z)
    ours = op.i32(3).run("CONCATENATION", (2, 3, 4, 10), nt, *out_q, dtype=tt)
    # NNAPI's rule (docs/nnapi_facts.md §9.9): int8 goes through uint8 (+128) with the float32 uint8 rescale.
    shift = 128 if npt == np.int8 else 0
    parts = []
    for x, (s, z) in zip(xs, qs):
        f = np.vectorize(lambda v: rules.concat_rescale_uint8(int(v) + shift, s, z + shift, out_q[0],
                                                              out_q[1] + shift) - shift)
        parts.append(x if (s, z) == out_q else f(x))
    np.testing.assert_array_equal(ours, np.concatenate(parts, axis=3))
    if npt == np.uint8:  # TFLite's int8 kernel refuses differently scaled inputs (docs/nnapi_facts.md §10)
        tensors = [q(x.shape, npt, s, z) for x, (s, z) in zip(xs, qs)] + [q((2, 3, 4, 10), npt, *out_q)]
        (ref,) = run_single_op(BO.CONCATENATION, tensors, [0, 1, 2], [3], xs, OPT.ConcatenationOptions,
                               options_of("ConcatenationOptions", Axis=3))
        np.testing.assert_array_equal(ours, ref)


# -- LOGISTIC, TANH, SOFTMAX: gemmlowp fixed point (NNAPI) vs float tables (LiteRT) ------------------------------
FIXED_Q = {"LOGISTIC": {"uint8": (1 / 256, 0), "int8": (1 / 256, -128)},
           "TANH": {"uint8": (1 / 128, 128), "int8": (1 / 128, 0)}}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["LOGISTIC", "TANH"])
def test_logistic_tanh_follow_gemmlowp_fixed_point(lib, driver, kind, name):
    npt, nt, tt = KINDS[kind]
    info = np.iinfo(npt)
    x = np.arange(info.min, info.max + 1, dtype=npt).reshape(1, 256)   # every code
    rule = rules.logistic if name == "LOGISTIC" else rules.tanh
    for s_in, zp in ((0.05, 7 if kind == "uint8" else -3), (0.0123, 128 if kind == "uint8" else 0), (0.3, 100)):
        ours = Op(lib).tensor(x, nt, s_in, zp).run(name, (1, 256), nt, *FIXED_Q[name][kind], dtype=tt)
        want = [rule(int(v), s_in, zp, kind == "int8") for v in x[0]]
        np.testing.assert_array_equal(ours[0], want)
        (ref,) = run_single_op(getattr(BO, name), [q(x.shape, npt, s_in, zp), q(x.shape, npt, *FIXED_Q[name][kind])],
                               [0], [1], [x])
        assert report(f"{name} {kind} s_in={s_in}", ours, ref) <= 1


@pytest.mark.parametrize("kind", KINDS)
def test_softmax_follows_gemmlowp_fixed_point(lib, driver, kind):
    npt, nt, tt = KINDS[kind]
    rng = np.random.default_rng(21 if kind == "uint8" else 22)
    x = codes(rng, (6, 40), npt)
    out_q = (1 / 256, 0 if kind == "uint8" else -128)
    for s_in, beta in ((0.05, 1.0), (0.2, 0.5), (0.01, 2.0)):
        zp = int(rng.integers(np.iinfo(npt).min, np.iinfo(npt).max + 1))
        ours = Op(lib).tensor(x, nt, s_in, zp).f32(beta).run("SOFTMAX", x.shape, nt, *out_q, dtype=tt)
        want = [rules.softmax_row([int(v) for v in row], s_in, beta, kind == "int8") for row in x]
        np.testing.assert_array_equal(ours, want)
        (ref,) = run_single_op(BO.SOFTMAX, [q(x.shape, npt, s_in, zp), q(x.shape, npt, *out_q)], [0], [1], [x],
                               OPT.SoftmaxOptions, options_of("SoftmaxOptions", Beta=beta))
        assert report(f"SOFTMAX {kind} s_in={s_in} beta={beta}", ours, ref) <= 2


# -- HARD_SWISH, RELU family, QUANTIZE, DEQUANTIZE: bit-exact ----------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_hard_swish_bit_exact_with_litert(lib, driver, kind):
    npt, nt, tt = KINDS[kind]
    info = np.iinfo(npt)
    x = np.arange(info.min, info.max + 1, dtype=npt).reshape(4, 64)
    for s_in, zp_in, s_out, zp_out in ((0.05, 10, 0.04, -5), (0.02, -100, 0.03, 20), (0.1, 0, 0.08, 0)):
        if kind == "uint8":
            zp_in, zp_out = zp_in + 128, zp_out + 128
        ours = Op(lib).tensor(x, nt, s_in, zp_in).run("HARD_SWISH", x.shape, nt, s_out, zp_out, tt)
        (ref,) = run_single_op(BO.HARD_SWISH, [q(x.shape, npt, s_in, zp_in), q(x.shape, npt, s_out, zp_out)],
                               [0], [1], [x])
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["RELU", "RELU1", "RELU6"])
def test_relu_family_bit_exact_with_litert(lib, driver, kind, name):
    npt, nt, tt = KINDS[kind]
    info = np.iinfo(npt)
    x = np.arange(info.min, info.max + 1, dtype=npt).reshape(1, 256)
    for s, zp in ((0.05, 20 if kind == "uint8" else -20), (0.013, 200 if kind == "uint8" else 70)):
        ours = Op(lib).tensor(x, nt, s, zp).run(name, x.shape, nt, s, zp, tt)
        op = {"RELU": BO.RELU, "RELU1": BO.RELU_N1_TO_1, "RELU6": BO.RELU6}[name]
        (ref,) = run_single_op(op, [q(x.shape, npt, s, zp), q(x.shape, npt, s, zp)], [0], [1], [x])
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("kind", KINDS)
def test_quantize_and_dequantize_bit_exact_with_litert(lib, driver, kind):
    npt, nt, tt = KINDS[kind]
    rng = np.random.default_rng(31 if kind == "uint8" else 32)
    s, zp = float(np.float32(0.037)), 17 if kind == "uint8" else -9
    # Values on and near the rounding ties as well as random ones, and some out of range.
    ties = ((np.arange(-60, 60) + 0.5) * np.float32(s)).astype(np.float32)
    x = np.concatenate([ties, rng.normal(0, 3, 136).astype(np.float32), np.float32([1e4, -1e4])]).reshape(2, 129)
    ours = Op(lib).tensor(x, TF32).run("QUANTIZE", x.shape, nt, s, zp, tt)
    (ref,) = run_single_op(BO.QUANTIZE, [T(list(x.shape), np.dtype(np.float32)), q(x.shape, npt, s, zp)], [0], [1], [x])
    np.testing.assert_array_equal(ours, ref)
    c = codes(rng, (3, 50), npt)
    ours = Op(lib).tensor(c, nt, s, zp).run("DEQUANTIZE", c.shape, TF32, dtype=torch.float32)
    (ref,) = run_single_op(BO.DEQUANTIZE, [q(c.shape, npt, s, zp), T(list(c.shape), np.dtype(np.float32))], [0],
                           [1], [c])
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("axis", [0, 1])
def test_dequantize_of_int8_weights_follows_nnapi_and_litert(lib, driver, axis):
    """The weights of a weight-only int8 linear: per channel (TENSOR_QUANT8_SYMM_PER_CHANNEL)
    and with one scale (TENSOR_QUANT8_SYMM), scale · (float)q in float32 (docs/nnapi_facts.md §9.4)."""
    rng = seeded(("dequantize weights", axis))
    c = codes(rng, (6, 40), np.int8)
    scales = rng.uniform(1e-4, 0.05, size=c.shape[axis]).astype(np.float32)
    ours = Op(lib).tensor(c, QS8PC, channel_scales=[float(s) for s in scales], axis=axis).run(
        "DEQUANTIZE", c.shape, TF32, dtype=torch.float32)
    along = [1, 1]
    along[axis] = -1
    np.testing.assert_array_equal(ours, scales.reshape(along) * c.astype(np.float32))
    (ref,) = run_single_op(BO.DEQUANTIZE, [q(c.shape, np.int8, scales, 0, axis=axis),
                                           T(list(c.shape), np.dtype(np.float32))], [0], [1], [c])
    np.testing.assert_array_equal(ours, ref)
    one = float(scales[0])
    ours = Op(lib).tensor(c, QS8, one, 0).run("DEQUANTIZE", c.shape, TF32, dtype=torch.float32)
    np.testing.assert_array_equal(ours, np.float32(one) * c.astype(np.float32))


# -- MEAN: NNAPI averages the stored codes ---------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_mean_averages_stored_codes(lib, driver, kind):
    npt, nt, tt = KINDS[kind]
    rng = np.random.default_rng(41 if kind == "uint8" else 42)
    x = codes(rng, (2, 5, 6, 3), npt)
    s, zp = 0.02, 5
    axes = np.array([1, 2], dtype=np.int32)
    ours = Op(lib).tensor(x, nt, s, zp).tensor(axes, TI32, const=True).i32(1).run("MEAN", (2, 1, 1, 3), nt, s, zp, tt)
    want = np.array([[rules.mean([int(v) for v in x[n, :, :, ch].ravel()]) for ch in range(3)] for n in range(2)])
    np.testing.assert_array_equal(ours.reshape(2, 3), want)
    (ref,) = run_single_op(BO.MEAN, [q(x.shape, npt, s, zp), T([2], np.dtype(np.int32), const=axes),
                                     q((2, 1, 1, 3), npt, s, zp)], [0, 1], [2], [x], OPT.ReducerOptions,
                           options_of("ReducerOptions", KeepDims=True))
    report(f"MEAN {kind}", ours, ref)


# -- PAD, PAD_V2, RESIZE_NEAREST_NEIGHBOR: codes moved (bit-exact) ----------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["PAD", "PAD_V2"])
def test_pad_bit_exact_with_litert(lib, driver, kind, name):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, name))
    x = codes(rng, (2, 3, 4, 5), npt)
    s, zp = 0.03, int(rng.integers(np.iinfo(npt).min, np.iinfo(npt).max + 1))
    pads = np.array([[0, 1], [2, 0], [1, 3], [0, 2]], dtype=np.int32)
    out_shape = tuple(int(d + a + b) for d, (a, b) in zip(x.shape, pads))
    value = int(np.iinfo(npt).min + 7)
    op = Op(lib).tensor(x, nt, s, zp).tensor(pads, TI32, const=True)
    if name == "PAD_V2":
        op.i32(value)
    ours = op.run(name, out_shape, nt, s, zp, tt)
    fill = value if name == "PAD_V2" else zp
    want = np.pad(x, pads, constant_values=fill)
    np.testing.assert_array_equal(ours, want)
    tensors = [q(x.shape, npt, s, zp), T([4, 2], np.dtype(np.int32), const=pads)]
    if name == "PAD_V2":
        tensors.append(q([1], npt, s, zp, const=np.array([value], dtype=npt)))
    tensors.append(q(out_shape, npt, s, zp))
    ins = list(range(len(tensors) - 1))
    bo, opt = (BO.PAD, "PadOptions") if name == "PAD" else (BO.PADV2, "PadV2Options")
    (ref,) = run_single_op(bo, tensors, ins, [len(tensors) - 1], [x], getattr(OPT, opt), options_of(opt))
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("align,half", [(False, False), (True, False), (False, True)])
def test_resize_nearest_bit_exact_with_litert(lib, driver, kind, align, half):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, align, half))
    x = codes(rng, (2, 5, 7, 3), npt)
    s, zp = 0.02, 3
    for oh, ow in ((10, 14), (8, 3), (13, 7)):
        op = Op(lib).tensor(x, nt, s, zp).i32(ow, oh)
        op.ins += [op.m.bool(False), op.m.bool(align), op.m.bool(half)]
        ours = op.run("RESIZE_NEAREST_NEIGHBOR", (2, oh, ow, 3), nt, s, zp, tt)
        size = np.array([oh, ow], dtype=np.int32)
        (ref,) = run_single_op(BO.RESIZE_NEAREST_NEIGHBOR,
                               [q(x.shape, npt, s, zp), T([2], np.dtype(np.int32), const=size),
                                q((2, oh, ow, 3), npt, s, zp)], [0, 1], [2], [x], OPT.ResizeNearestNeighborOptions,
                               options_of("ResizeNearestNeighborOptions", AlignCorners=align, HalfPixelCenters=half))
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("align,half", [(False, False), (True, False), (False, True)])
def test_resize_bilinear_truncates_like_android_11(lib, driver, kind, align, half):
    """8-bit RESIZE_BILINEAR is the float32 weighted sum of the codes truncated toward zero
    (docs/nnapi_facts.md §9.14): the driver equals nnapi_rules' element-by-element model, upscaling
    and downscaling. LiteRT 2.3 adds 0.5 before the cast for uint8 (the same model with add_half
    equals it bit for bit, which checks the model's coordinates and float32 order) and runs a
    10-bit fixed-point interpolation for int8: one step from the rule, at most two (reported)."""
    npt, nt, tt = KINDS[kind]
    rng = seeded(("bilinear", kind, align, half))
    x = codes(rng, (2, 5, 7, 3), npt)
    s, zp = 0.02, 3
    truncated = 0
    for oh, ow in ((10, 14), (3, 4), (13, 6), (1, 1)):
        op = Op(lib).tensor(x, nt, s, zp).i32(ow, oh)
        op.ins += [op.m.bool(False), op.m.bool(align), op.m.bool(half)]
        ours = op.run("RESIZE_BILINEAR", (2, oh, ow, 3), nt, s, zp, tt)
        np.testing.assert_array_equal(ours, rules.resize_bilinear(x, oh, ow, align, half))
        rounded = rules.resize_bilinear(x, oh, ow, align, half, add_half=True)
        truncated += int((ours != rounded).sum())
        size = np.array([oh, ow], dtype=np.int32)
        (ref,) = run_single_op(BO.RESIZE_BILINEAR,
                               [q(x.shape, npt, s, zp), T([2], np.dtype(np.int32), const=size),
                                q((2, oh, ow, 3), npt, s, zp)], [0, 1], [2], [x], OPT.ResizeBilinearOptions,
                               options_of("ResizeBilinearOptions", AlignCorners=align, HalfPixelCenters=half))
        if npt is np.uint8:
            np.testing.assert_array_equal(ref, rounded)
        assert report(f"RESIZE_BILINEAR {kind} {oh}x{ow}", ours, ref) <= 2
    assert truncated > 0  # the rounding choice shows: adding 0.5 would change some outputs


# -- MAXIMUM, MINIMUM, SELECT: AOSP requantizes every input to the output's parameters ---------------------------
def _requantized(x: np.ndarray, s: float, zp: int, out_q: tuple[float, int], signed: bool) -> np.ndarray:
    return np.vectorize(lambda v: rules.requantize(int(v), s, zp, *out_q, signed))(x)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["MAXIMUM", "MINIMUM"])
def test_maximum_minimum_requantize(lib, driver, kind, name):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, name))
    a, b = codes(rng, (2, 3, 4, 5), npt), codes(rng, (4, 1), npt)
    info = np.iinfo(npt)
    pick = np.maximum if name == "MAXIMUM" else np.minimum
    # Shared parameters: the codes are compared as they are, as LiteRT does.
    s, zp = 0.05, int(rng.integers(info.min, info.max + 1))
    ours = Op(lib).tensor(a, nt, s, zp).tensor(b, nt, s, zp).run(name, a.shape, nt, s, zp, tt)
    (ref,) = run_single_op(getattr(BO, name), [q(a.shape, npt, s, zp), q(b.shape, npt, s, zp),
                                               q(a.shape, npt, s, zp)], [0, 1], [2], [a, b])
    np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(ours, pick(a, b))
    # Own parameters: each input requantized to the output's (LiteRT's kernel has no requantization).
    s1, s2, so = (float(np.float32(rng.uniform(0.01, 0.2))) for _ in range(3))
    z1, z2, zo = (int(rng.integers(info.min, info.max + 1)) for _ in range(3))
    ours = Op(lib).tensor(a, nt, s1, z1).tensor(b, nt, s2, z2).run(name, a.shape, nt, so, zo, tt)
    signed = kind == "int8"
    want = pick(_requantized(a, s1, z1, (so, zo), signed), _requantized(b, s2, z2, (so, zo), signed))
    np.testing.assert_array_equal(ours, want)


@pytest.mark.parametrize("kind", KINDS)
def test_select_requantizes(lib, driver, kind):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, "SELECT"))
    cond = rng.integers(0, 2, size=(3, 4, 5)).astype(np.bool_)
    a, b = codes(rng, cond.shape, npt), codes(rng, cond.shape, npt)
    info = np.iinfo(npt)
    s, zp = 0.04, int(rng.integers(info.min, info.max + 1))
    ours = Op(lib).tensor(cond, TB8).tensor(a, nt, s, zp).tensor(b, nt, s, zp).run("SELECT", a.shape, nt, s, zp, tt)
    (ref,) = run_single_op(BO.SELECT, [T(list(cond.shape), np.dtype(np.bool_)), q(a.shape, npt, s, zp),
                                       q(b.shape, npt, s, zp), q(a.shape, npt, s, zp)], [0, 1, 2], [3], [cond, a, b])
    np.testing.assert_array_equal(ours, ref)
    s1, s2, so = 0.1, 0.013, 0.06
    z1, z2, zo = (int(rng.integers(info.min, info.max + 1)) for _ in range(3))
    ours = Op(lib).tensor(cond, TB8).tensor(a, nt, s1, z1).tensor(b, nt, s2, z2).run("SELECT", a.shape, nt, so, zo, tt)
    signed = kind == "int8"
    want = np.where(cond, _requantized(a, s1, z1, (so, zo), signed), _requantized(b, s2, z2, (so, zo), signed))
    np.testing.assert_array_equal(ours, want)


# -- PRELU: NNAPI's multipliers from float32 products; TFLite's from float32 quotients ------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_prelu_follows_nnapi_rule(lib, driver, kind):
    npt, nt, tt = KINDS[kind]
    rng = seeded((kind, "PRELU"))
    info = np.iinfo(npt)
    x = np.tile(np.arange(info.min, info.max + 1, dtype=npt), 3).reshape(3, 16, 16, 1).repeat(4, axis=3)
    alpha = codes(rng, (1, 1, 4), npt)
    signed = kind == "int8"
    for s_in, s_a, s_out in ((0.05, 0.004, 0.04), (0.02, 0.01, 0.011), (0.1, 0.002, 0.3)):
        z_in, z_a, z_out = (int(rng.integers(info.min, info.max + 1)) for _ in range(3))
        ours = Op(lib).tensor(x, nt, s_in, z_in).tensor(alpha, nt, s_a, z_a, const=True).run(
            "PRELU", x.shape, nt, s_out, z_out, tt)
        want = np.vectorize(lambda v, a: rules.prelu(int(v), int(a), s_in, z_in, s_a, z_a, s_out, z_out, signed))(
            x, np.broadcast_to(alpha, x.shape))
        np.testing.assert_array_equal(ours, want)
        (ref,) = run_single_op(BO.PRELU, [q(x.shape, npt, s_in, z_in), q(alpha.shape, npt, s_a, z_a, const=alpha),
                                          q(x.shape, npt, s_out, z_out)], [0, 1], [2], [x])
        assert report(f"PRELU {kind} scales {s_in}, {s_a}, {s_out}", ours, ref) <= 1


# -- strictness -----------------------------------------------------------------------------------------------
def _conv_model(lib, bias_scale, per_channel=True, level=30, in_type=QA8S):
    with host_driver_at(level):
        m = Model(lib)
        x = m.tensor([1, 4, 4, 2], in_type, scale=0.1, zp=0)
        w = m.tensor([3, 1, 1, 2], QS8PC if per_channel else in_type, scale=0.0 if per_channel else 0.05)
        if per_channel:
            arr = (c_float * 3)(0.1, 0.2, 0.3)
            m.keep.append(arr)
            assert lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(m.handle, w, byref(PerChannel(0, 3, arr))) == 0
        m.set_value(w, bytes(6))
        b = m.tensor([3], TI32, scale=bias_scale)
        m.set_value(b, bytes(12))
        out = m.tensor([1, 4, 4, 3], in_type, scale=0.5, zp=0)
        return m, [x, w, b, m.i32(0), m.i32(0), m.i32(0), m.i32(0), m.i32(1), m.i32(1), m.i32(0)], out


def test_quantization_rules_are_bad_data(lib, driver):
    m, ins, out = _conv_model(lib, bias_scale=0.01)
    m.op("CONV_2D", ins, [out], expect=BAD_DATA)
    assert "per-channel quantized filter must have scale 0" in driver.last_error
    m, ins, out = _conv_model(lib, bias_scale=0.006, per_channel=False)
    m.op("CONV_2D", ins, [out], expect=BAD_DATA)
    assert "must equal input scale * filter scale" in driver.last_error
    m = Model(lib)
    x, y = m.tensor([4], QA8, scale=0.1, zp=0), m.tensor([4], QA8, scale=1 / 255, zp=0)
    m.op("LOGISTIC", [x], [y], expect=BAD_DATA)
    assert "scale 0.00390625 and zeroPoint 0" in driver.last_error
    a, b, o = (m.tensor([4], QA8, scale=s, zp=0) for s in (0.5, 0.5, 1e-7))
    m.op("ADD", [a, b, m.i32(0)], [o], expect=BAD_DATA)
    assert "ADD/SUB scales" in driver.last_error
    a, b, o = (m.tensor([4], QA8S, scale=s, zp=0) for s in (0.5, 0.5, 0.2))
    m.op("MUL", [a, b, m.i32(0)], [o], expect=BAD_DATA)
    assert "MUL scales" in driver.last_error


def test_int8_needs_feature_level_30(lib, driver):
    with host_driver_at(29):
        m = Model(lib)
        m.tensor([4], QA8S, scale=0.1, zp=0, expect=BAD_DATA)


def test_unsupported_quantized_operation_refused_and_differently_scaled_concat_supported(lib, driver):
    # The driver has no 8-bit BATCH_MATMUL kernel (feature level 6): refused when added.
    with host_driver_at(FL6):
        m = Model(lib)
        x, y = m.tensor([2, 3], QA8S, scale=0.1, zp=3), m.tensor([3, 2], QA8S, scale=0.1, zp=3)
        m.op("BATCH_MATMUL", [x, y, m.bool(False), m.bool(False)], [m.tensor([2, 2], QA8S, scale=0.3, zp=0)],
             expect=OP_FAILED)
        assert "not implemented on the host driver" in driver.last_error
    m = Model(lib)
    a, b = m.tensor([2, 3], QA8, scale=0.1, zp=3), m.tensor([2, 3], QA8, scale=0.2, zp=9)
    out = m.tensor([2, 6], QA8, scale=0.3, zp=0)
    m.op("CONCATENATION", [a, b, m.i32(1)], [out])
    m.io([a, b], [out])
    m.finish()
    dev = c_void_p()
    assert lib.ANeuralNetworks_getDevice(0, byref(dev)) == 0
    supported = (c_bool * 1)()
    assert lib.ANeuralNetworksModel_getSupportedOperationsForDevices(m.handle, (c_void_p * 1)(dev), 1, supported) == 0
    assert list(supported) == [True]
