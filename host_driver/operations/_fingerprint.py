"""FarmHash's 64-bit fingerprint (``Fingerprint64``, the "na" variant of Hash64), which Android's
LSH_PROJECTION hashes each (seed, input row) key with.

Written from the algorithm's description: keys of up to 16, 32 and 64 bytes each have a short
mixing routine; longer keys run 64-byte rounds over a 56-byte state and finish on the last 64
bytes. All arithmetic is modulo 2^64 on little-endian words.
"""

from __future__ import annotations

import struct

_MASK = (1 << 64) - 1
# Three primes between 2^63 and 2^64 the algorithm mixes with.
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _word(data: bytes, at: int) -> int:
    return struct.unpack_from("<Q", data, at)[0]


def _half_word(data: bytes, at: int) -> int:
    return struct.unpack_from("<I", data, at)[0]


def _rotate(value: int, shift: int) -> int:
    """Rotate a 64-bit value right by `shift` bits."""
    return ((value >> shift) | (value << (64 - shift))) & _MASK if shift else value


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def _mix_pair(u: int, v: int, mul: int) -> int:
    """Two words to one (the Murmur-style step every length class ends with)."""
    a = _shift_mix(((u ^ v) * mul) & _MASK)
    b = _shift_mix(((v ^ a) * mul) & _MASK)
    return (b * mul) & _MASK


def _up_to_16(data: bytes) -> int:
    n = len(data)
    mul = (_K2 + 2 * n) & _MASK
    if n >= 8:
        a = (_word(data, 0) + _K2) & _MASK
        b = _word(data, n - 8)
        c = (_rotate(b, 37) * mul + a) & _MASK
        d = ((_rotate(a, 25) + b) * mul) & _MASK
        return _mix_pair(c, d, mul)
    if n >= 4:
        return _mix_pair((n + (_half_word(data, 0) << 3)) & _MASK, _half_word(data, n - 4), mul)
    if n:
        y = data[0] + (data[n >> 1] << 8)
        z = n + (data[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _up_to_32(data: bytes) -> int:
    n = len(data)
    mul = (_K2 + 2 * n) & _MASK
    a = (_word(data, 0) * _K1) & _MASK
    b = _word(data, 8)
    c = (_word(data, n - 8) * mul) & _MASK
    d = (_word(data, n - 16) * _K2) & _MASK
    return _mix_pair((_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK,
                     (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK, mul)


def _up_to_64(data: bytes) -> int:
    n = len(data)
    mul = (_K2 + 2 * n) & _MASK
    a = (_word(data, 0) * _K2) & _MASK
    b = _word(data, 8)
    c = (_word(data, n - 8) * mul) & _MASK
    d = (_word(data, n - 16) * _K2) & _MASK
    y = (_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK
    z = _mix_pair(y, (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_word(data, 16) * mul) & _MASK
    f = _word(data, 24)
    g = ((y + _word(data, n - 32)) * mul) & _MASK
    h = ((z + _word(data, n - 24)) * mul) & _MASK
    return _mix_pair((_rotate((e + f) & _MASK, 43) + _rotate(g, 30) + h) & _MASK,
                     (e + _rotate((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak_pair(data: bytes, at: int, a: int, b: int) -> tuple[int, int]:
    """Two words from the 32 bytes at `at` and two seeds (the long-key rounds' mixing)."""
    w, x, y, z = (_word(data, at + 8 * k) for k in range(4))
    a = (a + w) & _MASK
    b = _rotate((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rotate(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def _long(data: bytes) -> int:
    """Keys over 64 bytes: state (x, y, z, v, w) through 64-byte rounds, then the last 64 bytes."""
    n = len(data)
    seed = 81
    x = (seed * _K2 + _word(data, 0)) & _MASK
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v = w = (0, 0)
    rounds_end = ((n - 1) // 64) * 64
    for at in range(0, rounds_end, 64):
        x = (_rotate((x + y + v[0] + _word(data, at + 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rotate((y + v[1] + _word(data, at + 48)) & _MASK, 42) * _K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _word(data, at + 40)) & _MASK
        z = (_rotate((z + w[0]) & _MASK, 33) * _K1) & _MASK
        v = _weak_pair(data, at, (v[1] * _K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak_pair(data, at + 32, (z + w[1]) & _MASK, (y + _word(data, at + 16)) & _MASK)
        x, z = z, x
    mul = (_K1 + ((z & 0xFF) << 1)) & _MASK
    last = n - 64
    w0 = (w[0] + ((n - 1) & 63)) & _MASK
    v0 = (v[0] + w0) & _MASK
    w0 = (w0 + v0) & _MASK
    v, w = (v0, v[1]), (w0, w[1])
    x = (_rotate((x + y + v[0] + _word(data, last + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rotate((y + v[1] + _word(data, last + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + v[0] * 9 + _word(data, last + 40)) & _MASK
    z = (_rotate((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak_pair(data, last, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak_pair(data, last + 32, (z + w[1]) & _MASK, (y + _word(data, last + 16)) & _MASK)
    x, z = z, x
    return _mix_pair((_mix_pair(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK,
                     (_mix_pair(v[1], w[1], mul) + x) & _MASK, mul)


def fingerprint64(data: bytes) -> int:
    """FarmHash Fingerprint64 of `data`, as an unsigned 64-bit integer."""
    n = len(data)
    if n <= 16:
        return _up_to_16(data)
    if n <= 32:
        return _up_to_32(data)
    if n <= 64:
        return _up_to_64(data)
    return _long(data)
