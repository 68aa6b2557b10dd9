"""LSH_PROJECTION (15): each hash function's bits are sign bits of sum_i weight_i *
Fingerprint64(seed bytes + input row i bytes), the seed being the hash tensor's entry as a float32
and a row the raw bytes of the input's slice i along its first dimension.

Types: 1 SPARSE_DEPRECATED and 3 SPARSE (level 29: adds k * 2^bits to hash function k's
signature) give one int32 signature per hash function and take no weight (Android fails them
otherwise); 2 DENSE gives every bit and needs the weight."""

import struct

import torch

from ..operand_types import INT32
from ._fingerprint import fingerprint64
from .common import F16, F32, I32T, QA8, Ctx
from .rnn import optional_omitted, require_present

NAME, CODE, SINCE = "LSH_PROJECTION", 15, 27
QUANT_COMPUTE = True  # hashes the input's stored bytes
HASH_TYPES = {F32: 27, F16: 29}
INPUT_TYPES = {F32: 27, I32T: 27, QA8: 27, F16: 29}
SPARSE_DEPRECATED, DENSE, SPARSE = 1, 2, 3
MAX_BITS = 32


def validate(c: Ctx) -> None:
    c.counts((4,))
    c.tensor(0, HASH_TYPES, "hash functions")
    c.tensor(1, INPUT_TYPES, "input")
    c.same_type(2, 0, "weight")
    c.scalar(3, INT32, "projection type")
    c.out_is(0, I32T)
    require_present(c, (0, 1), ("hash functions", "input"))
    hashes, rows = c.dims(0), c.dims(1)
    if len(hashes) != 2 or hashes[1] > MAX_BITS:
        c.fail(f"input 0 (hash functions) must be [functions, bits] with at most {MAX_BITS} bits, "
               f"got {list(hashes)}")
    if not rows:
        c.fail("input 1 (input) must have rank 1 or more")
    kind = c.value(3, "projection type")
    if kind not in (SPARSE_DEPRECATED, DENSE, SPARSE):
        c.fail(f"input 3 (projection type) must be 1 (SPARSE_DEPRECATED), 2 (DENSE) or 3 (SPARSE), got {kind}")
    if kind == SPARSE:
        c.require_level(29, "projection type 3 (SPARSE)")
    weighted = not optional_omitted(c, 2)
    if kind == DENSE:
        if not weighted:
            c.fail("input 2 (weight) is required by the DENSE projection type")
        if list(c.dims(2)) != [rows[0]]:
            c.fail(f"input 2 (weight) must be [{rows[0]}] (one weight per input row), got {list(c.dims(2))}")
    elif weighted:
        c.fail(f"input 2 (weight) must be omitted for the sparse projection type {kind}")
    c.p.kind = kind
    c.p.half_input = c.type(1) == F16
    c.set_out(0, (hashes[0] * hashes[1],) if kind == DENSE else (hashes[0],))


def _sign_bit(seed: float, rows: list[bytes], weights) -> int:
    """1 when the weighted sum (in double, in row order) of the rows' signed fingerprints is > 0."""
    prefix = struct.pack("<f", seed)
    score = 0.0
    for i, row in enumerate(rows):
        value = float(_signed(fingerprint64(prefix + row)))
        score += value if weights is None else weights[i] * value
    return int(score > 0)


def _signed(u64: int) -> int:
    return u64 - (1 << 64) if u64 >> 63 else u64


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >> 31 else value


def compute(ins, p):
    hashes, x, weight, _ = ins
    if p.half_input:  # the driver computes float16 in float32: hash the stored half bytes
        x = x.half()
    data = x.contiguous().numpy().tobytes()
    n = x.shape[0]
    step = len(data) // n if n else 0
    rows = [data[i * step:(i + 1) * step] for i in range(n)]
    weights = None if weight is None else [float(w) for w in weight.tolist()]
    functions, bits = hashes.shape
    seeds = hashes.tolist()
    signs = [[_sign_bit(seed, rows, weights) for seed in seeds[k]] for k in range(functions)]
    if p.kind == DENSE:
        return [torch.tensor([b for row in signs for b in row], dtype=torch.int32)]
    signatures = []
    for k, row in enumerate(signs):
        signature = 0
        for b in row:
            signature = (signature << 1) | b
        if p.kind == SPARSE:
            signature += k << bits
        signatures.append(_int32(signature))
    return [torch.tensor(signatures, dtype=torch.int32)]
