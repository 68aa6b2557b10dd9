"""RANK, EMBEDDING_LOOKUP, HASHTABLE_LOOKUP, RANDOM_MULTINOMIAL and LSH_PROJECTION in the host
driver, driven through the C API: results against computations of the test's own (torch indexing,
a dictionary lookup, class frequencies, FarmHash's Fingerprint64 on known values) and the checks
Android makes (types at addOperation, values when the model is finished or when it runs), over every
operand type the operations take (float32 / float16 / int32 / 8-bit / signed 8-bit values, float16
hash functions, float16 / 8-bit LSH inputs hashed as stored, DENSE with unit weights having the
sparse bits) and the refusals below each type's or value's feature level. (SPACE_TO_BATCH_ND,
BATCH_TO_SPACE_ND and LOCAL_RESPONSE_NORMALIZATION are in test_space_batch_and_lrn.py.)"""

from __future__ import annotations

import struct
from typing import Optional, Sequence

import pytest
import torch

from executorch_nnapi.host_driver.operations._fingerprint import fingerprint64

from nnapi_client import (BAD_DATA, INT32, NO_ERROR, OP_FAILED, QA8, TF16, TF32, TI32, Execution, Model,
                          host_driver_at, last_error)

TABLE = torch.randn(5, 3, 2, generator=torch.Generator().manual_seed(7))


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


KEYS = torch.tensor([-3, 1, 4, 9], dtype=torch.int32)


@pytest.mark.parametrize("value_type,dtype", [(3, torch.float32), (TI32, torch.int32)], ids=["float32", "int32"])
def test_hashtable_lookup_finds_rows_by_key_and_marks_hits(lib, driver, value_type, dtype):
    values = (torch.arange(8).reshape(4, 2) * 3 - 5).to(dtype)
    lookups = torch.tensor([4, 5, -3, 9, 0, 4], dtype=torch.int32)
    m = Model(lib)
    lk, keys, vals = m.tensor([6], TI32), m.tensor([4], TI32), m.tensor([4, 2], value_type)
    out, hits = m.tensor([6, 2], value_type), m.operand(QA8, [6], scale=1.0, zp=0)
    m.op("HASHTABLE_LOOKUP", [lk, keys, vals], [out, hits])
    m.io([lk, keys, vals], [out, hits])
    m.finish()
    ex = Execution(lib, m.compile())
    for j, x in enumerate((lookups, KEYS, values)):
        ex.set_input(j, x)
    res, res_hits = torch.full((6, 2), 77).to(dtype), torch.full((6,), 77, dtype=torch.uint8)
    ex.set_output(0, res)
    ex.set_output(1, res_hits)
    assert ex.compute() == NO_ERROR, last_error(lib)
    row_of = {int(k): r for r, k in enumerate(KEYS.tolist())}
    expected = torch.stack([values[row_of[k]] if k in row_of else torch.zeros(2, dtype=dtype)
                            for k in lookups.tolist()])
    torch.testing.assert_close(res, expected, atol=0, rtol=0)
    assert res_hits.tolist() == [int(k in row_of) for k in lookups.tolist()]


def test_hashtable_lookup_hits_must_be_quant8_asymm(lib, driver):
    m = Model(lib)
    lk, keys, vals = m.tensor([2], TI32), m.tensor([4], TI32), m.tensor([4, 2])
    m.op("HASHTABLE_LOOKUP", [lk, keys, vals], [m.tensor([2, 2]), m.tensor([2])], expect=BAD_DATA)
    assert "output 1 has type TENSOR_FLOAT32, expected TENSOR_QUANT8_ASYMM" in last_error(lib)


def _multinomial(lib, logits: torch.Tensor, samples: int, seeds: tuple[int, int]) -> torch.Tensor:
    m = Model(lib)
    x, out = m.tensor(list(logits.shape)), m.tensor([logits.shape[0], samples], TI32)
    m.op("RANDOM_MULTINOMIAL", [x, m.i32(samples), m.const(torch.tensor(seeds, dtype=torch.int32), TI32)], [out])
    m.io([x], [out])
    (res,) = m.run([logits], [[logits.shape[0], samples]], out_dtype=torch.int32)
    return res


def test_random_multinomial_draws_classes_with_softmax_frequencies(lib, driver):
    logits = torch.tensor([[0.5, -1.0, 2.0, 0.0, 1.0], [3.0, 3.0, -2.0, 0.5, -0.5]])
    samples = 20000
    res = _multinomial(lib, logits, samples, (37, 42))
    assert res.min() >= 0 and res.max() < logits.shape[1]
    frequencies = torch.stack([torch.bincount(row.long(), minlength=logits.shape[1]) for row in res]) / samples
    # CTS's tolerance for this operation: each class's frequency within 0.025 of its probability.
    torch.testing.assert_close(frequencies, torch.softmax(logits, dim=1), atol=0.025, rtol=0)


def test_random_multinomial_is_determined_by_its_seeds(lib, driver):
    logits = torch.zeros(3, 10)
    first, again = _multinomial(lib, logits, 64, (5, 6)), _multinomial(lib, logits, 64, (5, 6))
    other = _multinomial(lib, logits, 64, (6, 5))
    assert torch.equal(first, again)
    assert not torch.equal(first, other)


def test_random_multinomial_logits_must_be_float(lib, driver):
    m = Model(lib)
    x, out = m.tensor([2, 3], TI32), m.tensor([2, 4], TI32)
    seeds = m.const(torch.tensor([1, 2], dtype=torch.int32), TI32)
    m.op("RANDOM_MULTINOMIAL", [x, m.i32(4), seeds], [out], expect=BAD_DATA)
    assert "input 0 (logits) has type TENSOR_INT32" in last_error(lib)


# FarmHash Fingerprint64 (farmhashna::Hash64) of strings, as published with FarmHash ports'
# tests: every length class (up to 16, 32, 64 bytes, and the 64-byte rounds of longer keys).
FINGERPRINTS = {
    b"": 0x9AE16A3B2F90404F,
    b"abc": 0x24A5B3A074E7F369,
    b"0123456789=012345": 0x46A7416ED4861E3B,
    b"C is as portable as Stonehedge!!": 0xB944F8A16261E414,
    b"Discard medicine more than two years old.": 0xE8F89AB6DF9BDD25,
    b"For every action there is an equal and opposite government program.": 0x55182F8859ECA4CE,
    b"The fugacity of a constituent in a mixture of gases at a given temperature is proportional to its mole "
    b"fraction.  Lewis-Randall Rule": 0x098EFF6958C5E91A,
}


@pytest.mark.parametrize("data", list(FINGERPRINTS), ids=lambda d: f"{len(d)}_bytes")
def test_fingerprint64_matches_farmhash(data):
    assert fingerprint64(data) == FINGERPRINTS[data]


def _own_lsh(seeds: torch.Tensor, x: torch.Tensor, weight, kind: int) -> list[int]:
    """The projection computed here (with the fingerprint checked above): the sign of the weighted
    sum of signed fingerprints of (seed as float32 bytes + row bytes) per seed; sparse types pack
    each function's bits."""
    rows = [r.numpy().tobytes() for r in x]
    bits = []
    for seed in seeds.reshape(-1).tolist():
        score = 0.0
        for i, row in enumerate(rows):
            h = fingerprint64(struct.pack("<f", seed) + row)
            h = h - (1 << 64) if h >= 1 << 63 else h
            score += float(h) * (1.0 if weight is None else float(weight[i]))
        bits.append(int(score > 0))
    if kind == 2:
        return bits
    width = seeds.shape[1]
    packed = [int("".join(map(str, bits[k * width:(k + 1) * width])), 2) for k in range(seeds.shape[0])]
    return [v + (k << width if kind == 3 else 0) for k, v in enumerate(packed)]


HASHES = torch.tensor([[0.123, 0.456, 7.5], [-0.321, -0.654, 2.0], [1.234, 5.678, -1.5], [-4.321, -8.765, 0.25]])
LSH_INPUT = torch.tensor([[12345, 54321], [67890, 9876], [-12345678, -87654321], [3, 4]], dtype=torch.int32)


@pytest.mark.parametrize("kind", [1, 2, 3], ids=["sparse_deprecated", "dense", "sparse"])
def test_lsh_projection_is_the_sign_of_weighted_fingerprints(lib, driver, kind):
    weight = torch.tensor([0.12, -0.34, 0.56, 0.9]) if kind == 2 else None
    m = Model(lib)
    hashes, x = m.const(HASHES), m.tensor([4, 2], TI32)
    w = m.const(weight) if weight is not None else m.omitted(3, [4])
    count = HASHES.numel() if kind == 2 else HASHES.shape[0]
    out = m.tensor([count], TI32)
    m.op("LSH_PROJECTION", [hashes, x, w, m.i32(kind)], [out])
    m.io([x], [out])
    (res,) = m.run([LSH_INPUT], [[count]], out_dtype=torch.int32)
    assert res.tolist() == _own_lsh(HASHES, LSH_INPUT, weight, kind)


def test_lsh_projection_android_dense_case(lib, driver):
    # Android's lsh_projection.mod.py: 4 functions of 2 bits, weights given, DENSE.
    seeds = torch.tensor([[0.123, 0.456], [-0.321, -0.654], [1.234, 5.678], [-4.321, -8.765]])
    m = Model(lib)
    hashes, x, w, out = m.const(seeds), m.tensor([3, 2], TI32), m.tensor([3]), m.tensor([8], TI32)
    m.op("LSH_PROJECTION", [hashes, x, w, m.i32(2)], [out])
    m.io([x, w], [out])
    x_value = LSH_INPUT[:3].contiguous()
    (res,) = m.run([x_value, torch.tensor([0.12, 0.34, 0.56])], [[8]], out_dtype=torch.int32)
    assert res.tolist() == _own_lsh(seeds, x_value, [0.12, 0.34, 0.56], 2) == [1, 1, 1, 0, 1, 1, 1, 0]


def test_lsh_projection_sparse_type_refuses_a_weight(lib, driver):
    m = Model(lib)
    hashes, x, w, out = m.const(HASHES), m.tensor([4, 2], TI32), m.const(torch.ones(4)), m.tensor([4], TI32)
    m.op("LSH_PROJECTION", [hashes, x, w, m.i32(3)], [out])
    m.io([x], [out])
    m.finish(expect=BAD_DATA)
    assert "input 2 (weight) must be omitted for the sparse projection type 3" in last_error(lib)


def test_lsh_projection_hash_functions_must_be_float(lib, driver):
    m = Model(lib)
    hashes, x, w, out = m.tensor([4, 3], TI32), m.tensor([4, 2], TI32), m.tensor([4], TI32), m.tensor([12], TI32)
    m.op("LSH_PROJECTION", [hashes, x, w, m.i32(2)], [out], expect=BAD_DATA)
    assert "input 0 (hash functions) has type TENSOR_INT32" in last_error(lib)


# -- the same operations over the other operand types --------------------------------------------
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
@pytest.mark.parametrize("kind", ["float32", "float16", "int32", "quant8", "quant8_signed"])
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
