"""EMBEDDING_LOOKUP, HASHTABLE_LOOKUP, LSH_PROJECTION, RANK and RANDOM_MULTINOMIAL in the host
driver over the operand types and feature levels that test_lookup_operations.py (float32 / int32
basics, FarmHash's published values) leaves out: float16, 8-bit and signed 8-bit values, float16
hash functions and float16 / 8-bit LSH inputs (hashed as stored), DENSE with unit weights having
the sparse bits, RANK of every kind of tensor, float16 logits with an impossible class, and the
refusals below each type's or value's level. (SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and
LOCAL_RESPONSE_NORMALIZATION are in test_space_batch_and_lrn.py.)"""

from __future__ import annotations

import struct
from typing import Optional, Sequence

import pytest
import torch

from executorch_nnapi.host_driver.operations._fingerprint import fingerprint64
from nnapi_client import (
    BAD_DATA, INT32, NO_ERROR, QA8, TF16, TF32, TI32, Execution, Model, host_driver_at, last_error,
)

QA8S = 14
# (NNAPI type, torch dtype, quantization) of the value tensors the lookups move.
VALUE_TYPES = {
    "float32": (TF32, torch.float32, {}),
    "float16": (TF16, torch.float16, {}),
    "int32": (TI32, torch.int32, {}),
    "quant8": (QA8, torch.uint8, {"scale": 0.5, "zp": 127}),
    "quant8_signed": (QA8S, torch.int8, {"scale": 0.25, "zp": -3}),
}


def _values(dtype: torch.dtype, shape: Sequence[int], seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(*shape, generator=g).to(dtype)
    info = torch.iinfo(dtype)
    low, high = max(info.min, -1000), min(info.max, 1000)
    return torch.randint(low, high + 1, tuple(shape), generator=g, dtype=torch.int64).to(dtype)


def _execute(m: Model, inputs: Sequence[Optional[torch.Tensor]], outputs: Sequence[torch.Tensor],
             expect: int = NO_ERROR) -> None:
    """Finish, compile and run ``m`` once; a None input is omitted (setInput(NULL, 0))."""
    m.finish()
    ex = Execution(m.lib, m.compile())
    for j, x in enumerate(inputs):
        if x is None:
            assert m.lib.ANeuralNetworksExecution_setInput(ex.handle, j, None, None, 0) == NO_ERROR
        else:
            ex.set_input(j, x)
    for j, o in enumerate(outputs):
        ex.set_output(j, o)
    assert ex.compute() == expect, last_error(m.lib)


# -- EMBEDDING_LOOKUP -------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["float16", "int32", "quant8", "quant8_signed"])
def test_embedding_lookup_gathers_the_selected_rows(lib, driver, kind):
    type_, dtype, q = VALUE_TYPES[kind]
    values = _values(dtype, (5, 3, 2), seed=1)
    lookups = torch.tensor([3, 0, 4, 0, 2], dtype=torch.int32)
    m = Model(lib)
    idx, val, out = m.tensor([5], TI32), m.tensor([5, 3, 2], type_, **q), m.tensor([5, 3, 2], type_, **q)
    m.op("EMBEDDING_LOOKUP", [idx, val], [out])
    m.io([idx, val], [out])
    result = torch.zeros(5, 3, 2, dtype=dtype)
    _execute(m, [lookups, values], [result])
    assert torch.equal(result, values[lookups.long()])


def test_embedding_lookup_refusals(lib, driver):
    m = Model(lib)
    m.op("EMBEDDING_LOOKUP", [m.tensor([2], TI32), m.tensor([4])], [m.tensor([2])], expect=BAD_DATA)
    assert "input 1 (values) must have rank >= 2" in last_error(lib)
    with host_driver_at(28):
        m = Model(lib)
        for type_ in (TI32, QA8):
            m = Model(lib)
            q = {"scale": 0.5, "zp": 0} if type_ == QA8 else {}
            m.op("EMBEDDING_LOOKUP", [m.tensor([2], TI32), m.tensor([4, 3], type_, **q)],
                 [m.tensor([2, 3], type_, **q)], expect=BAD_DATA)
            assert "needs feature level" in last_error(lib)


# -- HASHTABLE_LOOKUP -------------------------------------------------------------------------------
def test_quant8_hashtable_lookup_finds_rows_by_key_and_zeros_misses(lib, driver):
    type_, dtype, q = VALUE_TYPES["quant8"]
    keys = torch.tensor([-70, -3, 0, 12, 4096, 99999], dtype=torch.int32)
    values = _values(dtype, (6, 4), seed=2)
    lookups = torch.tensor([12, 5, -70, 99999, 0, -4, 12], dtype=torch.int32)
    m = Model(lib)
    look, key, val = m.tensor([7], TI32), m.tensor([6], TI32), m.tensor([6, 4], type_, **q)
    out, hits = m.tensor([7, 4], type_, **q), m.tensor([7], QA8, scale=1.0, zp=0)
    m.op("HASHTABLE_LOOKUP", [look, key, val], [out, hits])
    m.io([look, key, val], [out, hits])
    got, got_hits = torch.full((7, 4), 7).to(dtype), torch.full((7,), 9, dtype=torch.uint8)
    _execute(m, [lookups, keys, values], [got, got_hits])
    row_of = {int(k): r for r, k in enumerate(keys.tolist())}
    expected = torch.stack([values[row_of[k]] if k in row_of else torch.zeros(4, dtype=dtype)
                            for k in lookups.tolist()])
    assert torch.equal(got, expected)
    assert got_hits.tolist() == [int(k in row_of) for k in lookups.tolist()]


def test_hashtable_lookup_refusals(lib, driver):
    m = Model(lib)
    ins = [m.tensor([2], TI32), m.tensor([3], TI32), m.tensor([3, 2])]
    m.op("HASHTABLE_LOOKUP", ins, [m.tensor([2, 2]), m.tensor([2], QA8, scale=0.5, zp=0)], expect=BAD_DATA)
    assert "scale 1 and zeroPoint 0" in last_error(lib)
    m = Model(lib)
    ins = [m.tensor([2], TI32), m.tensor([3], TI32), m.tensor([3, 2], TF16)]
    m.op("HASHTABLE_LOOKUP", ins, [m.tensor([2, 2], TF16), m.tensor([2], QA8, scale=1.0, zp=0)], expect=BAD_DATA)
    assert "input 2 (values) has type TENSOR_FLOAT16" in last_error(lib)
    m = Model(lib)
    look, key, val = m.tensor([2], TI32), m.tensor([4], TI32), m.tensor([3, 2])
    out, hits = m.tensor([2, 2]), m.tensor([2], QA8, scale=1.0, zp=0)
    m.op("HASHTABLE_LOOKUP", [look, key, val], [out, hits])
    m.io([look, key, val], [out, hits])
    m.finish(expect=BAD_DATA)
    assert "4 entries" in last_error(lib)


# -- LSH_PROJECTION ---------------------------------------------------------------------------------
def _projection_scores(seeds: torch.Tensor, rows: torch.Tensor, weights: Optional[torch.Tensor]) -> torch.Tensor:
    """Per (function, bit): sum over rows of weight * signed Fingerprint64(float32 seed bytes +
    the row's stored bytes), in float64 (the sign is what the projection keeps)."""
    row_bytes = [r.contiguous().numpy().tobytes() for r in rows.reshape(rows.shape[0], -1)]
    prints = torch.tensor([[[fingerprint64(struct.pack("<f", s) + r) for r in row_bytes]
                            for s in function.tolist()] for function in seeds.float()], dtype=torch.uint64)
    signed = prints.view(torch.int64).double()
    w = torch.ones(rows.shape[0], dtype=torch.float64) if weights is None else weights.double()
    return (signed * w).sum(-1)


def _lsh(lib, seeds, rows, row_type, weights, kind, out_len, **q) -> torch.Tensor:
    m = Model(lib)
    hash_type = TF16 if seeds.dtype == torch.float16 else TF32
    hashes = m.const(seeds)
    inp = m.tensor(list(rows.shape), row_type, **q)
    weight = m.tensor([rows.shape[0]], hash_type)
    out = m.tensor([out_len], TI32)
    m.op("LSH_PROJECTION", [hashes, inp, weight, m.i32(kind)], [out])
    m.io([inp, weight], [out])
    result = torch.zeros(out_len, dtype=torch.int32)
    _execute(m, [rows, weights], [result])
    return result


@pytest.mark.parametrize("seed_dtype,rows", [
    (torch.float32, torch.randn(4, 3, 2, generator=torch.Generator().manual_seed(3))),
    (torch.float16, torch.randn(5, generator=torch.Generator().manual_seed(4)).half()),
    (torch.float32, torch.randint(0, 256, (3, 5), generator=torch.Generator().manual_seed(5)).to(torch.uint8)),
])
def test_lsh_projection_is_the_sign_of_weighted_row_fingerprints(lib, driver, seed_dtype, rows):
    row_type = {torch.int32: TI32, torch.float32: TF32, torch.float16: TF16, torch.uint8: QA8}[rows.dtype]
    q = {"scale": 0.5, "zp": 10} if row_type == QA8 else {}
    functions, bits = 4, 3
    seeds = torch.randn(functions, bits, generator=torch.Generator().manual_seed(6)).to(seed_dtype)
    weights = torch.rand(rows.shape[0], generator=torch.Generator().manual_seed(7)).to(seed_dtype)
    dense = _lsh(lib, seeds, rows, row_type, weights, 2, functions * bits, **q)
    assert dense.tolist() == (_projection_scores(seeds, rows, weights) > 0).int().reshape(-1).tolist()
    # Sparse: unweighted bits, most significant first, plus k * 2^bits for function k (type 3 only).
    unweighted = (_projection_scores(seeds, rows, None) > 0).long()
    signatures = (unweighted * (1 << torch.arange(bits - 1, -1, -1))).sum(-1)
    offsets = torch.arange(functions) << bits
    assert _lsh(lib, seeds, rows, row_type, None, 1, functions, **q).tolist() == signatures.tolist()
    assert _lsh(lib, seeds, rows, row_type, None, 3, functions, **q).tolist() == (signatures + offsets).tolist()
    # Dense with unit weights has the sparse projection's bits.
    ones = torch.ones(rows.shape[0], dtype=seed_dtype)
    dense_ones = _lsh(lib, seeds, rows, row_type, ones, 2, functions * bits, **q)
    assert dense_ones.reshape(functions, bits).tolist() == unweighted.tolist()


def test_lsh_projection_refusals(lib, driver):
    seeds = torch.randn(2, 3)
    m = Model(lib)
    inp, out = m.tensor([3]), m.tensor([2], TI32)
    m.op("LSH_PROJECTION", [m.const(seeds), inp, m.tensor([3], TF16), m.i32(2)], [out], expect=BAD_DATA)
    assert "input 2 (weight) has type TENSOR_FLOAT16" in last_error(lib)
    # DENSE needs the weight (Android fails it otherwise), one per input row.
    m = Model(lib)
    inp, out = m.tensor([3]), m.tensor([6], TI32)
    m.op("LSH_PROJECTION", [m.const(seeds), inp, m.omitted(TF32, [3]), m.i32(2)], [out])
    m.io([inp], [out])
    m.finish(expect=BAD_DATA)
    assert "required by the DENSE projection type" in last_error(lib)
    m = Model(lib)
    inp, out = m.tensor([3]), m.tensor([6], TI32)
    m.op("LSH_PROJECTION", [m.const(seeds), inp, m.const(torch.ones(4)), m.i32(2)], [out])
    m.io([inp], [out])
    m.finish(expect=BAD_DATA)
    assert "one weight per input row" in last_error(lib)
    with host_driver_at(28):
        m = Model(lib)
        inp, out = m.tensor([3]), m.tensor([2], TI32)
        m.op("LSH_PROJECTION", [m.const(seeds), inp, m.omitted(TF32, [3]), m.i32(3)], [out])
        m.io([inp], [out])
        m.finish(expect=BAD_DATA)
        assert "type 3 (SPARSE) needs feature level" in last_error(lib)


# -- RANK -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(7,), (2, 3), (1, 2, 1, 4), (2, 1, 1, 1, 3)])
@pytest.mark.parametrize("kind", ["float16", "int32", "quant8", "quant8_signed"])
def test_rank_is_the_number_of_dimensions(lib, driver, shape, kind):
    type_, dtype, q = VALUE_TYPES[kind]
    x = _values(dtype, shape, seed=8)
    m = Model(lib)
    inp, out = m.tensor(list(shape), type_, **q), m.operand(INT32)
    m.op("RANK", [inp], [out])
    m.io([inp], [out])
    result = torch.full((), -1, dtype=torch.int32)
    _execute(m, [x], [result])
    assert int(result) == x.dim()


def test_rank_refusals(lib, driver):
    with host_driver_at(29):
        m = Model(lib)
        m.op("RANK", [m.tensor([2, 3])], [m.operand(INT32)], expect=BAD_DATA)
        assert "needs feature level" in last_error(lib)


# -- RANDOM_MULTINOMIAL -----------------------------------------------------------------------------
def _multinomial(lib, logits: torch.Tensor, samples: int, seeds: Sequence[int]) -> torch.Tensor:
    m = Model(lib)
    inp, out = m.tensor(list(logits.shape), TF16 if logits.dtype == torch.float16 else TF32), \
        m.tensor([logits.shape[0], samples], TI32)
    m.op("RANDOM_MULTINOMIAL", [inp, m.i32(samples), m.const(torch.tensor(seeds, dtype=torch.int32))], [out])
    m.io([inp], [out])
    result = torch.full((logits.shape[0], samples), -1, dtype=torch.int32)
    _execute(m, [logits], [result])
    return result


def test_float16_random_multinomial_draws_with_the_softmax_frequencies(lib, driver):
    logits = torch.randn(3, 6, generator=torch.Generator().manual_seed(9)).half()
    logits[1, 2] = -torch.inf  # probability 0
    draws = _multinomial(lib, logits, 20000, (37, 42))
    probs = torch.softmax(logits.double(), dim=1)
    for b in range(3):
        frequencies = torch.bincount(draws[b].long(), minlength=6).double() / draws.shape[1]
        assert (frequencies - probs[b]).abs().max() < 0.02
    assert not (draws[1] == 2).any()


def test_random_multinomial_refusals(lib, driver):
    m = Model(lib)
    inp, out = m.tensor([1, 4]), m.tensor([1, 5], TI32)
    m.op("RANDOM_MULTINOMIAL", [inp, m.i32(5), m.const(torch.tensor([1, 2, 3], dtype=torch.int32))], [out])
    m.io([inp], [out])
    m.finish(expect=BAD_DATA)
    assert "seeds" in last_error(lib)
    m = Model(lib)
    m.op("RANDOM_MULTINOMIAL", [m.tensor([4]), m.i32(5), m.const(torch.tensor([1, 2], dtype=torch.int32))],
         [m.tensor([1, 5], TI32)], expect=BAD_DATA)
    assert "must be 2-D" in last_error(lib)
    with host_driver_at(28):
        m = Model(lib)
        m.op("RANDOM_MULTINOMIAL", [m.tensor([1, 4]), m.i32(5), m.const(torch.tensor([1, 2], dtype=torch.int32))],
             [m.tensor([1, 5], TI32)], expect=BAD_DATA)
        assert "needs feature level" in last_error(lib)
