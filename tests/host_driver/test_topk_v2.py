"""TOPK_V2 in the host driver, driven through the C API: values and indices against torch.topk,
equal values giving the larger index first (Android's reference), and k out of range refused."""

from __future__ import annotations

import pytest
import torch

from nnapi_client import BAD_DATA, TI32, Execution, Model, last_error


def run_topk(lib, x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    m = Model(lib)
    source = m.tensor(list(x.shape), TI32 if x.dtype == torch.int32 else 3)
    out_shape = [*x.shape[:-1], k]
    values, indices = m.tensor(out_shape, TI32 if x.dtype == torch.int32 else 3), m.tensor(out_shape, TI32)
    m.op("TOPK_V2", [source, m.i32(k)], [values, indices])
    m.io([source], [values, indices])
    m.finish()
    ex = Execution(lib, m.compile())
    ex.set_input(0, x)
    got_values, got_indices = torch.zeros(out_shape, dtype=x.dtype), torch.zeros(out_shape, dtype=torch.int32)
    ex.set_output(0, got_values)
    ex.set_output(1, got_indices)
    assert ex.compute() == 0, last_error(lib)
    return got_values, got_indices


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_topk_matches_torch_on_distinct_values(lib, dtype):
    x = torch.randperm(24, generator=torch.Generator().manual_seed(0)).reshape(3, 8).to(dtype)
    values, indices = run_topk(lib, x, 5)
    expected = torch.topk(x, 5, dim=-1)
    assert torch.equal(values, expected.values)
    assert torch.equal(indices, expected.indices.to(torch.int32))


def test_equal_values_give_the_larger_index_first(lib):
    values, indices = run_topk(lib, torch.tensor([1.0, 3.0, 3.0, 0.0, 3.0, 1.0]), 6)
    assert values.tolist() == [3.0, 3.0, 3.0, 1.0, 1.0, 0.0]
    assert indices.tolist() == [4, 2, 1, 5, 0, 3]


def test_k_beyond_the_last_dimension_is_refused(lib):
    m = Model(lib)
    source, values, indices = m.tensor([2, 3]), m.tensor([2, 4]), m.tensor([2, 4], TI32)
    m.op("TOPK_V2", [source, m.i32(4)], [values, indices])
    m.io([source], [values, indices])
    m.finish(expect=BAD_DATA)  # shapes are checked once the model is complete
    assert "input 1 (k) is 4, outside [1, 3]" in last_error(lib)
