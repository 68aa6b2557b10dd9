"""The host driver's speed paths: pooled output buffers (host_driver/buffers.py) and the
operations' `compute_into`, which must give exactly what `compute` gives.

Each model is built through the shim's C API (tests/nnapi_client.py), run once as the driver runs
it (pooled buffers, compute_into), then run again with every step's compute_into switched off
(the general path: a fresh tensor from `compute`); the outputs must be bit-identical, and equal to
eager torch up to float rounding.
"""

from __future__ import annotations

from typing import Sequence

import pytest
import torch

from nnapi_client import TF32, TI32, Execution, Model
from executorch_nnapi.host_driver.buffers import BufferPool
from executorch_nnapi.host_driver.compilation import Compilation, Plan


def _execute(lib, comp, inputs: Sequence[torch.Tensor], out_shapes, out_dtype=torch.float32) -> list[torch.Tensor]:
    ex = Execution(lib, comp)
    for j, x in enumerate(inputs):
        ex.set_input(j, x)
    outs = [torch.full(tuple(s), float("nan")).to(out_dtype) for s in out_shapes]
    for j, o in enumerate(outs):
        ex.set_output(j, o)
    assert ex.compute() == 0
    return outs


def _plan(driver, comp) -> Plan:
    return driver.lookup(comp.value, Compilation, "compilation").plan


def fast_and_general(lib, driver, m: Model, inputs, out_shapes, out_dtype=torch.float32, *,
                     expect_into: Sequence[str] = ()) -> list[torch.Tensor]:
    """Run `m` with the speed paths, then without; assert bit-identical outputs and that the
    operations named in `expect_into` did take the compute_into path. Returns the outputs."""
    m.finish()
    comp = m.compile()
    plan = _plan(driver, comp)
    with_into = {st.op.name for st in plan.steps if st.into is not None}
    assert set(expect_into) <= with_into, f"no compute_into for {set(expect_into) - with_into}"
    fast = _execute(lib, comp, inputs, out_shapes, out_dtype)
    again = _execute(lib, comp, inputs, out_shapes, out_dtype)  # the pool now holds last run's buffers
    for st in plan.steps:
        st.into = None
    general = _execute(lib, comp, inputs, out_shapes, out_dtype)
    for f, a, g in zip(fast, again, general):
        assert torch.equal(f, g), f"compute_into differs from compute by {(f - g).abs().max()}"
        assert torch.equal(a, g), "a second run on the pooled buffers differs"
    return fast


def _binary_model(lib, name: str, a_shape, b_shape, out_shape, act: int | None, dtype=TF32):
    m = Model(lib)
    a, b = m.tensor(a_shape, dtype), m.tensor(b_shape, dtype)
    out = m.tensor(out_shape, dtype)
    m.op(name, [a, b] + ([] if act is None else [m.i32(act)]), [out])
    m.io([a, b], [out])
    return m


BINARY_CASES = [
    # name, a shape, b shape, fused activation (None: the operation has none), eager reference
    ("ADD", [2, 3, 4, 5], [5], 3, lambda a, b: torch.clamp(a + b, 0, 6)),
    ("ADD", [1, 14, 14, 24], [1], 0, torch.add),
    ("SUB", [3, 1, 4], [2, 4], 1, lambda a, b: torch.relu(a - b)),
    # The attention form: an outer product broadcast [B, M, K, 1] x [B, 1, K, N].
    ("MUL", [4, 5, 6, 1], [4, 1, 6, 7], 0, torch.mul),
    ("MUL", [6], [2, 3, 6], 2, lambda a, b: torch.clamp(a * b, -1, 1)),
    ("DIV", [2, 3, 4], [2, 3, 4], 0, torch.div),
    ("MAXIMUM", [2, 1, 4], [3, 1], None, torch.maximum),
    ("MINIMUM", [5, 7], [5, 7], None, torch.minimum),
]


@pytest.mark.parametrize("name,a_shape,b_shape,act,ref", BINARY_CASES,
                         ids=[f"{c[0]}-{'x'.join(map(str, c[1]))}" for c in BINARY_CASES])
def test_binary_into_equals_compute(lib, driver, name, a_shape, b_shape, act, ref):
    torch.manual_seed(0)
    a, b = torch.randn(a_shape), torch.randn(b_shape)
    if name == "DIV":
        b = b.sign() * (b.abs() + 0.5)
    out_shape = list(torch.broadcast_shapes(a.shape, b.shape))
    m = _binary_model(lib, name, a_shape, b_shape, out_shape, act)
    (res,) = fast_and_general(lib, driver, m, [a, b], [out_shape], expect_into=[name])
    torch.testing.assert_close(res, ref(a, b), rtol=1e-6, atol=1e-6)


def test_pow_and_int32_binary_into_equals_compute(lib, driver):
    a, b = torch.rand(3, 4) + 0.5, torch.randn(4)
    m = _binary_model(lib, "POW", [3, 4], [4], [3, 4], None)
    (res,) = fast_and_general(lib, driver, m, [a, b], [[3, 4]], expect_into=["POW"])
    torch.testing.assert_close(res, torch.pow(a, b))
    x, y = torch.randint(-50, 50, (2, 5), dtype=torch.int32), torch.randint(-50, 50, (5,), dtype=torch.int32)
    for name, ref in (("ADD", torch.add), ("MUL", torch.mul)):
        m = _binary_model(lib, name, [2, 5], [5], [2, 5], 0, TI32)
        (res,) = fast_and_general(lib, driver, m, [x, y], [[2, 5]], torch.int32, expect_into=[name])
        assert torch.equal(res, ref(x, y))


def test_int32_div_keeps_its_general_path(lib, driver):
    """Integer DIV floors and checks its divisors: compute_into declines it."""
    x = torch.tensor([[7, -7, 9]], dtype=torch.int32)
    y = torch.tensor([2, 2, -4], dtype=torch.int32)
    m = _binary_model(lib, "DIV", [1, 3], [3], [1, 3], 0, TI32)
    (res,) = fast_and_general(lib, driver, m, [x, y], [[1, 3]], torch.int32)
    assert res.tolist() == [[3, -4, -3]]


UNARY_CASES = [
    ("EXP", torch.exp, False), ("ABS", torch.abs, False), ("NEG", torch.neg, False), ("LOG", torch.log, True),
    ("SQRT", torch.sqrt, True), ("RSQRT", torch.rsqrt, True), ("SIN", torch.sin, False),
    ("FLOOR", torch.floor, False), ("TANH", torch.tanh, False), ("LOGISTIC", torch.sigmoid, False),
    ("RELU", torch.relu, False), ("RELU1", lambda x: x.clamp(-1, 1), False),
    ("RELU6", lambda x: x.clamp(0, 6), False),
]


@pytest.mark.parametrize("name,ref,positive", UNARY_CASES, ids=[c[0] for c in UNARY_CASES])
@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "after-TRANSPOSE"])
def test_unary_into_equals_compute(lib, driver, name, ref, positive, transposed):
    """Also on a TRANSPOSE result, a permuted (non-contiguous) view inside the driver, which
    compute_into declines (torch's loop over it would round sigmoid differently)."""
    torch.manual_seed(1)
    x = torch.randn(2, 3, 5, 7) * 4
    if positive:
        x = x.abs() + 0.1
    m = Model(lib)
    inp = m.tensor(list(x.shape))
    src, expected_in = inp, x
    if transposed:
        src = m.tensor([2, 5, 7, 3])
        m.op("TRANSPOSE", [inp, m.const(torch.tensor([0, 2, 3, 1], dtype=torch.int32))], [src])
        expected_in = x.permute(0, 2, 3, 1)
    out = m.tensor(list(expected_in.shape))
    m.op(name, [src], [out])
    m.io([inp], [out])
    (res,) = fast_and_general(lib, driver, m, [x], [list(expected_in.shape)], expect_into=[name])
    torch.testing.assert_close(res, ref(expected_in))


REDUCE_CASES = [
    # name, axes, keep_dims, eager reference
    ("MEAN", [1, 2], True, lambda x: x.mean((1, 2), keepdim=True)),
    ("MEAN", [-1], False, lambda x: x.mean(-1)),
    ("MEAN", [0, 1, 2, 3], False, lambda x: x.mean().reshape(1)),  # NNAPI gives [1], not a 0-d tensor
    ("REDUCE_SUM", [2], False, lambda x: x.sum(2)),
    ("REDUCE_SUM", [0, 3], True, lambda x: x.sum((0, 3), keepdim=True)),
    ("REDUCE_MAX", [1], False, lambda x: x.amax(1)),
    ("REDUCE_MIN", [3, 1], True, lambda x: x.amin((1, 3), keepdim=True)),
]


@pytest.mark.parametrize("name,axes,keep,ref", REDUCE_CASES,
                         ids=[f"{c[0]}-{c[1]}-{'keep' if c[2] else 'drop'}" for c in REDUCE_CASES])
def test_reduce_into_equals_compute(lib, driver, name, axes, keep, ref):
    torch.manual_seed(2)
    x = torch.randn(3, 4, 6, 8)
    expected = ref(x)
    m = Model(lib)
    inp = m.tensor(list(x.shape))
    out = m.tensor(list(expected.shape))
    keep_operand = m.i32(int(keep)) if name == "MEAN" else m.bool(keep)
    m.op(name, [inp, m.const(torch.tensor(axes, dtype=torch.int32)), keep_operand], [out])
    m.io([inp], [out])
    (res,) = fast_and_general(lib, driver, m, [x], [list(expected.shape)], expect_into=[name])
    torch.testing.assert_close(res, expected)


@pytest.mark.parametrize("runtime_weights", [False, True], ids=["constant-weights", "runtime-weights"])
def test_fully_connected_into_equals_compute(lib, driver, runtime_weights):
    """A rank-4 input flattened to [batch, input_size], with a fused RELU."""
    torch.manual_seed(3)
    x, w, b = torch.randn(1, 4, 4, 12), torch.randn(10, 12), torch.randn(10)
    m = Model(lib)
    inp = m.tensor(list(x.shape))
    weights = m.tensor([10, 12]) if runtime_weights else m.const(w)
    out = m.tensor([16, 10])
    m.op("FULLY_CONNECTED", [inp, weights, m.const(b), m.i32(1)], [out])
    m.io([inp, weights] if runtime_weights else [inp], [out])
    inputs = [x, w] if runtime_weights else [x]
    (res,) = fast_and_general(lib, driver, m, inputs, [[16, 10]], expect_into=["FULLY_CONNECTED"])
    torch.testing.assert_close(res, torch.relu(torch.nn.functional.linear(x.reshape(16, 12), w, b)))


@pytest.mark.parametrize("beta,axis", [(1.0, -1), (0.5, 1)])
def test_softmax_into_equals_compute(lib, driver, beta, axis):
    torch.manual_seed(4)
    x = torch.randn(2, 3, 7, 7)
    m = Model(lib)
    inp = m.tensor(list(x.shape))
    out = m.tensor(list(x.shape))
    m.op("SOFTMAX", [inp, m.f32(beta), m.i32(axis)], [out])
    m.io([inp], [out])
    (res,) = fast_and_general(lib, driver, m, [x], [list(x.shape)], expect_into=["SOFTMAX"])
    torch.testing.assert_close(res, torch.softmax(x * beta, axis))


def test_reshape_copies_a_transposed_value_and_views_a_contiguous_one(lib, driver):
    """RESHAPE of TRANSPOSE's permuted view is a copy into a pooled buffer; of a contiguous
    value, a free view (compute_into declines)."""
    x = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    m = Model(lib)
    inp = m.tensor([2, 3, 4, 5])
    t = m.tensor([2, 4, 3, 5])
    m.op("TRANSPOSE", [inp, m.const(torch.tensor([0, 2, 1, 3], dtype=torch.int32))], [t])
    copied = m.tensor([8, 15])
    m.op("RESHAPE", [t, m.const(torch.tensor([8, 15], dtype=torch.int32))], [copied])
    viewed = m.tensor([6, 20])
    m.op("RESHAPE", [inp, m.const(torch.tensor([-1, 20], dtype=torch.int32))], [viewed])
    m.io([inp], [copied, viewed])
    res = fast_and_general(lib, driver, m, [x], [[8, 15], [6, 20]], expect_into=["RESHAPE"])
    assert torch.equal(res[0], x.permute(0, 2, 1, 3).reshape(8, 15))
    assert torch.equal(res[1], x.reshape(6, 20))


def test_pooled_buffer_outlives_its_operand_through_views(lib, driver):
    """A pooled result read only through views (RESHAPE, a STRIDED_SLICE with an offset) after
    its own last use must not be lent again while those views live, although same-sized
    results are computed in between."""
    torch.manual_seed(5)
    x = torch.randn(4, 6)
    m = Model(lib)
    inp = m.tensor([4, 6])
    e = m.tensor([4, 6])
    m.op("EXP", [inp], [e])                                          # pooled buffer P
    view = m.tensor([6, 4])
    m.op("RESHAPE", [e, m.const(torch.tensor([6, 4], dtype=torch.int32))], [view])
    part = m.tensor([2, 6])
    m.op("STRIDED_SLICE", [e, m.const(torch.tensor([2, 0], dtype=torch.int32)),
                           m.const(torch.tensor([4, 6], dtype=torch.int32)),
                           m.const(torch.tensor([1, 1], dtype=torch.int32)), m.i32(0), m.i32(0), m.i32(0)], [part])
    chain = m.tensor([4, 6])
    m.op("NEG", [e], [chain])                                        # e's last use
    for _ in range(3):                                               # same-sized results: each takes
        nxt = m.tensor([4, 6])                                       # a pooled [4, 6] buffer
        m.op("ADD", [chain, inp, m.i32(0)], [nxt])
        chain = nxt
    from_view = m.tensor([6, 4])
    m.op("MUL", [view, m.const(torch.tensor([2.0])), m.i32(0)], [from_view])
    from_part = m.tensor([2, 6])
    m.op("ADD", [part, m.const(torch.tensor([1.0])), m.i32(0)], [from_part])
    m.io([inp], [chain, from_view, from_part])
    res = fast_and_general(lib, driver, m, [x], [[4, 6], [6, 4], [2, 6]], expect_into=["EXP", "NEG", "ADD", "MUL"])
    ex = torch.exp(x)
    torch.testing.assert_close(res[0], -ex + x + x + x)
    assert torch.equal(res[1], ex.reshape(6, 4) * 2)
    assert torch.equal(res[2], ex[2:] + 1)


def test_model_output_is_never_lent_again(lib, driver):
    """An output that later steps also read stays intact until the caller's copy."""
    x = torch.randn(3, 5)
    m = Model(lib)
    inp = m.tensor([3, 5])
    first = m.tensor([3, 5])
    m.op("EXP", [inp], [first])
    second = m.tensor([3, 5])
    m.op("ABS", [first], [second])
    third = m.tensor([3, 5])
    m.op("NEG", [second], [third])
    m.io([inp], [first, third])
    res = fast_and_general(lib, driver, m, [x], [[3, 5], [3, 5]], expect_into=["EXP", "ABS", "NEG"])
    assert torch.equal(res[0], torch.exp(x))
    assert torch.equal(res[1], -torch.exp(x).abs())


def test_plan_releases_each_temporary_after_its_last_reader(lib, driver):
    m = Model(lib)
    inp = m.tensor([2, 2])
    a, b, unused, c = m.tensor([2, 2]), m.tensor([2, 2]), m.tensor([1, 2]), m.tensor([2, 2])
    m.op("EXP", [inp], [a])                    # step 0
    m.op("ABS", [a], [b])                      # step 1
    top, rest = m.tensor([1, 2]), unused
    m.op("SPLIT", [b, m.i32(0), m.i32(2)], [top, rest])  # step 2: `rest` is never read
    m.op("ADD", [a, top, m.i32(0)], [c])        # step 3: last reader of a and top
    m.io([inp], [c])
    m.finish()
    plan = _plan(driver, m.compile())
    assert [set(st.release) for st in plan.steps] == [set(), set(), {b, rest}, {a, top}]


def test_buffer_pool_counts_views_and_recycles():
    pool = BufferPool()
    buf = pool.take((2, 3), torch.float32)
    pool.adopt(buf)
    view = buf.reshape(3, 2)
    pool.adopt(view)
    pool.release(buf)
    assert pool.take((6,), torch.float32).data_ptr() != buf.data_ptr(), "lent again while a view lives"
    pool.release(view)
    again = pool.take((3, 2), torch.float32)
    assert again.data_ptr() == buf.data_ptr() and again.shape == (3, 2)
    assert pool.take((2, 3), torch.int32).dtype == torch.int32
    pool.give_back([again])
    assert pool.take((1, 6), torch.float32).data_ptr() == buf.data_ptr()
    pool.release(torch.zeros(4))  # not lent: ignored
    pool.end_run()
    assert not pool.lent
