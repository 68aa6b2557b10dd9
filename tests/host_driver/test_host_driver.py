"""The host NNAPI driver, driven through the shim's C API with ctypes as a C client would."""

from __future__ import annotations

import ctypes
import math
from ctypes import byref, c_bool, c_char_p, c_int32, c_int64, c_uint32, c_void_p

import pytest
import torch
import torch.nn.functional as F

from nnapi_client import (BAD_DATA, BAD_STATE, FL6, NO_ERROR, OP_FAILED, OUTPUT_INSUFFICIENT_SIZE, QA8, TB8,
                          TF16, TF32, TI32, UNEXPECTED_NULL, Execution, Model, OperandType, nchw, nhwc)
from nnapi_client import last_error as _last

QA8S = 14  # TENSOR_QUANT8_ASYMM_SIGNED


# -- numerics ------------------------------------------------------------------------------------------
def test_add_with_fused_relu(lib, driver):
    m = Model(lib)
    a, b = m.tensor([2, 3]), m.tensor([3])  # broadcast [2, 3] + [3]
    out = m.tensor([2, 3])
    m.op("ADD", [a, b, m.i32(1)], [out])
    m.io([a, b], [out])
    x, y = torch.randn(2, 3), torch.randn(3)
    (res,) = m.run([x, y], [[2, 3]])
    torch.testing.assert_close(res, torch.relu(x + y))


@pytest.mark.parametrize("stride,dilation,bias", [(1, 1, True), (2, 1, False), (1, 2, True)])
def test_conv2d_explicit_padding_matches_torch(lib, driver, stride, dilation, bias):
    x = torch.randn(1, 3, 9, 8)
    w = torch.randn(5, 3, 3, 3)
    b = torch.randn(5) if bias else torch.zeros(5)
    expected = F.conv2d(x, w, b, stride=stride, padding=(2, 1), dilation=dilation)
    m = Model(lib)
    inp = m.tensor(list(nhwc(x).shape))
    out = m.tensor(list(nhwc(expected).shape))
    # Explicit form: left, right, top, bottom (width first), stride_w, stride_h.
    ins = [inp, m.const(w.permute(0, 2, 3, 1)), m.const(b), m.i32(1), m.i32(1), m.i32(2), m.i32(2),
           m.i32(stride), m.i32(stride), m.i32(0)]
    if dilation != 1:
        ins += [m.bool(False), m.i32(dilation), m.i32(dilation)]
    m.op("CONV_2D", ins, [out])
    m.io([inp], [out])
    (res,) = m.run([nhwc(x)], [nhwc(expected).shape])
    torch.testing.assert_close(nchw(res), expected, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("size,stride", [(8, 1), (9, 2), (224 // 16, 2)])
def test_conv2d_implicit_same_padding_matches_torch(lib, driver, size, stride):
    x = torch.randn(2, 4, size, size + 1)
    w = torch.randn(6, 4, 3, 3)
    b = torch.randn(6)
    # SAME: out = ceil(in / stride); odd total padding goes to the end (bottom/right).
    pads = []
    for n in (x.shape[3], x.shape[2]):
        total = max(0, (math.ceil(n / stride) - 1) * stride + 3 - n)
        pads += [total // 2, total - total // 2]
    expected = F.conv2d(F.pad(x, pads), w, b, stride=stride)
    m = Model(lib)
    inp, out = m.tensor(list(nhwc(x).shape)), m.tensor([0, 0, 0, 0])  # output dims inferred
    m.op("CONV_2D", [inp, m.const(w.permute(0, 2, 3, 1)), m.const(b), m.i32(1), m.i32(stride), m.i32(stride),
                     m.i32(3)], [out])
    m.io([inp], [out])
    (res,) = m.run([nhwc(x)], [nhwc(expected).shape])
    torch.testing.assert_close(nchw(res), expected.clamp(0, 6), atol=1e-4, rtol=1e-4)


def test_conv2d_nchw_layout_flag(lib, driver):
    x, w, b = torch.randn(1, 3, 6, 6), torch.randn(4, 3, 3, 3), torch.randn(4)
    expected = F.conv2d(x, w, b, padding=1)
    m = Model(lib)
    inp, out = m.tensor(list(x.shape)), m.tensor(list(expected.shape))
    m.op("CONV_2D", [inp, m.const(w.permute(0, 2, 3, 1)), m.const(b), m.i32(1), m.i32(1), m.i32(1), m.i32(0),
                     m.bool(True)], [out])
    m.io([inp], [out])
    (res,) = m.run([x], [expected.shape])
    torch.testing.assert_close(res, expected, atol=1e-4, rtol=1e-4)


def test_depthwise_and_grouped_conv_match_torch(lib, driver):
    x = torch.randn(1, 4, 7, 7)
    wd, bd = torch.randn(8, 1, 3, 3), torch.randn(8)  # depth multiplier 2
    wg, bg = torch.randn(6, 2, 3, 3), torch.randn(6)  # 2 groups
    m = Model(lib)
    inp = m.tensor(list(nhwc(x).shape))
    dw, gc = m.tensor([1, 4, 4, 8]), m.tensor([1, 7, 7, 6])
    m.op("DEPTHWISE_CONV_2D", [inp, m.const(wd.permute(1, 2, 3, 0)), m.const(bd), m.i32(1), m.i32(2), m.i32(2),
                               m.i32(2), m.i32(0)], [dw])
    m.op("GROUPED_CONV_2D", [inp, m.const(wg.permute(0, 2, 3, 1)), m.const(bg), m.i32(1), m.i32(1), m.i32(1),
                             m.i32(2), m.i32(0), m.bool(False)], [gc])
    m.io([inp], [dw, gc])
    res_dw, res_gc = m.run([nhwc(x)], [[1, 4, 4, 8], [1, 7, 7, 6]])
    torch.testing.assert_close(nchw(res_dw), F.conv2d(x, wd, bd, stride=2, padding=1, groups=4), atol=1e-4,
                               rtol=1e-4)
    torch.testing.assert_close(nchw(res_gc), F.conv2d(x, wg, bg, padding=1, groups=2), atol=1e-4, rtol=1e-4)


def test_transpose_conv_matches_torch(lib, driver):
    x, w, b = torch.randn(1, 3, 5, 5), torch.randn(3, 4, 3, 3), torch.randn(4)  # torch weight [Cin, Cout, kh, kw]
    expected = F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
    m = Model(lib)
    inp, out = m.tensor(list(nhwc(x).shape)), m.tensor(list(nhwc(expected).shape))
    # head = padding, tail = padding - output_padding.
    m.op("TRANSPOSE_CONV_2D", [inp, m.const(w.permute(1, 2, 3, 0)), m.const(b), m.i32(1), m.i32(0), m.i32(1),
                               m.i32(0), m.i32(2), m.i32(2), m.i32(0), m.bool(False)], [out])
    m.io([inp], [out])
    (res,) = m.run([nhwc(x)], [nhwc(expected).shape])
    torch.testing.assert_close(nchw(res), expected, atol=1e-4, rtol=1e-4)


def test_average_pool_excludes_padding(lib, driver):
    x = torch.randn(1, 2, 5, 5)
    m = Model(lib)
    inp = m.tensor(list(nhwc(x).shape))
    sym, asym = m.tensor([1, 5, 5, 2]), m.tensor([1, 3, 3, 2])
    # 3x3, stride 1, pad 1 on every side; and 3x3 stride 2 with pads (0, 2, 2, 0): 2 >= k/2 is beyond torch.
    m.op("AVERAGE_POOL_2D", [inp, m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(3), m.i32(3),
                             m.i32(0)], [sym])
    m.op("AVERAGE_POOL_2D", [inp, m.i32(0), m.i32(2), m.i32(2), m.i32(0), m.i32(2), m.i32(2), m.i32(3), m.i32(3),
                             m.i32(0)], [asym])
    m.io([inp], [sym, asym])
    res_sym, res_asym = m.run([nhwc(x)], [[1, 5, 5, 2], [1, 3, 3, 2]])
    torch.testing.assert_close(nchw(res_sym), F.avg_pool2d(x, 3, 1, 1, count_include_pad=False))
    # Reference: mean over the in-bounds part of each window.
    expected = torch.empty(1, 2, 3, 3)
    for oh in range(3):
        for ow in range(3):
            h0, w0 = oh * 2 - 2, ow * 2 - 0
            win = x[:, :, max(h0, 0):min(h0 + 3, 5), max(w0, 0):min(w0 + 3, 5)]
            expected[:, :, oh, ow] = win.mean(dim=(2, 3))
    torch.testing.assert_close(nchw(res_asym), expected)
    # The padded corner windows differ from count_include_pad=True.
    assert not torch.allclose(nchw(res_sym), F.avg_pool2d(x, 3, 1, 1, count_include_pad=True))


def test_max_and_l2_pool_with_implicit_padding(lib, driver):
    x = torch.randn(1, 3, 7, 7)
    m = Model(lib)
    inp = m.tensor(list(nhwc(x).shape))
    mx, l2 = m.tensor([1, 4, 4, 3]), m.tensor([1, 4, 4, 3])
    m.op("MAX_POOL_2D", [inp, m.i32(1), m.i32(2), m.i32(2), m.i32(3), m.i32(3), m.i32(0)], [mx])
    m.op("L2_POOL_2D", [inp, m.i32(1), m.i32(2), m.i32(2), m.i32(3), m.i32(3), m.i32(0)], [l2])
    m.io([inp], [mx, l2])
    res_mx, res_l2 = m.run([nhwc(x)], [[1, 4, 4, 3]] * 2)
    torch.testing.assert_close(nchw(res_mx), F.max_pool2d(x, 3, 2, 1))
    torch.testing.assert_close(nchw(res_l2), torch.sqrt(F.avg_pool2d(x * x, 3, 2, 1, count_include_pad=False)))


def test_mobilenet_style_block(lib, driver):
    """FULLY_CONNECTED after MEAN, RESHAPE, TRANSPOSE and CONCATENATION."""
    x = torch.randn(2, 4, 4, 3)
    w, b = torch.randn(5, 6), torch.randn(5)
    m = Model(lib)
    inp = m.tensor([2, 4, 4, 3])
    mean, t, cat, fc, rs = (m.tensor(d) for d in ([2, 3], [3, 2], [2, 6], [2, 5], [10]))
    m.op("MEAN", [inp, m.const(torch.tensor([1, 2], dtype=torch.int32)), m.i32(0)], [mean])
    m.op("TRANSPOSE", [mean, m.const(torch.tensor([1, 0], dtype=torch.int32))], [t])
    t2 = m.tensor([2, 3])
    m.op("TRANSPOSE", [t, m.omitted(TI32, [2])], [t2])
    m.op("CONCATENATION", [mean, t2, m.i32(1)], [cat])
    m.op("FULLY_CONNECTED", [cat, m.const(w), m.const(b), m.i32(0)], [fc])
    m.op("RESHAPE", [fc, m.const(torch.tensor([-1], dtype=torch.int32))], [rs])
    m.io([inp], [rs])
    (res,) = m.run([x], [[10]])
    mu = x.mean(dim=(1, 2))
    torch.testing.assert_close(res, F.linear(torch.cat([mu, mu], 1), w, b).reshape(-1), atol=1e-5, rtol=1e-5)


def _unary(lib, name, x, extra=(), out_shape=None, in_type=TF32):
    m = Model(lib)
    inp = m.tensor(list(x.shape), in_type)
    ins = [inp] + [f(m) for f in extra]
    out = m.tensor([0] * len(out_shape or x.shape), in_type)
    m.op(name, ins, [out])
    m.io([inp], [out])
    return m.run([x], [out_shape or x.shape], x.dtype)[0]


def _i32(*v):
    return lambda m: m.const(torch.tensor(v, dtype=torch.int32))


x4 = torch.randn(2, 3, 4, 5)
pos = torch.rand(2, 3, 4) + 0.1
UNARY_CASES = [
    ("RELU1", x4, (), lambda x: x.clamp(-1, 1)),
    ("RELU6", x4 * 4, (), lambda x: x.clamp(0, 6)),
    ("LOGISTIC", x4, (), torch.sigmoid),
    ("TANH", x4, (), torch.tanh),
    ("HARD_SWISH", x4 * 3, (), F.hardswish),
    ("ELU", x4, (lambda m: m.f32(0.5),), lambda x: F.elu(x, 0.5)),
    ("ABS", x4, (), torch.abs),
    ("NEG", x4, (), torch.neg),
    ("EXP", x4, (), torch.exp),
    ("LOG", pos, (), torch.log),
    ("SQRT", pos, (), torch.sqrt),
    ("RSQRT", pos, (), torch.rsqrt),
    ("SIN", x4, (), torch.sin),
    ("FLOOR", x4 * 3, (), torch.floor),
    ("SOFTMAX", x4, (lambda m: m.f32(0.5), lambda m: m.i32(1)), lambda x: torch.softmax(x * 0.5, 1)),
    ("LOG_SOFTMAX", x4, (lambda m: m.f32(1.0), lambda m: m.i32(-1)), lambda x: torch.log_softmax(x, -1)),
    ("MEAN", x4, (_i32(1, -1), lambda m: m.i32(1)), lambda x: x.mean(dim=(1, 3), keepdim=True)),
    ("REDUCE_SUM", x4, (_i32(0, 2), lambda m: m.bool(False)), lambda x: x.sum(dim=(0, 2))),
    ("REDUCE_MAX", x4, (_i32(3), lambda m: m.bool(True)), lambda x: x.amax(dim=3, keepdim=True)),
    ("REDUCE_MIN", x4, (_i32(0, 1, 2, 3), lambda m: m.bool(False)), lambda x: x.amin().reshape(1)),
    ("REDUCE_PROD", pos, (_i32(1, 2), lambda m: m.bool(False)), lambda x: x.prod(dim=2).prod(dim=1)),
    ("SQUEEZE", torch.randn(1, 3, 1, 2), (_i32(2),), lambda x: x.squeeze(2)),
    ("SQUEEZE", torch.randn(1, 1), (), lambda x: x.reshape(1)),
    ("EXPAND_DIMS", x4, (lambda m: m.i32(-1),), lambda x: x.unsqueeze(-1)),
    ("STRIDED_SLICE", x4, (_i32(0, 1, -1, 4), _i32(1, 3, 0, 0), _i32(1, 1, -1, -2), lambda m: m.i32(0),
                           lambda m: m.i32(0b1000), lambda m: m.i32(0b0001)),
     lambda x: x[0, 1:3].flip(1)[:, :3].flip(2)[:, :, ::2]),
    ("SLICE", x4, (_i32(1, 0, 1, 2), _i32(1, -1, 2, 3)), lambda x: x[1:2, :, 1:3, 2:5]),
    ("GATHER", x4, (lambda m: m.i32(2), _i32(3, 0, 3)), lambda x: x[:, :, [3, 0, 3]]),
    ("TILE", torch.randn(2, 3), (_i32(2, 1),), lambda x: x.repeat(2, 1)),
    ("PAD", x4, (lambda m: m.const(torch.tensor([[0, 1], [2, 0], [1, 1], [0, 0]], dtype=torch.int32)),),
     lambda x: F.pad(x, (0, 0, 1, 1, 2, 0, 0, 1))),
    ("PAD_V2", x4, (lambda m: m.const(torch.tensor([[0, 0], [0, 0], [1, 0], [0, 2]], dtype=torch.int32)),
                    lambda m: m.f32(-3.0)), lambda x: F.pad(x, (0, 2, 1, 0), value=-3.0)),
    ("TRANSPOSE", x4, (_i32(3, 1, 0, 2),), lambda x: x.permute(3, 1, 0, 2)),
    ("CHANNEL_SHUFFLE", torch.randn(2, 3, 4, 6), (lambda m: m.i32(2), lambda m: m.i32(-1)),
     lambda x: F.channel_shuffle(x.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1)),
    ("L2_NORMALIZATION", x4, (), lambda x: F.normalize(x, dim=-1, eps=0.0)),
    ("INSTANCE_NORMALIZATION", x4, (lambda m: m.f32(2.0), lambda m: m.f32(0.5), lambda m: m.f32(1e-5),
                                    lambda m: m.bool(True)),
     lambda x: F.instance_norm(x, eps=1e-5) * 2.0 + 0.5),
    ("DEPTH_TO_SPACE", torch.randn(1, 2, 3, 8), (lambda m: m.i32(2),),
     # TensorFlow DCR order: channel (i * bs + j) * C_out + c goes to (2h + i, 2w + j, c).
     lambda x: x.reshape(1, 2, 3, 2, 2, 2).permute(0, 1, 3, 2, 4, 5).reshape(1, 4, 6, 2)),
    ("SPACE_TO_DEPTH", torch.randn(1, 4, 6, 2), (lambda m: m.i32(2),),
     lambda x: x.reshape(1, 2, 2, 3, 2, 2).permute(0, 1, 3, 2, 4, 5).reshape(1, 2, 3, 8)),
    ("RESIZE_BILINEAR", x4, (lambda m: m.i32(9), lambda m: m.i32(7), lambda m: m.bool(True),
                             lambda m: m.bool(False), lambda m: m.bool(True)),
     lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False)),
    ("RESIZE_BILINEAR", x4, (lambda m: m.i32(9), lambda m: m.i32(7), lambda m: m.bool(True),
                             lambda m: m.bool(True)),
     lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True)),
    ("RESIZE_NEAREST_NEIGHBOR", x4, (lambda m: m.f32(2.0), lambda m: m.f32(1.5), lambda m: m.bool(True)),
     lambda x: F.interpolate(x, size=(6, 10), mode="nearest")),
    ("RESIZE_NEAREST_NEIGHBOR", x4, (lambda m: m.i32(7), lambda m: m.i32(5), lambda m: m.bool(True),
                                     lambda m: m.bool(False), lambda m: m.bool(True)),
     lambda x: F.interpolate(x, size=(5, 7), mode="nearest-exact")),
]


@pytest.mark.parametrize("name,x,extra,ref", UNARY_CASES, ids=[c[0] for c in UNARY_CASES])
def test_operation_matches_torch(lib, driver, name, x, extra, ref):
    expected = ref(x)
    res = _unary(lib, name, x, extra, list(expected.shape))
    torch.testing.assert_close(res, expected, atol=1e-5, rtol=1e-5)


def test_legacy_bilinear_resize_is_tf_asymmetric(lib, driver):
    x = torch.arange(4.0).reshape(1, 1, 4, 1)  # NHWC: H = 1, W = 4
    res = _unary(lib, "RESIZE_BILINEAR", x, (lambda m: m.i32(8), lambda m: m.i32(1)), [1, 1, 8, 1])
    # src = dst * 4/8, right neighbour clamped: 0, .5, 1, 1.5, 2, 2.5, 3, 3.
    torch.testing.assert_close(res.reshape(-1), torch.tensor([0, .5, 1, 1.5, 2, 2.5, 3, 3]))


BINARY_CASES = [
    ("SUB", torch.sub), ("MUL", torch.mul), ("DIV", torch.div),
    ("MAXIMUM", torch.maximum), ("MINIMUM", torch.minimum), ("POW", torch.pow),
    ("PRELU", lambda x, a: torch.where(x >= 0, x, a * x)),
]


@pytest.mark.parametrize("name,ref", BINARY_CASES, ids=[c[0] for c in BINARY_CASES])
def test_binary_operation_matches_torch(lib, driver, name, ref):
    x, y = torch.rand(2, 1, 4) + 0.5, torch.rand(3, 1) + 0.5
    if name == "PRELU":
        x = x - 1.0
    m = Model(lib)
    a, b, out = m.tensor([2, 1, 4]), m.tensor([3, 1]), m.tensor([2, 3, 4])
    fused = [m.i32(0)] if name in ("SUB", "MUL", "DIV") else []
    m.op(name, [a, b] + fused, [out])
    m.io([a, b], [out])
    (res,) = m.run([x, y], [[2, 3, 4]])
    torch.testing.assert_close(res, ref(x, y))


def test_integer_div_floors_and_split(lib, driver):
    m = Model(lib)
    a, b, q = m.tensor([4], TI32), m.tensor([4], TI32), m.tensor([4], TI32)
    m.op("DIV", [a, b, m.i32(0)], [q])
    parts = [m.tensor([2], TI32), m.tensor([2], TI32)]
    m.op("SPLIT", [q, m.i32(0), m.i32(2)], parts)
    m.io([a, b], parts)
    r0, r1 = m.run([torch.tensor([5, -5, 7, -7], dtype=torch.int32), torch.tensor([2, 2, -2, -2], dtype=torch.int32)],
                   [[2], [2]], torch.int32)
    assert r0.tolist() == [2, -3] and r1.tolist() == [-4, 3]


def test_batch_matmul_at_feature_level_6(lib, driver):
    driver.feature_level = FL6
    x, y = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
    m = Model(lib)
    a, b, out = m.tensor([2, 3, 4]), m.tensor([2, 5, 4]), m.tensor([2, 3, 5])
    m.op("BATCH_MATMUL", [a, b, m.bool(False), m.bool(True)], [out])
    m.io([a, b], [out])
    (res,) = m.run([x, y], [[2, 3, 5]])
    torch.testing.assert_close(res, x @ y.transpose(1, 2))


def test_cast_and_float16(lib, driver):
    x = torch.tensor([[1.7, -2.5, 300.0]], dtype=torch.float16)
    m = Model(lib)
    inp, doubled, cast = m.tensor([1, 3], TF16), m.tensor([1, 3], TF16), m.tensor([1, 3], TI32)
    m.op("ADD", [inp, inp, m.i32(0)], [doubled])
    m.op("CAST", [doubled], [cast])
    m.io([inp], [doubled, cast])
    m.finish()
    ex = Execution(lib, m.compile())
    ex.set_input(0, x)
    d, c = torch.empty(1, 3, dtype=torch.float16), torch.empty(1, 3, dtype=torch.int32)
    ex.set_output(0, d)
    ex.set_output(1, c)
    assert ex.compute() == NO_ERROR, _last(lib)
    torch.testing.assert_close(d, x + x)
    assert c.tolist() == [[3, -5, 600]]  # truncation toward zero


COMPARISON_CASES = [
    ("EQUAL", torch.eq), ("NOT_EQUAL", torch.ne), ("GREATER", torch.gt), ("GREATER_EQUAL", torch.ge),
    ("LESS", torch.lt), ("LESS_EQUAL", torch.le),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool], ids=str)
@pytest.mark.parametrize("name,ref", COMPARISON_CASES, ids=[c[0] for c in COMPARISON_CASES])
def test_comparison_broadcasts_to_bool8(lib, driver, name, ref, dtype):
    g = torch.Generator().manual_seed(0)
    x, y = (torch.randint(-1, 2, shape, generator=g).to(dtype) for shape in ((2, 1, 4), (3, 1)))
    t = {torch.float32: TF32, torch.int32: TI32, torch.bool: TB8}[dtype]
    m = Model(lib)
    a, b, out = m.tensor([2, 1, 4], t), m.tensor([3, 1], t), m.tensor([2, 3, 4], TB8)
    m.op(name, [a, b], [out])
    m.io([a, b], [out])
    (res,) = m.run([x, y], [[2, 3, 4]], torch.bool)
    assert torch.equal(res, ref(x, y))


def test_logical_select_and_reduce_any_all(lib, driver):
    g = torch.Generator().manual_seed(1)
    c, d = torch.rand(2, 3, generator=g) > 0.5, torch.tensor([True, False, True])
    x, y = torch.randn(2, 3, generator=g), torch.randn(2, 3, generator=g)
    m = Model(lib)
    ic, id_, ix, iy = m.tensor([2, 3], TB8), m.tensor([3], TB8), m.tensor([2, 3]), m.tensor([2, 3])
    both, either, neither, sel = (m.tensor([2, 3], t) for t in (TB8, TB8, TB8, TF32))
    any_, all_ = m.tensor([2], TB8), m.tensor([1, 3], TB8)
    m.op("LOGICAL_AND", [ic, id_], [both])
    m.op("LOGICAL_OR", [ic, id_], [either])
    m.op("LOGICAL_NOT", [either], [neither])
    m.op("SELECT", [both, ix, iy], [sel])
    m.op("REDUCE_ANY", [ic, m.const(torch.tensor([-1], dtype=torch.int32)), m.bool(False)], [any_])
    m.op("REDUCE_ALL", [either, m.const(torch.tensor([0], dtype=torch.int32)), m.bool(True)], [all_])
    m.io([ic, id_, ix, iy], [neither, sel, any_, all_])
    m.finish()
    ex = Execution(lib, m.compile())
    # NNAPI: any nonzero byte of a TENSOR_BOOL8 input is true.
    for j, v in enumerate((c.to(torch.uint8) * 7, d, x, y)):
        ex.set_input(j, v)
    outs = [torch.empty(2, 3, dtype=torch.bool), torch.empty(2, 3), torch.empty(2, dtype=torch.bool),
            torch.empty(1, 3, dtype=torch.bool)]
    for j, o in enumerate(outs):
        ex.set_output(j, o)
    assert ex.compute() == NO_ERROR, _last(lib)
    assert torch.equal(outs[0], ~(c | d))
    assert torch.equal(outs[1], torch.where(c & d, x, y))
    assert torch.equal(outs[2], c.any(-1)) and torch.equal(outs[3], (c | d).all(0, keepdim=True))


# -- validation -----------------------------------------------------------------------------------------
def test_wrong_operand_count_is_bad_data(lib, driver):
    m = Model(lib)
    a, out = m.tensor([2]), m.tensor([2])
    m.op("ADD", [a, a], [out], expect=BAD_DATA)
    msg = driver.last_error
    assert "ADD (operation #0)" in msg and "expects 3 inputs, got 2" in msg
    assert _last(lib) == msg


def test_wrong_operand_type_is_bad_data(lib, driver):
    m = Model(lib)
    a, b, out = m.tensor([2]), m.tensor([2], TI32), m.tensor([2])
    m.op("ADD", [a, b, m.i32(0)], [out], expect=BAD_DATA)
    assert "input 1 has type TENSOR_INT32, expected TENSOR_FLOAT32" in driver.last_error
    m.op("CONV_2D", [a, a, a, m.f32(1.0), m.i32(1), m.i32(1), m.i32(0)], [out], expect=BAD_DATA)
    assert "padding code" in driver.last_error and "must be INT32" in driver.last_error


def test_operation_above_feature_level_is_bad_data(lib, driver):
    driver.feature_level = 29
    m = Model(lib)
    a, out = m.tensor([1, 2, 2, 1]), m.tensor([1, 4, 4, 1])
    m.op("HARD_SWISH", [a], [out], expect=BAD_DATA)
    assert "HARD_SWISH" in driver.last_error and "feature level 30" in driver.last_error
    # align_corners is a feature-level-30 input of RESIZE_BILINEAR.
    m.op("RESIZE_BILINEAR", [a, m.i32(4), m.i32(4), m.bool(False), m.bool(True)], [out], expect=BAD_DATA)
    assert "align_corners needs feature level 30" in driver.last_error
    m.op("RESIZE_BILINEAR", [a, m.i32(4), m.i32(4), m.bool(False)], [out])
    # An int32 ADD needs 30 as well.
    i = m.tensor([2], TI32)
    m.op("ADD", [i, i, m.i32(0)], [m.tensor([2], TI32)], expect=BAD_DATA)
    assert "TENSOR_INT32 needs feature level 30" in driver.last_error


def test_bool_operations_below_feature_level_29_are_bad_data(lib, driver):
    driver.feature_level = 28
    m = Model(lib)
    m.operand(TB8, [2], expect=BAD_DATA)
    assert "TENSOR_BOOL8 needs feature level 29" in driver.last_error
    a, b, out = m.tensor([2]), m.tensor([2]), m.tensor([2])
    for name in ("EQUAL", "GREATER", "LESS_EQUAL", "LOGICAL_AND", "LOGICAL_NOT", "SELECT", "REDUCE_ANY"):
        m.op(name, [a, b], [out], expect=BAD_DATA)
        assert f"{name} (operation #0) needs feature level 29" in driver.last_error


def test_bool_operation_types_are_checked(lib, driver):
    m = Model(lib)
    a, b, c = m.tensor([2]), m.tensor([2]), m.tensor([2], TB8)
    m.op("GREATER", [a, b], [m.tensor([2])], expect=BAD_DATA)
    assert "output 0 has type TENSOR_FLOAT32, expected TENSOR_BOOL8" in driver.last_error
    m.op("EQUAL", [c, a], [m.tensor([2], TB8)], expect=BAD_DATA)
    assert "input 1 has type TENSOR_FLOAT32, expected TENSOR_BOOL8" in driver.last_error
    m.op("LOGICAL_AND", [a, b], [m.tensor([2], TB8)], expect=BAD_DATA)
    assert "input 0 has type TENSOR_FLOAT32; allowed: TENSOR_BOOL8" in driver.last_error
    m.op("SELECT", [a, a, b], [m.tensor([2])], expect=BAD_DATA)
    assert "input 0 (condition) has type TENSOR_FLOAT32" in driver.last_error
    m.op("SELECT", [c, a, c], [m.tensor([2])], expect=BAD_DATA)
    assert "input 2 has type TENSOR_BOOL8, expected TENSOR_FLOAT32" in driver.last_error
    m.op("REDUCE_ALL", [a, m.const(torch.tensor([0], dtype=torch.int32)), m.bool(False)], [m.tensor([1])],
         expect=BAD_DATA)
    assert "allowed: TENSOR_BOOL8" in driver.last_error


def test_select_does_not_broadcast_but_comparisons_do(lib, driver):
    m = Model(lib)
    c, x, y, out = m.tensor([2, 3], TB8), m.tensor([2, 3]), m.tensor([3]), m.tensor([2, 3])
    m.op("SELECT", [c, x, y], [out])  # shapes are checked at Model_finish
    m.io([c, x, y], [out])
    m.finish(expect=BAD_DATA)
    assert "SELECT does not broadcast" in driver.last_error
    m = Model(lib)
    x, y, out = m.tensor([2, 3]), m.tensor([3]), m.tensor([2, 3], TB8)
    m.op("LESS", [x, y], [out])
    bad = m.tensor([4])
    m.op("LESS", [x, bad], [m.tensor([2, 4], TB8)])
    m.io([x, y, bad], [out])
    m.finish(expect=BAD_DATA)
    assert "LESS (operation #1)" in driver.last_error and "not broadcast-compatible" in driver.last_error


def test_operand_type_above_feature_level_and_bad_quantization(lib, driver):
    driver.feature_level = 28
    m = Model(lib)
    m.operand(TF16, [2], expect=BAD_DATA)
    assert "TENSOR_FLOAT16 needs feature level 29" in driver.last_error
    m.operand(QA8, [2], scale=0.0, zp=0, expect=BAD_DATA)
    assert "scale > 0" in driver.last_error
    m.operand(QA8, [2], scale=0.5, zp=300, expect=BAD_DATA)
    assert "zeroPoint in [0, 255]" in driver.last_error
    m.operand(TF32, [2], scale=0.5, expect=BAD_DATA)
    t = OperandType(TF32, 2, None, 0.0, 0)  # dimensionCount without dimensions
    assert lib.ANeuralNetworksModel_addOperand(m.handle, byref(t)) == BAD_DATA


def test_inconsistent_shapes_fail_at_finish(lib, driver):
    m = Model(lib)
    a, b, out = m.tensor([2, 3]), m.tensor([4, 3]), m.tensor([2, 3])
    m.op("ADD", [a, b, m.i32(0)], [out])
    m.io([a, b], [out])
    m.finish(expect=BAD_DATA)
    assert "not broadcast-compatible" in driver.last_error
    m.finish(expect=BAD_STATE)  # the model is invalid now

    m = Model(lib)
    a, out = m.tensor([1, 4, 4, 2]), m.tensor([1, 3, 3, 2])
    m.op("MAX_POOL_2D", [a, m.i32(1), m.i32(1), m.i32(1), m.i32(2), m.i32(2), m.i32(0)], [out])  # SAME
    m.io([a], [out])
    m.finish(expect=BAD_DATA)
    assert "declared as [1, 3, 3, 2] but the operation produces [1, 4, 4, 2]" in driver.last_error


def test_graph_rules_at_finish(lib, driver):
    m = Model(lib)
    a, tmp, out = m.tensor([2]), m.tensor([2]), m.tensor([2])
    m.op("RELU", [tmp], [out])  # tmp is never written
    m.io([a], [out])
    m.finish(expect=BAD_DATA)
    assert "operand 1" in driver.last_error and "no operation writes" in driver.last_error
    m = Model(lib)
    a = m.tensor([2])
    m.io([a], [a], expect=BAD_DATA)


def test_modifying_a_finished_model_is_bad_state(lib, driver):
    m = Model(lib)
    a, out = m.tensor([2]), m.tensor([2])
    m.op("RELU", [a], [out])
    m.io([a], [out])
    m.finish()
    m.operand(TF32, [2], expect=BAD_STATE)
    assert "finished" in driver.last_error
    m.set_value(a, b"\0" * 8, expect=BAD_STATE)
    m.op("RELU", [a], [out], expect=BAD_STATE)
    m.finish(expect=BAD_STATE)


def test_execution_rules(lib, driver):
    m = Model(lib)
    a, out = m.tensor([2, 2]), m.tensor([2, 2])
    m.op("RELU", [a], [out])
    m.io([a], [out])
    m.finish()
    comp = m.compile()
    ex = Execution(lib, comp)
    x = torch.randn(2, 2)
    ex.set_input(0, x, length=12, expect=BAD_DATA)
    assert "length is 12 bytes" in driver.last_error and "needs exactly 16" in driver.last_error
    ex.set_input(5, x, expect=BAD_DATA)
    ex.set_input(0, x)
    ex.set_input(0, x, expect=BAD_STATE)
    assert ex.compute() == BAD_DATA and "outputs [0] were not set" in driver.last_error
    y = torch.empty(2, 2)
    ex.set_output(0, y)
    assert ex.compute() == NO_ERROR
    torch.testing.assert_close(y, torch.relu(x))
    assert ex.compute() == BAD_STATE and "computes once" in driver.last_error
    ex.set_output(0, y, expect=BAD_STATE)
    lib.ANeuralNetworksExecution_free(ex.handle)

    # setReusable is feature level 31: not available at 30 ...
    ex = Execution(lib, comp)
    assert lib.ANeuralNetworksExecution_setReusable(ex.handle, True) == OP_FAILED
    assert "not available at feature level 30" in driver.last_error
    # ... but makes an execution re-runnable at 31.
    driver.feature_level = 31
    assert lib.ANeuralNetworksExecution_setReusable(ex.handle, True) == NO_ERROR
    ex.set_input(0, x)
    ex.set_output(0, y)
    assert ex.compute() == NO_ERROR and ex.compute() == NO_ERROR


def test_start_compute_event_and_dynamic_output_shape(lib, driver):
    m = Model(lib)
    a, out = m.tensor([0, 3]), m.tensor([0, 0])  # batch known only at execution
    m.op("TANH", [a], [out])
    m.io([a], [out])
    m.finish()
    comp = m.compile()
    ex = Execution(lib, comp)
    x = torch.randn(4, 3)
    ex.set_input(0, x, expect=BAD_DATA)  # the input must be fully specified
    dims = (c_uint32 * 2)(4, 3)
    ex.set_input(0, x, type_=byref(OperandType(TF32, 2, dims, 0.0, 0)))
    small = torch.empty(2, 3)
    ex.set_output(0, small)
    event = c_void_p()
    assert lib.ANeuralNetworksExecution_startCompute(ex.handle, byref(event)) == NO_ERROR
    rank = c_uint32()
    assert lib.ANeuralNetworksExecution_getOutputOperandRank(ex.handle, 0, byref(rank)) == BAD_STATE
    assert lib.ANeuralNetworksEvent_wait(event) == OUTPUT_INSUFFICIENT_SIZE
    assert "holds 24 bytes" in driver.last_error
    assert lib.ANeuralNetworksExecution_getOutputOperandRank(ex.handle, 0, byref(rank)) == OUTPUT_INSUFFICIENT_SIZE
    lib.ANeuralNetworksEvent_free(event)

    ex = Execution(lib, comp)
    ex.set_input(0, x, type_=byref(OperandType(TF32, 2, dims, 0.0, 0)))
    big = torch.full((8, 3), -7.0)
    ex.set_output(0, big)
    assert ex.compute() == NO_ERROR, _last(lib)
    got = (c_uint32 * 2)()
    assert lib.ANeuralNetworksExecution_getOutputOperandRank(ex.handle, 0, byref(rank)) == NO_ERROR
    assert lib.ANeuralNetworksExecution_getOutputOperandDimensions(ex.handle, 0, got) == NO_ERROR
    assert rank.value == 2 and list(got) == [4, 3]
    torch.testing.assert_close(big[:4], torch.tanh(x))


def test_operation_with_runtime_parameters_is_validated_at_execution(lib, driver):
    m = Model(lib)
    a, shape, out = m.tensor([2, 6]), m.tensor([2], TI32), m.tensor([0, 0])
    m.op("RESHAPE", [a, shape], [out])
    m.io([a, shape], [out])
    m.finish()
    comp = m.compile()
    x = torch.arange(12.0).reshape(2, 6)
    for new_shape, expect in (([3, -1], NO_ERROR), ([5, -1], BAD_DATA)):
        ex = Execution(lib, comp)
        ex.set_input(0, x)
        ex.set_input(1, torch.tensor(new_shape, dtype=torch.int32))
        y = torch.empty(12)
        ex.set_output(0, y)
        assert ex.compute() == expect, _last(lib)
        if expect == NO_ERROR:
            dims = (c_uint32 * 2)()
            assert lib.ANeuralNetworksExecution_getOutputOperandDimensions(ex.handle, 0, dims) == NO_ERROR
            assert list(dims) == [3, 4] and torch.equal(y, x.reshape(-1))
        else:
            assert "cannot reshape [2, 6] (12 elements) to [5, -1]" in driver.last_error


def test_fill_shape_given_at_execution(lib, driver):
    """FILL (API 30): the shape is a 1-D TENSOR_INT32 (here a model input), the value a scalar
    of the output's type; its operands are checked (type, level, sizes)."""
    m = Model(lib)
    shape, out = m.tensor([2], TI32), m.tensor([0, 0])
    m.op("FILL", [shape, m.f32(1.5)], [out])
    m.io([shape], [out])
    m.finish()
    comp = m.compile()
    for dims, expect in (([3, 4], NO_ERROR), ([3, 0], BAD_DATA)):
        ex = Execution(lib, comp)
        ex.set_input(0, torch.tensor(dims, dtype=torch.int32))
        y = torch.zeros(12)
        ex.set_output(0, y)
        assert ex.compute() == expect, _last(lib)
        if expect == NO_ERROR:
            got = (c_uint32 * 2)()
            assert lib.ANeuralNetworksExecution_getOutputOperandDimensions(ex.handle, 0, got) == NO_ERROR
            assert list(got) == [3, 4] and torch.equal(y, torch.full((12,), 1.5))
        else:
            assert "must hold at least one positive size" in driver.last_error
    m = Model(lib)
    x, filled, out = m.tensor([2, 2], TI32), m.tensor([2, 2], TI32), m.tensor([2, 2], TI32)
    m.op("FILL", [m.const(torch.tensor([2, 2], dtype=torch.int32)), m.i32(-7)], [filled])
    m.op("ADD", [x, filled, m.i32(0)], [out])
    m.io([x], [out])
    (res,) = m.run([torch.arange(4, dtype=torch.int32).reshape(2, 2)], [[2, 2]], torch.int32)
    assert res.tolist() == [[-7, -6], [-5, -4]]
    m = Model(lib)
    m.op("FILL", [m.const(torch.tensor([2], dtype=torch.int32)), m.i32(1)], [m.tensor([2])], expect=BAD_DATA)
    assert "value for a TENSOR_FLOAT32 output" in driver.last_error
    driver.feature_level = 29
    m = Model(lib)
    m.op("FILL", [m.const(torch.tensor([2], dtype=torch.int32)), m.f32(1.0)], [m.tensor([2])], expect=BAD_DATA)
    assert "FILL" in driver.last_error and "feature level 30" in driver.last_error


def test_large_constants_are_read_at_finish(lib, driver):
    m = Model(lib)
    a, out = m.tensor([64]), m.tensor([64])
    w = m.tensor([64])
    buf = ctypes.create_string_buffer(256)  # > 128 bytes: referenced, not copied
    assert lib.ANeuralNetworksModel_setOperandValue(m.handle, w, buf, 256) == NO_ERROR
    ctypes.memmove(buf, torch.full((64,), 2.0).numpy().tobytes(), 256)  # changed before finish
    m.op("MUL", [a, w, m.i32(0)], [out])
    m.io([a], [out])
    (res,) = m.run([torch.ones(64)], [[64]])
    assert torch.equal(res, torch.full((64,), 2.0))
    m.set_value(w, b"\0" * 12, expect=BAD_STATE)


def test_quantized_operation_without_integer_kernel_is_refused_at_add_operation(lib, driver):
    # The driver has no 8-bit BATCH_MATMUL kernel (feature level 6), and refuses it when added, not at compute.
    driver.feature_level = FL6
    m = Model(lib)
    x, y = m.tensor([2, 3], QA8S, scale=0.5, zp=3), m.tensor([3, 2], QA8S, scale=0.5, zp=3)
    m.op("BATCH_MATMUL", [x, y, m.bool(False), m.bool(False)], [m.tensor([2, 2], QA8S, scale=1.0, zp=0)],
         expect=OP_FAILED)
    assert "BATCH_MATMUL (operation #0) on TENSOR_QUANT8_ASYMM_SIGNED is not implemented" in driver.last_error
    # Quantized ADD and RELU are supported on the host device.
    m = Model(lib)
    a, b = m.tensor([4], QA8, scale=0.5, zp=3), m.tensor([4], QA8, scale=0.5, zp=3)
    out, relu = m.tensor([4], QA8, scale=1.0, zp=0), m.tensor([4], QA8, scale=1.0, zp=0)
    m.op("ADD", [a, b, m.i32(0)], [out])
    m.op("RELU", [out], [relu])
    m.io([a, b], [relu])
    m.finish()
    dev = c_void_p()
    assert lib.ANeuralNetworks_getDevice(0, byref(dev)) == NO_ERROR
    supported = (c_bool * 2)()
    devs = (c_void_p * 1)(dev)
    assert lib.ANeuralNetworksModel_getSupportedOperationsForDevices(m.handle, devs, 1, supported) == NO_ERROR
    assert list(supported) == [True, True]


def test_python_exception_becomes_op_failed(lib, driver, monkeypatch):
    from executorch_nnapi.host_driver import model as model_module

    def broken(self):
        raise ValueError("boom")

    monkeypatch.setattr(model_module.Model, "finish", broken)
    m = Model(lib)
    assert lib.ANeuralNetworksModel_finish(m.handle) == OP_FAILED
    assert "ValueError: boom" in driver.last_error and "broken" in driver.last_error


def test_null_arguments(lib, driver):
    assert lib.ANeuralNetworksModel_create(None) == UNEXPECTED_NULL
    assert lib.ANeuralNetworksModel_finish(None) == UNEXPECTED_NULL
    lib.ANeuralNetworksModel_free(None)  # a no-op


def test_counters_and_handles(lib, driver):
    driver.reset_counters()
    live = driver.live_handles()
    m = Model(lib)
    a, out = m.tensor([2]), m.tensor([2])
    m.op("RELU", [a], [out])
    m.io([a], [out])
    m.finish()
    comp = m.compile()
    for _ in range(2):
        ex = Execution(lib, comp)
        ex.set_input(0, torch.ones(2))
        ex.set_output(0, torch.empty(2))
        assert ex.compute() == NO_ERROR
        lib.ANeuralNetworksExecution_free(ex.handle)
    assert (driver.models_finished, driver.compilations_finished, driver.executions_computed) == (1, 1, 2)
    driver.reset_counters()
    assert driver.executions_computed == 0
    lib.ANeuralNetworksCompilation_free(comp)
    lib.ANeuralNetworksModel_free(m.handle)
    assert driver.live_handles() == live


# -- devices --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", [29, 31, FL6])
def test_device_queries(lib, driver, level):
    driver.feature_level = level
    count = c_uint32()
    assert lib.ANeuralNetworks_getDeviceCount(byref(count)) == NO_ERROR and count.value == 1
    dev = c_void_p()
    assert lib.ANeuralNetworks_getDevice(0, byref(dev)) == NO_ERROR
    assert lib.ANeuralNetworks_getDevice(1, byref(c_void_p())) == BAD_DATA
    name, version, type_, fl = c_char_p(), c_char_p(), c_int32(), c_int64()
    assert lib.ANeuralNetworksDevice_getName(dev, byref(name)) == NO_ERROR
    assert lib.ANeuralNetworksDevice_getVersion(dev, byref(version)) == NO_ERROR
    assert lib.ANeuralNetworksDevice_getType(dev, byref(type_)) == NO_ERROR
    assert lib.ANeuralNetworksDevice_getFeatureLevel(dev, byref(fl)) == NO_ERROR
    assert (name.value, version.value, type_.value, fl.value) == (b"executorch-nnapi-host-cpu", b"1.0", 2, level)
    assert lib.ANeuralNetworks_getRuntimeFeatureLevel() == level


def test_device_functions_absent_below_feature_level_29(lib, driver):
    driver.feature_level = 28
    assert lib.ANeuralNetworks_getDeviceCount(byref(c_uint32())) == OP_FAILED
    assert "introduced at 29" in driver.last_error

