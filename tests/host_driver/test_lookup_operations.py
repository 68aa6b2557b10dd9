"""RANK, EMBEDDING_LOOKUP, HASHTABLE_LOOKUP, RANDOM_MULTINOMIAL and LSH_PROJECTION in the host
driver, driven through the C API: results against computations of the test's own (torch indexing,
a dictionary lookup, class frequencies, FarmHash's Fingerprint64 on known values) and the checks
Android makes (types at addOperation, values when the model is finished or when it runs)."""

from __future__ import annotations

import pytest
import torch

from nnapi_client import BAD_DATA, INT32, OP_FAILED, QA8, TF16, TI32, Model, host_driver_at, last_error

TABLE = torch.randn(5, 3, 2, generator=torch.Generator().manual_seed(7))


@pytest.mark.parametrize("dims", [[7], [2, 3], [1, 2, 3, 4]])
def test_rank_is_the_number_of_dimensions(lib, driver, dims):
    m = Model(lib)
    x, out = m.tensor(dims), m.operand(INT32)
    m.op("RANK", [x], [out])
    m.io([x], [out])
    (res,) = m.run([torch.zeros(dims)], [[]], out_dtype=torch.int32)
    assert int(res) == len(dims)


def test_rank_output_must_be_an_int32_scalar(lib, driver):
    m = Model(lib)
    x, out = m.tensor([2, 3]), m.tensor([1], TI32)
    m.op("RANK", [x], [out], expect=BAD_DATA)
    assert "output 0 has type TENSOR_INT32, expected INT32" in last_error(lib)


def _embedding_model(lib, lookups, count: int, value_type: int = 3, const: bool = False):
    m = Model(lib)
    idx = m.const(lookups, TI32) if const else m.tensor([count], TI32)
    values = m.tensor(list(TABLE.shape), value_type)
    out = m.tensor([count, *TABLE.shape[1:]], value_type)
    m.op("EMBEDDING_LOOKUP", [idx, values], [out])
    m.io([values] if const else [idx, values], [out])
    return m


def test_embedding_lookup_takes_the_indexed_rows(lib, driver):
    lookups = torch.tensor([4, 0, 2, 2], dtype=torch.int32)
    (res,) = _embedding_model(lib, lookups, 4).run([lookups, TABLE], [[4, 3, 2]])
    torch.testing.assert_close(res, TABLE[lookups.long()], atol=0, rtol=0)


def test_embedding_lookup_index_out_of_range_fails_the_execution(lib, driver):
    lookups = torch.tensor([1, 5], dtype=torch.int32)
    _embedding_model(lib, lookups, 2).run([lookups, TABLE], [[2, 3, 2]], expect=OP_FAILED)
    assert "input 0 (lookups) must be in [0, 5)" in last_error(lib)


def test_embedding_lookup_constant_index_out_of_range_fails_the_model(lib, driver):
    m = _embedding_model(lib, torch.tensor([-1, 0], dtype=torch.int32), 2, const=True)
    m.finish(expect=BAD_DATA)
    assert "input 0 (lookups) must be in [0, 5)" in last_error(lib)


def test_embedding_lookup_float16_values_need_feature_level_30(lib):
    with host_driver_at(29):
        m = Model(lib)
        idx, values, out = m.tensor([2], TI32), m.tensor([5, 3], TF16), m.tensor([2, 3], TF16)
        m.op("EMBEDDING_LOOKUP", [idx, values], [out], expect=BAD_DATA)
    assert "input 1 (values) of type TENSOR_FLOAT16 needs feature level" in last_error(lib)
