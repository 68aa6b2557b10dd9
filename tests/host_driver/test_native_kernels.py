"""The compiled loops of the host driver's 8-bit path (host_driver/kernels/nnapi_host_kernels.c,
loaded by operations/_native.py) against the torch passes they replace and the reference kernels:
equal codes in every layout and accumulator type the prepared kernels hand them, QUANTIZE on the
values whose conversion is the platform's, tables of every entry size. The library is part of the
package build; test_quantized_fast_path.py compares whole plans with and without it."""

from __future__ import annotations

import math
import types

import pytest
import torch

from nnapi_client import QA8, TF32, Model
from executorch_nnapi.host_driver.compilation import Compilation
from executorch_nnapi.host_driver.operations import _native, quantize
from executorch_nnapi.host_driver.operations import _qfast as qf
from executorch_nnapi.host_driver.operations import _qkernels as qk
from executorch_nnapi.host_driver.operations import _qmath as qm

QA8S = 14


@pytest.fixture(scope="module")
def native() -> _native.NativeKernels:
    kernels = _native.kernels()
    assert kernels is not None, (f"{_native.library_path()} did not load: build the package "
                                 "(host_driver/CMakeLists.txt, target nnapi_host_kernels)")
    return kernels


def _params(multipliers, dtype, zp, act_range=None) -> types.SimpleNamespace:
    mults = [qm.quantize_multiplier(v) for v in multipliers]
    return types.SimpleNamespace(q_m=torch.tensor([a for a, _ in mults]), q_shift=torch.tensor([s for _, s in mults]),
                                 q_zp=(0, 0, zp), q_dtype=dtype, q_range=act_range or qm.QRANGE[dtype])


def _accumulators(p, offset: torch.Tensor, bound: int, gen: torch.Generator, count: int) -> torch.Tensor:
    """[channels, n]: random accumulators and every integer around each of the reference's steps."""
    channels = len(offset)
    steps = qf.reference_steps(p, torch.arange(p.q_range[0] + 1, p.q_range[1] + 1), slice(None)) - offset[:, None]
    near = (steps[:, :, None] + torch.arange(-2, 3)).reshape(channels, -1)
    acc = torch.cat([torch.randint(-bound, bound, (channels, count), generator=gen), near], 1)
    return acc.clamp(-bound, bound)


@pytest.mark.parametrize("acc_dtype", [torch.float32, torch.int32])
@pytest.mark.parametrize("multipliers,dtype,zp,act_range", [
    ([0.0037, 0.5, 0.0009765625, 0.013, 0.002], torch.uint8, 100, None),          # M = 2^30 among them
    ([0.0037, 0.02, 1.7], torch.int8, -5, None),                                    # a left shift
    ([0.0041, 0.008, 0.0003] * 30, torch.uint8, 0, (0, 255)),                       # no negative branch, 90 channels
    ([2.1e-7, 0.0003, 0.06, 0.01, 0.02, 0.03, 0.04], torch.int8, 0, (-20, 90)),   # a clamped range
])
def test_the_compiled_requantization_equals_the_reference_in_every_layout(native, acc_dtype, multipliers, dtype, zp,
                                                                           act_range):
    p = _params(multipliers, dtype, zp, act_range)
    channels = len(multipliers)
    gen = torch.Generator().manual_seed(channels)
    offset = torch.randint(-4000, 4000, (channels,), generator=gen)
    bound = (1 << 23) if acc_dtype == torch.float32 else (1 << 28)   # a left shift of 1 halves the int32 room
    req = qf.build_requantizer(p, offset, torch.full((channels,), -bound), torch.full((channels,), bound), acc_dtype)
    assert req is not None and req.native is not None
    acc = _accumulators(p, offset, bound, gen, 997)                    # an odd count: rows left over
    want = qk.requantize_acc(acc + offset[:, None], p, 0)              # [channels, n]
    passes = qf.Requantizer(req.r, req.c, req.branch, *p.q_range, dtype, req.int32_clamp, acc_dtype)
    passes.native = None
    n = acc.shape[1]
    rows = acc.t().contiguous().to(acc_dtype)                                     # [n, channels]
    assert torch.equal(req(rows, 1).t(), want)
    assert torch.equal(passes(rows, 1).t(), want)
    # The clamp before the int32 conversion (for expressions that may leave int32) gives the same.
    float_clamp = qf.Requantizer(req.r, req.c, req.branch, *p.q_range, dtype, not req.int32_clamp, acc_dtype)
    assert torch.equal(float_clamp(rows, 1).t(), want)
    planes = acc[None].contiguous().to(acc_dtype)                                 # [1, channels, n]
    assert torch.equal(req(planes, 1)[0], want)
    usable = n - n % 7
    nchw = acc[:, :usable].reshape(channels, -1, 7)[None].to(acc_dtype)           # [1, channels, h, 7]
    channels_last = nchw.contiguous(memory_format=torch.channels_last)
    got = req(channels_last, 1)
    assert got.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(got, req(nchw, 1))
    assert torch.equal(got.reshape(channels, -1), want[:, :usable])
    assert req.native_codes(rows.t(), 0) is None                      # neither layout: the torch passes
    assert torch.equal(req(rows.t(), 0), want)


@pytest.fixture
def vector_requantize(native):
    """Restores the requantization loops after a test that chooses them."""
    before = native.requantize_vector()
    yield native.requantize_vector
    native.requantize_vector(before)


@pytest.mark.parametrize("acc_dtype", [torch.float32, torch.int32])
@pytest.mark.parametrize("channels,dtype,zp,act_range,branch", [
    (40, torch.int8, -5, None, True),            # int8 below the zero point: the branch; a last block of 8
    (16, torch.uint8, 100, None, True),          # one whole block
    (21, torch.int8, -30, (-20, 90), False),     # a clamp within the byte range, a last block of 5
    (37, torch.int8, 0, (-20, 90), True),        # the same with the branch
    (48, torch.uint8, 0, (0, 255), False),       # the full range
])
def test_the_vector_requantization_equals_the_plain_loop(native, vector_requantize, acc_dtype, channels, dtype, zp,
                                                         act_range, branch):
    """nnapi_host_requantize.c (rows of 16 channels or more, two rows at a time, the constants in
    registers; a fused table by VPERMI2B) against the plain loops and the reference, both clamps,
    an odd row count."""
    gen = torch.Generator().manual_seed(channels)
    multipliers = (torch.rand(channels, generator=gen, dtype=torch.float64) * 0.01 + 1e-5).tolist()
    multipliers[0] = 1.7                                                     # a left shift
    p = _params(multipliers, dtype, zp, act_range)
    offset = torch.randint(-4000, 4000, (channels,), generator=gen)
    bound = (1 << 23) if acc_dtype == torch.float32 else (1 << 28)
    req = qf.build_requantizer(p, offset, torch.full((channels,), -bound), torch.full((channels,), bound), acc_dtype)
    assert req is not None and (req.branch is not None) == branch
    acc = _accumulators(p, offset, bound, gen, 301)
    want = qk.requantize_acc(acc + offset[:, None], p, 0).t()               # [rows, channels]
    rows = acc.t().contiguous().to(acc_dtype)
    if rows.shape[0] % 2 == 0:
        rows, want = rows[1:].contiguous(), want[1:]
    assert len(want.unique()) > 20
    table = torch.randperm(256, generator=gen).to(torch.uint8)                # a fused activation's codes
    looked_up = table[want.view(torch.uint8).to(torch.int64)]
    # Every loop the machine has: one with AVX-512 also runs the AVX2 loops of a machine without it.
    loops = native.requantize_loops()
    for int32_clamp in (req.int32_clamp, False):
        for name in loops:
            native.use_requantize_loops(name)
            assert native.requantize_loops_in_use() == name
            out = torch.empty(rows.shape, dtype=dtype)
            native.requantize(rows, rows.shape[0], channels, 1, 1, req.flat_constants(1), req.lo, req.hi, req.shift,
                              int32_clamp, out)
            assert torch.equal(out, want), (int32_clamp, name)
            out = torch.empty(rows.shape, dtype=torch.uint8)
            native.requantize(rows, rows.shape[0], channels, 1, 1, req.flat_constants(1), req.lo, req.hi, req.shift,
                              int32_clamp, out, table)
            assert torch.equal(out, looked_up), (int32_clamp, name)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8])
@pytest.mark.parametrize("m,k,n,block_rows,beta", [(37, 16, 96, 8, 0), (5, 7, 3, 4, 117), (49, 961, 161, 12, 0),
                                                   (1, 1, 1, 4, 0), (130, 64, 16, 64, -3)])
def test_the_packed_product_equals_the_reference_requantization(native, dtype, m, k, n, block_rows, beta):
    """nnapi_host_gemm.c: rows of codes (int8 read as code + 128) times packed int8 weights, with
    depths and channel counts off the blocks of 4 and 16 and extreme codes, requantized block by
    block (plus beta times each row's sum: FULLY_CONNECTED's shifted per-tensor weights): the
    reference's codes, by the plain C product and each vector product the machine has (AVX2,
    AVX-512 VNNI: the driver's 1x1 convolutions and FULLY_CONNECTED)."""
    from executorch_nnapi.host_driver.operations._qconv import pack_weights

    gen = torch.Generator().manual_seed(m * k + n)
    lo, hi = qm.QRANGE[dtype]
    a = torch.randint(lo, hi + 1, (m, k), dtype=dtype, generator=gen)
    a[0] = hi
    w = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=gen)
    w[0] = -128
    unsigned = a.to(torch.int64) + (128 if dtype == torch.int8 else 0)
    acc = unsigned @ w.to(torch.int64).t() + beta * unsigned.sum(1, keepdim=True)    # [m, n], exact
    p = _params([(0.004 + 0.0001 * i) / math.sqrt(k) for i in range(n)], dtype, 3)   # sums ~1e4·sqrt(k)
    offset = torch.randint(-4000, 4000, (n,), generator=gen)
    bound = int(acc.abs().max()) + 1
    req = qf.build_requantizer(p, offset, torch.full((n,), -bound), torch.full((n,), bound), torch.int32)
    assert req is not None
    want = qk.requantize_acc(acc.t() + offset[:, None], p, 0).t()
    assert len(want.unique()) > min(20, m * n // 4)            # the requantization, not only its clamp
    repeat = max(1, min(block_rows, -(-qf.NATIVE_ROW // n)))
    for product in native.products:
        out = torch.empty(m, n, dtype=dtype)
        native.gemm_requantize(a, pack_weights(w), n, block_rows, repeat, req.flat_constants(repeat), req.lo, req.hi,
                               req.shift, req.int32_clamp, None, product, out, beta)
        assert torch.equal(out, want), (product, (out.to(torch.int64) - want.to(torch.int64)).abs().max())


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8])
@pytest.mark.parametrize("h,w,c,kh,kw,stride,dilation,pads,n", [
    (23, 20, 3, 7, 7, (2, 2), (1, 1), (3, 2, 3, 1), 16),     # an image stem: 21-byte kernel rows, every border
    (9, 11, 70, 3, 3, (1, 2), (1, 1), (1, 1, 0, 2), 24),      # 210-byte kernel rows: four chunks of 64
    (10, 9, 5, 3, 2, (1, 1), (2, 1), (2, 2, 1, 1), 33),       # a dilated height
    (7, 8, 4, 3, 3, (1, 1), (1, 2), (2, 2, 2, 2), 16),        # a dilated width: the plain unroll
    (6, 7, 200, 1, 3, (1, 1), (1, 1), (0, 0, 1, 1), 16),      # 600-byte kernel rows: the plain unroll
])
def test_the_product_over_unrolled_taps_equals_the_product_of_the_taps(native, dtype, h, w, c, kh, kw, stride,
                                                                        dilation, pads, n):
    """nnapi_host_gemm.c's convolution rows (unroll_rows, and where the machine has AVX-512 the
    masked chunk copy of dilation-1 kernel rows): the codes of the product of the taps torch
    unfolds, out-of-image taps reading the pad code, at block sizes that end mid-image."""
    import torch.nn.functional as F

    from executorch_nnapi.host_driver.operations._qconv import pack_weights

    gen = torch.Generator().manual_seed(h * c + kw)
    lo, hi = qm.QRANGE[dtype]
    x = torch.randint(lo, hi + 1, (1, h, w, c), dtype=dtype, generator=gen)
    pad_code = 7
    top, bottom, left, right = pads
    u = x.to(torch.float64) + (128 if dtype == torch.int8 else 0)
    padded = F.pad(u.permute(0, 3, 1, 2), (left, right, top, bottom), value=pad_code + (128 if dtype == torch.int8 else 0))
    taps = F.unfold(padded, (kh, kw), dilation=dilation, stride=stride)[0]                      # [c * kh * kw, m]
    taps = taps.reshape(c, kh * kw, -1).permute(2, 1, 0).reshape(-1, kh * kw * c).to(torch.int64)   # (ky, kx, c)
    oh = (h + top + bottom - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + left + right - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    k = kh * kw * c
    wt = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=gen)
    acc = taps @ wt.to(torch.int64).t()
    p = _params([(0.004 + 0.0001 * i) / math.sqrt(k) for i in range(n)], dtype, 3)
    bound = int(acc.abs().max()) + 1
    req = qf.build_requantizer(p, torch.zeros(n, dtype=torch.int64), torch.full((n,), -bound),
                               torch.full((n,), bound), torch.int32)
    want = qk.requantize_acc(acc.t(), p, 0).t()
    assert len(want.unique()) > 20
    geometry = torch.tensor([1, h, w, c, kh, kw, *stride, *dilation, top, left, oh, ow], dtype=torch.int64)
    for product in native.products:
        out = torch.empty(oh * ow, n, dtype=dtype)
        native.gemm_requantize(x, pack_weights(wt), n, 12, 1, req.flat_constants(1), req.lo, req.hi, req.shift,
                               req.int32_clamp, None, product, out, unroll=geometry, pad_code=pad_code)
        assert torch.equal(out, want), product


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8])
@pytest.mark.parametrize("m,k,n,block_rows,beta", [(1, 1283, 161, 12, 0), (2, 640, 200, 8, 0), (9, 80, 100, 12, 5),
                                                   (49, 320, 77, 20, 0)])
def test_few_rows_split_their_columns_over_the_threads(native, pool_threads, dtype, m, k, n, block_rows, beta):
    """nnapi_host_gemm.c with fewer blocks of rows than the threads want: each block's columns in
    groups of 32 (the last group short), requantized row by row; one or two rows in the two-row
    tile (blocks of 12 and 20 rows run as 8 and 16, a last block of one row): the reference's codes
    at 1 and 2 threads, plain and VNNI."""
    from executorch_nnapi.host_driver.operations._qconv import pack_weights

    gen = torch.Generator().manual_seed(m * k + n)
    lo, hi = qm.QRANGE[dtype]
    a = torch.randint(lo, hi + 1, (m, k), dtype=dtype, generator=gen)
    w = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=gen)
    unsigned = a.to(torch.int64) + (128 if dtype == torch.int8 else 0)
    acc = unsigned @ w.to(torch.int64).t() + beta * unsigned.sum(1, keepdim=True)
    p = _params([(0.004 + 0.0001 * i) / math.sqrt(k) for i in range(n)], dtype, -3)    # the branch for int8
    offset = torch.randint(-4000, 4000, (n,), generator=gen)
    bound = int(acc.abs().max()) + 1
    req = qf.build_requantizer(p, offset, torch.full((n,), -bound), torch.full((n,), bound), torch.int32)
    want = qk.requantize_acc(acc.t() + offset[:, None], p, 0).t()
    assert len(want.unique()) > 20
    repeat = max(1, min(block_rows, -(-qf.NATIVE_ROW // n)))
    for threads in (1, 2):
        pool_threads(threads)
        for product in native.products:
            out = torch.empty(m, n, dtype=dtype)
            native.gemm_requantize(a, pack_weights(w), n, block_rows, repeat, req.flat_constants(repeat), req.lo,
                                   req.hi, req.shift, req.int32_clamp, None, product, out, beta)
            assert torch.equal(out, want), (threads, product)


@pytest.fixture
def pool_threads(native):
    """Sets the kernels' thread count for one test and restores it."""
    before = native.threads
    yield native.set_threads
    native.set_threads(before)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8])
def test_the_thread_count_does_not_change_the_codes(native, pool_threads, dtype):
    """nnapi_host_threads.c splits the product's blocks of rows and the depthwise convolution's
    output rows over the pool: 1, 2 and 3 threads (more than this machine may have) give the
    reference's codes, bytes for bytes."""
    import torch.nn.functional as F

    from executorch_nnapi.host_driver.operations._qconv import pack_weights

    gen = torch.Generator().manual_seed(7)
    lo, hi = qm.QRANGE[dtype]
    # The product: 23 blocks of 8 rows, enough work for the pool.
    m, k, n = 181, 40, 48
    a = torch.randint(lo, hi + 1, (m, k), dtype=dtype, generator=gen)
    w = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=gen)
    unsigned = a.to(torch.int64) + (128 if dtype == torch.int8 else 0)
    acc = unsigned @ w.to(torch.int64).t()
    p = _params([(0.004 + 0.0001 * i) / math.sqrt(k) for i in range(n)], dtype, 3)
    bound = int(acc.abs().max()) + 1
    req = qf.build_requantizer(p, torch.zeros(n, dtype=torch.int64), torch.full((n,), -bound),
                               torch.full((n,), bound), torch.int32)
    want = qk.requantize_acc(acc.t(), p, 0).t()
    # The depthwise convolution: 3x3, stride 2, padding 1, 48 x 40 x 40 codes (6 chunks of rows).
    c, h, width = 40, 48, 40
    x = torch.randint(lo, hi + 1, (1, h, width, c), dtype=dtype, generator=gen)
    wd = torch.randint(-127, 128, (c, 1, 3, 3), generator=gen)
    x_zp = 5
    sums = F.conv2d((x.to(torch.float64) - x_zp).permute(0, 3, 1, 2), wd.to(torch.float64), stride=2, padding=1,
                    groups=c).round().to(torch.int64).permute(0, 2, 3, 1)          # exact: |sums| < 2^53
    oh, ow = sums.shape[1:3]
    pd = _params([0.0005 + 0.00001 * i for i in range(c)], dtype, -2)
    dbound = int(sums.abs().max()) + 1
    dreq = qf.build_requantizer(pd, torch.zeros(c, dtype=torch.int64), torch.full((c,), -dbound),
                                torch.full((c,), dbound), torch.int32)
    dwant = qk.requantize_acc(sums.reshape(-1, c).t(), pd, 0).t().reshape(1, oh, ow, c)
    geometry = torch.tensor([1, h, width, c, 3, 3, 2, 2, 1, 1, 1, 1, oh, ow], dtype=torch.int64)
    weights = wd[:, 0].permute(1, 2, 0).to(torch.int16).contiguous()
    assert len(want.unique()) > 20 and len(dwant.unique()) > 20
    table = torch.randperm(256, generator=gen).to(torch.uint8)
    for threads in (1, 2, 3):
        pool_threads(threads)
        assert native.threads == threads
        for product in native.products:
            out = torch.empty(m, n, dtype=dtype)
            native.gemm_requantize(a, pack_weights(w), n, 8, 1, req.flat_constants(1), req.lo, req.hi, req.shift,
                                   req.int32_clamp, None, product, out)
            assert torch.equal(out, want), (threads, product)
        for sums in native.depthwise_sums:
            dout = torch.empty(1, oh, ow, c, dtype=dtype)
            native.depthwise(x, geometry, weights, x_zp, dreq.flat_constants(1), dreq.lo, dreq.hi, dreq.shift,
                             dreq.int32_clamp, None, dout, sums)
            assert torch.equal(dout, dwant), (threads, sums)
            # A fused table: applied to each row (vector paths) or to the whole output (the plain loop).
            dout = torch.empty(1, oh, ow, c, dtype=torch.uint8)
            native.depthwise(x, geometry, weights, x_zp, dreq.flat_constants(1), dreq.lo, dreq.hi, dreq.shift,
                             dreq.int32_clamp, table, dout, sums)
            assert torch.equal(dout, table[dwant.view(torch.uint8).to(torch.int64)]), (threads, sums)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8])
@pytest.mark.parametrize("h, w, c, k, stride, dilation, pads, weight_low", [
    (9, 11, 17, 3, (1, 1), (1, 1), (1, 1, 1, 1), -127),      # a channel tail, every border
    (12, 7, 130, 5, (2, 1), (1, 2), (2, 0, 1, 3), -128),     # three 64-channel blocks, 5x5, dilated
    (6, 6, 64, 3, (2, 2), (1, 1), (0, 0, 1, 1), -128),       # one whole block, stride 2
    (5, 8, 48, 7, (1, 1), (1, 1), (3, 3, 3, 3), -128),       # 49 taps: 13 groups of four
    (8, 8, 32, 3, (1, 1), (1, 1), (1, 1, 1, 1), -300),       # weights beyond a signed byte: no VNNI
    (9, 10, 72, 5, (1, 1), (1, 1), (2, 2, 2, 2), -128),      # a last block of eight channels (AVX2), 25 taps
    (7, 9, 24, 3, (2, 1), (1, 1), (1, 0, 1, 0), -128),       # 16 + 8 channels, 9 taps: an odd last tap
])
def test_the_depthwise_sums_are_exact_on_every_path(native, dtype, h, w, c, k, stride, dilation, pads, weight_low):
    """The plain loop and the vector sums the machine has (AVX-512; VNNI, four taps per lane; AVX2,
    two taps per lane; the zero point's share taken off at the end, out-of-image taps read as
    zero-point codes) give the reference's
    codes of the exact sums, for channel tails, borders, strides, dilations and any tap count."""
    import torch.nn.functional as F

    gen = torch.Generator().manual_seed(h * w + c)
    lo, hi = qm.QRANGE[dtype]
    x = torch.randint(lo, hi + 1, (2, h, w, c), dtype=dtype, generator=gen)
    wd = torch.randint(weight_low, 128, (c, 1, k, k), generator=gen)
    x_zp = -3 if dtype == torch.int8 else 130
    top, left, bottom, right = pads
    padded = F.pad((x.to(torch.float64) - x_zp).permute(0, 3, 1, 2), (left, right, top, bottom))
    sums = F.conv2d(padded, wd.to(torch.float64), stride=stride, dilation=dilation, groups=c)
    sums = sums.round().to(torch.int64).permute(0, 2, 3, 1)
    oh, ow = sums.shape[1:3]
    p = _params([0.0003 + 0.00001 * i for i in range(c)], dtype, 4)
    bound = int(sums.abs().max()) + 1
    req = qf.build_requantizer(p, torch.zeros(c, dtype=torch.int64), torch.full((c,), -bound),
                               torch.full((c,), bound), torch.int32)
    want = qk.requantize_acc(sums.reshape(-1, c).t(), p, 0).t().reshape(2, oh, ow, c)
    assert len(want.unique()) > 10
    geometry = torch.tensor([2, h, w, c, k, k, *stride, *dilation, top, left, oh, ow], dtype=torch.int64)
    weights = wd[:, 0].permute(1, 2, 0).to(torch.int16).contiguous()
    repeat = max(1, min(ow, -(-256 // c)))
    for sums in native.depthwise_sums:
        out = torch.empty(2, oh, ow, c, dtype=dtype)
        native.depthwise(x, geometry, weights, x_zp, req.flat_constants(repeat), req.lo, req.hi, req.shift,
                         req.int32_clamp, None, out, sums, repeat=repeat)
        assert torch.equal(out, want), sums


def test_the_kernel_thread_count_is_read_from_the_environment(monkeypatch):
    """A count given is taken; unset or malformed, the CPUs this process may use, at most 4."""
    default = max(1, min(len(__import__("os").sched_getaffinity(0)), _native.DEFAULT_MAX_THREADS))
    monkeypatch.setenv(_native.THREADS_VARIABLE, "3")
    assert _native.kernel_threads() == 3
    monkeypatch.setenv(_native.THREADS_VARIABLE, "many")
    assert _native.kernel_threads() == default
    monkeypatch.delenv(_native.THREADS_VARIABLE)
    assert _native.kernel_threads() == default


def test_the_proof_checks_the_compiled_loop():
    """A requantizer one accumulator unit off is refused through the compiled loop too."""
    p = _params([0.0037, 0.011], torch.uint8, 120)
    offset, bound = torch.tensor([10, -7]), torch.full((2,), 1 << 20)
    req = qf.build_requantizer(p, offset, -bound, bound)
    assert req is not None and req.native is not None
    wrong = qf.Requantizer(req.r, req.c - req.r, req.branch, *p.q_range, p.q_dtype, req.int32_clamp)
    assert wrong.native is not None
    assert not qf.verify(wrong, p, offset, -bound, bound)


SPECIAL_VALUES = [math.inf, -math.inf, math.nan, -math.nan, 0.0, -0.0, 1e-45, -1e-45, 1e30, -1e30, 3.4e38, -3.4e38,
                  9.3e18, -9.3e18, 9.2e18, -9.2e18, 1024.4, -1024.6, 2047.5, -2047.5, 2048.5, -2048.5, 1e7, -1e7,
                  2.0 ** 24 + 1, -2.0 ** 24 - 1]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8])
@pytest.mark.parametrize("scale,zp", [(0.1, 3), (1.0, 0), (0.0039, -5), (3e-30, 7), (1e20, 0)])
def test_the_compiled_quantize_equals_the_reference(native, dtype, scale, zp):
    if dtype == torch.uint8:
        zp = abs(zp)
    p = types.SimpleNamespace(q_out=(scale, zp, dtype))
    kernel = qf.quantize_kernel(p, [qf.OperandInfo(torch.float32, (0,))], [None], quantize.compute)
    gen = torch.Generator().manual_seed(3)
    edges = torch.tensor([2.0 ** 63, -2.0 ** 63, 2.0 ** 63 * (1 + 2 ** -23), 2.0 ** 63 * (1 - 2 ** -24)]) * scale
    x = torch.cat([torch.randn(20000, generator=gen) * 30, torch.tensor(SPECIAL_VALUES), edges,
                   (torch.arange(-600, 600) + 0.5) * scale, torch.arange(-600, 600) * scale,
                   torch.randn(500, generator=gen) * 1e10, torch.randn(500, generator=gen) * 1e25]).float()
    assert torch.equal(kernel([x], p)[0], quantize.compute([x], p)[0])
    strided = x.reshape(-1, 2)[:, 0]                                   # not contiguous: copied first
    assert torch.equal(kernel([strided], p)[0], quantize.compute([strided], p)[0])


def test_quantize_of_a_model_input_takes_the_compiled_loop(lib, driver, native):
    m = Model(lib)
    x = m.tensor([2, 5, 7])
    out = m.tensor([2, 5, 7], QA8S, scale=0.05, zp=-3)
    m.op("QUANTIZE", [x], [out])
    m.io([x], [out])
    m.finish()
    plan = driver.lookup(m.compile().value, Compilation, "compilation").plan
    assert [getattr(st.fn, "prepared", None) for st in plan.steps] == ["compiled QUANTIZE loop"]


def test_the_elementwise_loops_and_the_max_pool_give_one_answer_at_any_thread_count(native, pool_threads):
    """Tables, row tables, QUANTIZE and the 8-bit max pool run chunks of elements (rows) on the
    pool: inputs of several chunks give the torch lookups' / the reference's bytes at 1, 2 and 3
    threads."""
    gen = torch.Generator().manual_seed(11)
    table2 = torch.randint(0, 256, (65536,), generator=gen, dtype=torch.int32).to(torch.uint8)
    a = torch.randint(0, 256, (70001,), generator=gen, dtype=torch.int32).to(torch.uint8)
    b = torch.randint(0, 256, (70001,), generator=gen, dtype=torch.int32).to(torch.uint8)
    want2 = table2[a.long() * 256 + b.long()]
    x = a[:70000].view(-1, 40)
    key = b[:40].contiguous()
    want_rows = table2[key.long() * 256 + x.long()]
    f = torch.randn(50001, generator=gen) * 40
    p = types.SimpleNamespace(q_out=(0.25, -7, torch.int8))
    want_q = quantize.compute([f], p)[0]
    q_kernel = qf.quantize_kernel(p, [qf.OperandInfo(torch.float32, (0,))], [None], quantize.compute)
    img = torch.randint(-128, 128, (1, 61, 59, 24), generator=gen, dtype=torch.int32).to(torch.int8)
    padded = torch.nn.functional.pad(img.permute(0, 3, 1, 2).float(), (1, 1, 1, 1), value=-1e9)
    want_pool = torch.nn.functional.max_pool2d(padded, 3, 2).clamp(-100, 90).to(torch.int8).permute(0, 2, 3, 1)
    oh, ow = want_pool.shape[1:3]
    geometry = torch.tensor([1, 61, 59, 24, 3, 3, 2, 2, 1, 1, oh, ow], dtype=torch.int64)
    for threads in (1, 2, 3):
        pool_threads(threads)
        out = torch.empty_like(a)
        assert native.table(a, b, table2, out) and torch.equal(out, want2), threads
        out_rows = torch.empty_like(x)
        assert native.table_rows(x, key, table2, out_rows) and torch.equal(out_rows, want_rows), threads
        assert torch.equal(q_kernel([f], p)[0], want_q), threads
        pooled = torch.empty(1, oh, ow, 24, dtype=torch.int8)
        native.max_pool(img, geometry, -100, 90, pooled)
        assert torch.equal(pooled, want_pool.contiguous()), threads


@pytest.mark.parametrize("entry", [torch.uint8, torch.int8, torch.float16, torch.float32])
def test_compiled_tables_equal_the_torch_lookups(native, entry):
    gen = torch.Generator().manual_seed(5)
    values = torch.randn(65536, generator=gen) * 50
    table = values.to(entry) if entry.is_floating_point else values.clamp(-128, 127).to(torch.int32).to(entry)
    for arity in (1, 2):
        t = qf.Table(table[:256] if arity == 1 else table, arity, "test")
        assert t.native is not None
        plain = qf.Table(t.table, arity, "test")
        plain.native = None
        a = torch.randint(0, 256, (3, 5, 7, 11), generator=gen, dtype=torch.int32).to(torch.uint8)
        b = torch.randint(-128, 128, (3, 5, 7, 11), generator=gen, dtype=torch.int32).to(torch.int8)
        xs = [a] if arity == 1 else [a.view(torch.int8), b]
        assert torch.equal(t(xs)[0], plain(xs)[0])
    full, row = a.view(torch.int8), b[:1, :1, :1]                      # row: [1, 1, 1, 11]
    for pair in ([full, row], [row, full], [full, row.reshape(-1)], [row.reshape(-1), full],   # one row: per channel
                 [full, b[:1]], [b[:, :1], full[:1]]):                                         # others: expanded
        assert torch.equal(t(pair)[0], plain(pair)[0])


def test_the_library_can_be_turned_off(monkeypatch, native):
    path = _native.library_path()
    monkeypatch.setenv(_native.LIBRARY_VARIABLE, "off")
    assert _native.kernels() is None
    monkeypatch.setenv(_native.LIBRARY_VARIABLE, "/nonexistent/libnnapi_host_kernels.so")
    assert _native.kernels() is None
    monkeypatch.setenv(_native.LIBRARY_VARIABLE, path)
    assert _native.kernels() is native


def test_dequantize_tables_keep_float_entries(lib, driver, native):
    """A DEQUANTIZE table has float32 entries: the compiled lookup copies four bytes."""
    m = Model(lib)
    x = m.tensor([4, 9], QA8, scale=0.25, zp=7)
    out = m.tensor([4, 9], TF32)
    m.op("DEQUANTIZE", [x], [out])
    m.io([x], [out])
    m.finish()
    plan = driver.lookup(m.compile().value, Compilation, "compilation").plan
    (step,) = plan.steps
    codes = torch.arange(36, dtype=torch.uint8).reshape(4, 9) * 7
    assert torch.equal(step.fn([codes])[0], (codes.to(torch.float32) - 7) * 0.25)


@pytest.mark.parametrize("avx512", [False, True])
def test_the_weight_only_product_gives_one_answer_at_any_thread_count(native, at_thread_counts, avx512):
    """nnapi_host_linear_int8 splits the output units over the pool: the same bits at 1-3 threads,
    within float32 rounding of the float64 product, and the same bits from its vector and plain loops."""
    gen = torch.Generator().manual_seed(12)
    x = torch.randn(3, 300, generator=gen)
    q = torch.randint(-127, 128, (517, 300), generator=gen, dtype=torch.int32).to(torch.int8)
    scale, bias = torch.rand(517, generator=gen) * 0.01, torch.randn(517, generator=gen)

    def compute() -> torch.Tensor:
        out = torch.empty(3, 517)
        native.linear_int8(x, q, scale, bias, out, use_avx512=avx512)
        return out

    got = at_thread_counts(compute)
    want = (x.double() @ q.double().t()) * scale.double() + bias.double()
    assert float((got.double() - want).abs().max()) < 1e-4
    if avx512:   # the machine's vector version (AVX-512, else AVX2): the plain loop's bits
        plain = torch.empty(3, 517)
        native.linear_int8(x, q, scale, bias, plain, use_avx512=False)
        assert torch.equal(got, plain)
