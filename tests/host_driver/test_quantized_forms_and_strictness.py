"""The 8-bit forms of L2_NORMALIZATION and of the comparisons, integer DIV by zero, and where the
host driver refuses invalid DEPTHWISE_CONV_2D and STRIDED_SLICE models, through the C API.

L2_NORMALIZATION is compared bit for bit with a scalar model of Android's reference integer
arithmetic written here with Python integers and C's rounding rules (TFLite's fixed-point inverse
square root, SaturatingRoundingDoublingHighMul with its nudge and truncating division,
RoundingDivideByPOT), and with the real-valued result to one step. The comparisons are checked
against float32 real values, one float32 product per operand, as Android's reference computes them.
"""

from __future__ import annotations

from ctypes import byref, c_uint32

import numpy as np
import pytest
import torch

from nnapi_client import BAD_DATA, NO_ERROR, QA8, TB8, TF32, TI32, Execution, Model, OperandType, last_error

QA8S = 14  # TENSOR_QUANT8_ASYMM_SIGNED
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
KINDS = {"uint8": (QA8, torch.uint8, 128), "int8": (QA8S, torch.int8, 0)}  # type, dtype, output zero point


# -- a scalar model of the reference's integer arithmetic ------------------------------------------------
def _c_div(a: int, b: int) -> int:
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _srdhm(a: int, b: int) -> int:
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    return _c_div(ab + nudge, 1 << 31)


def _rdbp(x: int, exponent: int) -> int:
    mask = (1 << exponent) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if (x & mask) > threshold else 0)


def _saturating_left_shift(x: int, exponent: int) -> int:
    threshold = (1 << (31 - exponent)) - 1
    return INT32_MAX if x > threshold else INT32_MIN if x < -threshold else x << exponent


def _inv_sqrt(total: int) -> tuple[int, int]:
    """(multiplier, left shift) of 1/sqrt(total) in the reference's fixed point (reverse shift -1)."""
    if total <= 1:
        return INT32_MAX, 0
    shift = 11
    while total >= 1 << 29:
        total = _c_div(total, 4)
        shift += 1
    pairs = ((32 - total.bit_length()) - 1) // 2 - 1
    shift -= pairs
    total <<= 2 * pairs
    half_input = _rdbp(total >> 1, 1)
    x = 1 << 28
    for _ in range(5):
        x3 = _saturating_left_shift(_srdhm(_srdhm(x, x), x), 6)
        x = _saturating_left_shift(_srdhm(3 << 27, x) - _srdhm(half_input, x3), 3)
    x = _srdhm(x, 1518500250)
    if shift < 0:
        x, shift = x << -shift, 0
    return x, -shift


def _l2_reference(codes: np.ndarray, zero_point: int, axis: int) -> np.ndarray:
    """Android's 8-bit L2_NORMALIZATION, one vector at a time."""
    signed = codes.dtype == np.int8
    moved = np.moveaxis(codes.astype(np.int64), axis, -1)
    out = np.empty_like(moved)
    last = axis == codes.ndim - 1
    for index in np.ndindex(*moved.shape[:-1]):
        diffs = [int(v) - zero_point for v in moved[index]]
        multiplier, shift = _inv_sqrt(sum(d * d for d in diffs))
        for k, d in enumerate(diffs):
            if signed and last:   # TFLite's int8 kernel: the x128 folded into the shift
                total_shift = shift + 7
                value = _rdbp(_srdhm(d << max(total_shift, 0), multiplier), max(-total_shift, 0))
            else:
                value = _rdbp(_srdhm(d * 128, multiplier), -shift) + (0 if signed else 128)
            out[index + (k,)] = min(max(value, -128 if signed else 0), 127 if signed else 255)
    return np.moveaxis(out, -1, axis).astype(codes.dtype)


def _run_l2(lib, codes: torch.Tensor, kind: str, zero_point: int, axis: int | None) -> torch.Tensor:
    type_, dtype, out_zp = KINDS[kind]
    m = Model(lib)
    x = m.tensor(list(codes.shape), type_, scale=0.05, zp=zero_point)
    y = m.tensor(list(codes.shape), type_, scale=1 / 128, zp=out_zp)
    m.op("L2_NORMALIZATION", [x] + ([] if axis is None else [m.i32(axis)]), [y])
    m.io([x], [y])
    (res,) = m.run([codes], [list(codes.shape)], dtype)
    return res


@pytest.mark.parametrize("kind", ["uint8", "int8"])
@pytest.mark.parametrize("shape,axis", [((2, 3, 4, 5), None), ((2, 3, 4, 5), 1), ((3, 7), 0), ((6, 9), -1),
                                        ((2, 2, 3), -3), ((11,), 0)])
def test_8bit_l2_normalization_is_androids_integer_arithmetic(lib, driver, kind, shape, axis):
    _, dtype, out_zp = KINDS[kind]
    zero_point = 131 if kind == "uint8" else -5
    lo, hi = (0, 256) if kind == "uint8" else (-128, 128)
    codes = torch.randint(lo, hi, shape, dtype=dtype, generator=torch.Generator().manual_seed(len(shape)))
    # Vectors whose sums of squares are 0 and 1 (the reference's special case) and 2 (the smallest general one).
    flat = codes.reshape(-1, shape[-1]) if axis in (None, -1, len(shape) - 1) else None
    if flat is not None and flat.shape[0] >= 3:
        flat[0] = zero_point
        flat[1] = zero_point
        flat[1, 0] = zero_point + 1
        flat[2] = zero_point
        flat[2, :2] = zero_point - 1
    res = _run_l2(lib, codes, kind, zero_point, axis)
    norm_axis = (len(shape) - 1 if axis is None else axis % len(shape))
    expected = _l2_reference(codes.numpy(), zero_point, norm_axis)
    assert np.array_equal(res.numpy(), expected)
    # And within one step of the real-valued result.
    diffs = codes.to(torch.float64) - zero_point
    norms = diffs.pow(2).sum(norm_axis, keepdim=True).sqrt()
    real = torch.where(norms > 0, diffs / norms.clamp(min=1e-12), 0.0) * 128 + out_zp
    lo_out, hi_out = (0, 255) if kind == "uint8" else (-128, 127)
    assert (res.to(torch.float64) - real.round().clamp(lo_out, hi_out)).abs().max() <= 1


@pytest.mark.parametrize("kind", ["uint8", "int8"])
def test_8bit_l2_normalization_of_a_long_vector(lib, driver, kind):
    """A sum of squares above 2^29 takes the reference's divide-by-4 steps."""
    _, dtype, _ = KINDS[kind]
    zero_point = 128 if kind == "uint8" else 0
    extremes = (0, 255) if kind == "uint8" else (-128, 127)
    pick = torch.randint(0, 2, (1, 36000), generator=torch.Generator().manual_seed(5))
    codes = torch.where(pick == 1, extremes[1], extremes[0]).to(dtype)
    assert int(((codes.to(torch.int64) - zero_point) ** 2).sum()) >= 1 << 29
    res = _run_l2(lib, codes, kind, zero_point, None)
    assert np.array_equal(res.numpy(), _l2_reference(codes.numpy(), zero_point, 1))


# -- comparisons ---------------------------------------------------------------------------------------
def _real(codes: torch.Tensor, scale: float, zero_point: int) -> np.ndarray:
    """Android's float32 real value of each code: float32(code - zeroPoint) * float32(scale)."""
    return (codes.numpy().astype(np.int32) - zero_point).astype(np.float32) * np.float32(scale)


COMPARISONS = {"EQUAL": np.equal, "NOT_EQUAL": np.not_equal, "LESS": np.less, "LESS_EQUAL": np.less_equal,
               "GREATER": np.greater, "GREATER_EQUAL": np.greater_equal}


def _compare(lib, name: str, type_: int, a: torch.Tensor, qa: tuple[float, int], b: torch.Tensor,
             qb: tuple[float, int]) -> torch.Tensor:
    out_shape = list(torch.broadcast_shapes(a.shape, b.shape))
    m = Model(lib)
    x = m.tensor(list(a.shape), type_, scale=qa[0], zp=qa[1])
    y = m.tensor(list(b.shape), type_, scale=qb[0], zp=qb[1])
    out = m.tensor(out_shape, TB8)
    m.op(name, [x, y], [out])
    m.io([x, y], [out])
    (res,) = m.run([a, b], [out_shape], torch.bool)
    return res


@pytest.mark.parametrize("name", sorted(COMPARISONS))
@pytest.mark.parametrize("kind", ["uint8", "int8"])
def test_8bit_comparisons_compare_real_values(lib, driver, name, kind):
    type_, dtype, _ = KINDS[kind]
    qa, qb = ((0.5, 128), (0.25, 100)) if kind == "uint8" else ((0.5, 0), (0.25, -28))
    lo, hi = (96, 160) if kind == "uint8" else (-32, 32)
    gen = torch.Generator().manual_seed(11)
    a = torch.randint(lo, hi, (4, 5), dtype=dtype, generator=gen)
    b = torch.randint(lo, hi, (5,), dtype=dtype, generator=gen)
    # Equal real values from different codes: (a - zp_a) * 0.5 == (b - zp_b) * 0.25.
    a[0, :3] = torch.tensor([qa[1] + 3, qa[1] - 2, qa[1]], dtype=dtype)
    b[:3] = torch.tensor([qb[1] + 6, qb[1] - 4, qb[1]], dtype=dtype)
    res = _compare(lib, name, type_, a, qa, b, qb)
    expected = COMPARISONS[name](_real(a, *qa), _real(b, *qb))
    assert np.array_equal(res.numpy(), expected)
    assert bool(res[0, 0]) == (name in ("EQUAL", "LESS_EQUAL", "GREATER_EQUAL"))


def test_8bit_equality_is_decided_in_float32(lib, driver):
    """3 * 0.1f and 1 * 0.3f round to the same float32 (in double they differ): equal, as in Android."""
    a, b = torch.tensor([3, 4], dtype=torch.uint8), torch.tensor([1, 1], dtype=torch.uint8)
    assert float(np.float32(0.1)) * 3 != float(np.float32(0.3))
    res = _compare(lib, "EQUAL", QA8, a, (0.1, 0), b, (0.3, 0))
    assert res.tolist() == [True, False]


# -- integer DIV -----------------------------------------------------------------------------------------
def test_int32_division_by_zero_gives_zero(lib, driver):
    """NNAPI leaves it undefined; Android's reference returns 0 and the execution succeeds."""
    m = Model(lib)
    a, b, q = m.tensor([2, 3], TI32), m.tensor([3], TI32), m.tensor([2, 3], TI32)
    m.op("DIV", [a, b, m.i32(0)], [q])
    m.io([a, b], [q])
    x = torch.tensor([[7, -7, 5], [0, 9, -9]], dtype=torch.int32)
    y = torch.tensor([2, 0, -2], dtype=torch.int32)
    (res,) = m.run([x, y], [[2, 3]], torch.int32)
    assert res.tolist() == [[3, 0, -3], [0, 0, 4]]


# -- where invalid models are refused ------------------------------------------------------------------
def _depthwise(m: Model, filter_dims: list[int]) -> tuple[int, int, int]:
    """A DEPTHWISE_CONV_2D of a [1, 3, 3, 2] input with a constant filter of ``filter_dims``."""
    inp = m.tensor([1, 3, 3, 2])
    w = m.const(torch.zeros(filter_dims))
    bias = m.const(torch.zeros(filter_dims[-1]))
    out = m.tensor([1, 2, 2, 4])
    return inp, out, m.op("DEPTHWISE_CONV_2D", [inp, w, bias, *(m.i32(v) for v in (0, 0, 0, 0, 1, 1, 2, 0))],
                          [out], expect=BAD_DATA if filter_dims[0] != 1 else 0)


def test_depthwise_filter_first_dim_refused_at_add_operation(lib, driver):
    m = Model(lib)
    _depthwise(m, [2, 2, 2, 4])
    assert ("DEPTHWISE_CONV_2D (operation #0): input 1 (filter) must have shape "
            "[1, filter_h, filter_w, depth_out], got [2, 2, 2, 4]") in last_error(lib)
    m = Model(lib)
    inp, out, _ = _depthwise(m, [1, 2, 2, 4])
    m.io([inp], [out])
    (res,) = m.run([torch.ones(1, 3, 3, 2)], [[1, 2, 2, 4]])
    assert torch.equal(res, torch.zeros(1, 2, 2, 4))


def test_depthwise_filter_of_wrong_rank_refused_at_add_operation(lib, driver):
    m = Model(lib)
    inp, w, bias = m.tensor([1, 3, 3, 2]), m.tensor([2, 2, 4]), m.const(torch.zeros(4))
    m.op("DEPTHWISE_CONV_2D", [inp, w, bias, *(m.i32(v) for v in (0, 0, 0, 0, 1, 1, 2, 0))],
         [m.tensor([1, 2, 2, 4])], expect=BAD_DATA)
    assert "input 1 (filter) must have rank 4 [1, filter_h, filter_w, depth_out], got [2, 2, 4]" in last_error(lib)


def test_depthwise_filter_with_unknown_first_dim_is_checked_when_known(lib, driver):
    """A filter fed at execution with its first dim left open: addOperation and Model_finish accept
    it, the execution checks the dims it is given."""
    m = Model(lib)
    inp, w, bias, out = m.tensor([1, 3, 3, 2]), m.tensor([0, 2, 2, 4]), m.const(torch.zeros(4)), m.tensor([1, 2, 2, 4])
    m.op("DEPTHWISE_CONV_2D", [inp, w, bias, *(m.i32(v) for v in (0, 0, 0, 0, 1, 1, 2, 0))], [out])
    m.io([inp, w], [out])
    m.finish()
    compilation = m.compile()
    for first, expect in ((1, NO_ERROR), (2, BAD_DATA)):
        dims = (c_uint32 * 4)(first, 2, 2, 4)
        ex = Execution(lib, compilation)
        ex.set_input(0, torch.ones(1, 3, 3, 2))
        ex.set_input(1, torch.ones(first, 2, 2, 4), type_=byref(OperandType(TF32, 4, dims, 0.0, 0)))
        res = torch.zeros(1, 2, 2, 4)
        ex.set_output(0, res)
        assert ex.compute() == expect, last_error(lib)
        if expect == NO_ERROR:
            assert torch.equal(res, torch.full((1, 2, 2, 4), 4.0))
        else:
            assert "must have shape [1, filter_h, filter_w, depth_out], got [2, 2, 2, 4]" in last_error(lib)
    lib.ANeuralNetworksCompilation_free(compilation)


def _strided_slice(lib, begin, end, strides, shrink: int, out_shape: list[int]) -> Model:
    """STRIDED_SLICE of a [2, 3] input with constant begin/end/strides and masks (as Android's specs)."""
    m = Model(lib)
    inp, out = m.tensor([2, 3]), m.tensor(out_shape)
    vectors = [m.const(torch.tensor(v, dtype=torch.int32)) for v in (begin, end, strides)]
    m.op("STRIDED_SLICE", [inp, *vectors, m.i32(0), m.i32(0), m.i32(shrink)], [out])
    m.io([inp], [out])
    return m


@pytest.mark.parametrize("begin,end,strides,message", [
    ([0, 0], [2, 3], [1, 1], "dimension 0 is shrunk but its slice has 2 elements, not 1"),
    ([1, 0], [0, 3], [-1, 1], "dimension 0 is shrunk (shrink_axis_mask) but its stride -1 is negative"),
])
def test_strided_slice_shrink_rules_fail_at_execution_as_in_android(lib, driver, begin, end, strides, message):
    """Android checks them only when preparing the execution: Model_finish and compilation accept
    the model (CTS asserts that they do) and the execution fails."""
    m = _strided_slice(lib, begin, end, strides, 1, [3])
    m.run([torch.arange(6.0).reshape(2, 3)], [[3]], expect=BAD_DATA)
    assert f"STRIDED_SLICE (operation #0): {message}" in last_error(lib)


def test_strided_slice_shrinks_a_one_element_positive_stride_slice(lib, driver):
    m = _strided_slice(lib, [1, 0], [2, 3], [1, 1], 1, [3])
    (res,) = m.run([torch.arange(6.0).reshape(2, 3)], [[3]])
    assert res.tolist() == [3.0, 4.0, 5.0]
