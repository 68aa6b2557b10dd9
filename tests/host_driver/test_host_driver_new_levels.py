"""The host driver's operations of feature levels 6 and 7 (PACK, MIRROR_PAD, REVERSE, BATCH_MATMUL's
operand list), checked through the C API against torch and against the rules Android's validation
and CPU implementation apply (AOSP packages/modules/NeuralNetworks, common/types/operations and
common/cpu_operations; docs/nnapi_facts.md §6.6), and the driver acting as an Android API level."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from executorch_nnapi.host_driver import HostDriver
from nnapi_client import BAD_DATA, QA8, TI32, Model, last_error

FL6, FL7, FL8 = 1000006, 1000007, 1000008
QA8S = 14


@pytest.fixture
def fl8(driver):
    driver.feature_level = FL8
    return driver


def _i32(m: Model, *values: int, dims=None) -> int:
    return m.const(torch.tensor(values, dtype=torch.int32).reshape(dims or [len(values)]))


def test_pack_stacks_along_the_axis(lib, fl8):
    xs = [torch.randn(2, 3) for _ in range(3)]
    m = Model(lib)
    ins = [m.tensor([2, 3]) for _ in xs]
    out = m.tensor([2, 3, 3])
    m.op("PACK", [m.i32(1), *ins], [out])
    m.io(ins, [out])
    (res,) = m.run(xs, [[2, 3, 3]])
    torch.testing.assert_close(res, torch.stack(xs, 1), rtol=0, atol=0)


def test_pack_of_8_bit_codes_needs_one_scale_for_all(lib, fl8):
    m = Model(lib)
    a, b = m.tensor([4], QA8, scale=0.5, zp=3), m.tensor([4], QA8, scale=0.25, zp=3)
    out = m.tensor([2, 4], QA8, scale=0.5, zp=3)
    m.op("PACK", [m.i32(0), a, b], [out], expect=BAD_DATA)
    assert "scale/zeroPoint" in last_error(lib)


@pytest.mark.parametrize("mode, torch_mode", [(0, "reflect"), (1, None)])
def test_mirror_pad_reflect_and_symmetric(lib, fl8, mode, torch_mode):
    x = torch.randn(2, 3, 4)
    pads = [[0, 1], [2, 1], [3, 0]] if mode == 0 else [[1, 0], [0, 3], [4, 4]]
    m = Model(lib)
    inp = m.tensor([2, 3, 4])
    out_shape = [d + a + b for d, (a, b) in zip(x.shape, pads)]
    out = m.tensor(out_shape)
    m.op("MIRROR_PAD", [inp, _i32(m, *sum(pads, []), dims=[3, 2]), m.i32(mode)], [out])
    m.io([inp], [out])
    (res,) = m.run([x], [out_shape])
    if torch_mode:
        want = F.pad(x.unsqueeze(0), [p for row in reversed(pads) for p in row], mode=torch_mode).squeeze(0)
    else:  # SYMMETRIC repeats the border element: [1, 2, 3] padded (0, 2) is [1, 2, 3, 3, 2]
        want = x
        for k, (a, b) in enumerate(pads):
            want = torch.cat([want.narrow(k, 0, a).flip(k), want, want.narrow(k, want.shape[k] - b, b).flip(k)], k)
    torch.testing.assert_close(res, want, rtol=0, atol=0)


def test_mirror_pad_reflect_refuses_a_pad_as_large_as_the_dim(lib, fl8):
    m = Model(lib)
    inp, out = m.tensor([3]), m.tensor([6])
    m.op("MIRROR_PAD", [inp, _i32(m, 0, 3, dims=[1, 2]), m.i32(0)], [out])
    m.io([inp], [out])
    m.finish(expect=BAD_DATA)
    assert "3 for dimension 0 of size 3 must be in [0, 2] in REFLECT mode" in last_error(lib)


def test_reverse_one_axis_of_8_bit_codes(lib, fl8):
    x = torch.randint(0, 255, (2, 3, 4), dtype=torch.uint8)
    m = Model(lib)
    inp, out = m.tensor([2, 3, 4], QA8, scale=0.1, zp=7), m.tensor([2, 3, 4], QA8, scale=0.1, zp=7)
    m.op("REVERSE", [inp, _i32(m, 1)], [out])
    m.io([inp], [out])
    (res,) = m.run([x], [[2, 3, 4]], torch.uint8)
    assert torch.equal(res, x.flip(1))


def test_reverse_axis_must_be_a_one_element_tensor_in_range(lib, fl8):
    m = Model(lib)
    inp, out = m.tensor([2, 3]), m.tensor([2, 3])
    m.op("REVERSE", [inp, _i32(m, 2)], [out])
    m.io([inp], [out])
    m.finish(expect=BAD_DATA)
    assert "input 1 (axis) must be in [0, 2), got 2" in last_error(lib)


@pytest.mark.parametrize("name, level", [("PACK", FL6), ("MIRROR_PAD", FL7), ("REVERSE", FL7)])
def test_operations_are_refused_below_their_level(lib, driver, name, level):
    driver.feature_level = level - 1 if level > FL6 else 31
    m = Model(lib)
    inp, out = m.tensor([2]), m.tensor([2])
    m.op(name, [inp, inp], [out], expect=BAD_DATA)
    assert "needs feature level FL" in last_error(lib)


def test_batch_matmul_wants_both_adj_flags(lib, fl8):
    """The header calls adj_x / adj_y optional; Android's validation (BatchMatmul.cpp) wants 4 inputs."""
    m = Model(lib)
    a, b, out = m.tensor([2, 3, 4]), m.tensor([2, 4, 5]), m.tensor([2, 3, 5])
    m.op("BATCH_MATMUL", [a, b], [out], expect=BAD_DATA)
    assert "expects 4 inputs (adj_x and adj_y are required" in last_error(lib)


@pytest.mark.parametrize("api, level", [(31, 31), (32, 31), (33, FL8), (34, FL8), (35, FL8), (1000007, FL7)])
def test_driver_acts_as_an_android_api_level(api, level):
    assert HostDriver(api).feature_level == level


def test_unknown_level_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"feature level must be one of .* or an Android API level 32\.\.35, got 36"):
        HostDriver(36)


@pytest.mark.parametrize("level, ok", [(31, False), (FL6, True)])
def test_reshape_takes_int32_from_feature_level_6(lib, driver, level, ok):
    driver.feature_level = level
    m = Model(lib)
    inp, out = m.tensor([2, 3], TI32), m.tensor([3, 2], TI32)
    if not ok:
        m.op("RESHAPE", [inp, _i32(m, 3, 2)], [out], expect=BAD_DATA)
        assert "of type TENSOR_INT32 needs feature level FL6 (1000006)" in last_error(lib)
        return
    m.op("RESHAPE", [inp, _i32(m, 3, 2)], [out])
    m.io([inp], [out])
    x = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    (res,) = m.run([x], [[3, 2]], torch.int32)
    assert torch.equal(res, x.reshape(3, 2))
