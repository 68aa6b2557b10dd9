"""Prepared 8-bit CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D and FULLY_CONNECTED (see `_qfast`).

The accumulation Σ (q_in − zp_in)(q_w − zp_w) runs in an integer kernel on int8 weights made once:

* oneDNN's u8 x s8 convolution, float32 output: exact when every output channel's bound
  Σ|q_w − zp_w| · max|q_in − zp_in| is below 2^24, which holds for the usual layers (a depthwise
  3x3 is at most 9·128·255). It takes the input's zero point and pads with it, as NNAPI's
  out-of-bounds taps contributing nothing require.
* `torch._int_mm` on int8 operands (uint8 codes − 128), int32 output, exact below 2^31: for
  FULLY_CONNECTED, 1x1 convolutions of NHWC tensors (the tensor as it lies is the matrix, and
  oneDNN's setup costs ~20 µs a call) and the ungrouped convolutions over the float32 bound
  (their taps unrolled into a matrix). The −128 shift becomes a per-channel constant, folded
  with the bias.
* The compiled depthwise loop (`_native`) for NHWC depthwise convolutions: int32 sums of the
  taps, requantized row by row; at every size where the machine has its AVX-512 sums, else for
  small images only (its plain loop loses to oneDNN on large ones); AVX2 sums without AVX-512.

Then `_qfast.Requantizer` (or the reference requantization, where it was not proved equal).
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch

from . import _native
from . import _qfast as qf
from .common import from_nchw, pad_nhwc, to_nchw

Kernel = qf.Kernel
SMALL_DEPTHWISE_PIXELS = 16 * 16   # output pixels up to which the plain compiled depthwise loop runs


def _conv_weights(p, ins: Sequence[qf.OperandInfo]):
    """(offset weights q_w − zp_w as int64 [O, I/groups, kh, kw], int64 bias, per-channel Σ|w|,
    input dtype), or None when the filter or the bias is not a constant."""
    if getattr(p, "weight", None) is None or getattr(p, "bias", None) is None:
        return None
    x = ins[0]
    if x.dtype not in qf.EIGHT_BIT or x.shape is None or 0 in x.shape or p.weight.numel() == 0:
        return None
    w = p.weight.to(torch.int64).contiguous()
    dims = tuple(range(1, w.dim()))
    return w, p.bias.to(torch.int64), w.abs().sum(dims), x.dtype


def _int8_parts(w: torch.Tensor) -> list[tuple[int, torch.Tensor]]:
    """w as Σ factor·part with int8 parts: w itself, or (per-tensor uint8 filters, whose q_w − zp_w
    spans up to [−255, 255]) 2·floor(w/2) + (w mod 2)."""
    if int(w.min()) >= -128 and int(w.max()) <= 127:
        return [(1, w.to(torch.int8))]
    high = torch.div(w, 2, rounding_mode="floor")
    return [(2, high.to(torch.int8)), (1, (w - 2 * high).to(torch.int8))]


def conv_kernel(p, ins: Sequence[qf.OperandInfo], outs: Sequence[qf.OperandInfo],
                reference: Kernel) -> Optional[Kernel]:
    """CONV_2D / DEPTHWISE_CONV_2D / GROUPED_CONV_2D (p.groups, 1 when absent)."""
    prepared = _conv_weights(p, ins)
    if prepared is None or outs[0].shape is None:
        return None
    w, bias, abs_sum, dtype = prepared
    groups = getattr(p, "groups", 1)
    reach = qf.input_reach(dtype, p.q_zp[0])
    parts = _int8_parts(w)
    dims = tuple(range(1, w.dim()))
    # Every partial sum of every part (times its factor) must stay below 2^24 in float32.
    partial = sum(f * part.to(torch.int64).abs().sum(dims) for f, part in parts) * reach
    onednn = int(partial.max()) < qf.FLOAT32_EXACT and qf.onednn_exact()
    int_mm = groups == 1 and len(parts) == 1 and int(abs_sum.max()) * 128 < qf.INT32_LIMIT and qf.int_mm_exact()
    # A 1x1 convolution of an NHWC tensor is a matrix product of the tensor as it lies:
    # torch._int_mm takes it without oneDNN's ~20 microseconds of setup per call.
    pointwise = w.shape[2:] == (1, 1) and tuple(p.stride) == (1, 1) and not any(p.pads) and not p.nchw
    depthwise = groups == w.shape[0] and w.shape[1] == 1 and not p.nchw     # depth multiplier 1
    # The plain compiled loop gains oneDNN's ~20 us of setup per call and loses to its kernels on
    # large images (3x slower at 112 x 112 x 32 here, 2x faster at 14 x 14 and below); with its
    # AVX-512 sums it is faster at every size of mobilenet_v2 (1.7 -> 1.1 ms per execution in all);
    # the AVX2 sums on a machine without AVX-512, where oneDNN's sums are not exact (VPMADDUBSW).
    native = _native.kernels()
    native_depthwise = outs[0].shape[1] * outs[0].shape[2] <= SMALL_DEPTHWISE_PIXELS or (
        native is not None and native.depthwise_vector)
    if depthwise and native_depthwise and int(abs_sum.max()) * reach < qf.INT32_LIMIT:
        kernel = _native_depthwise_kernel(p, ins[0].shape, outs[0].shape, w, bias, abs_sum * reach, dtype)
        if kernel is not None:
            return kernel
    if pointwise and int_mm:
        packed = _packed_gemm_kernel(p, outs[0].shape, parts[0][1].reshape(w.shape[0], -1), bias, abs_sum, dtype)
        if packed is not None:
            return packed
    if int_mm and not p.nchw:
        # Other ungrouped NHWC convolutions: the taps unrolled (out-of-bounds ones read the zero
        # point, adding nothing), then the same compiled product.
        unrolled = _unrolled_gemm_kernel(p, ins[0].shape, outs[0].shape, parts[0][1], bias, abs_sum, dtype)
        if unrolled is not None:
            return unrolled
    if onednn and not (pointwise and int_mm):
        return _onednn_conv_kernel(p, ins[0].shape, parts, bias, abs_sum * reach, dtype, groups)
    if int_mm:
        return _int_mm_conv_kernel(p, outs[0].shape, parts[0][1], bias, abs_sum, dtype)
    return None


def _onednn_conv_kernel(p, in_shape: tuple[int, ...], parts: list[tuple[int, torch.Tensor]], bias: torch.Tensor,
                        bound: torch.Tensor, dtype: torch.dtype, groups: int) -> Kernel:
    zp = p.q_zp[0] + (128 if dtype == torch.int8 else 0)
    left, right, top, bottom = p.pads
    symmetric = left == right and top == bottom
    padding = (top, left) if symmetric else (0, 0)
    n, c, h, w = in_shape if p.nchw else (in_shape[0], in_shape[3], in_shape[1], in_shape[2])
    if not symmetric:
        h, w = h + top + bottom, w + left + right
    channels = parts[0][1].shape[0]
    packed = [(factor, torch.ops.onednn.qconv_prepack(part.contiguous(), torch.ones(channels), 1.0, zp,
                                                      list(p.stride), list(padding), list(p.dilation), groups,
                                                      [n, c, h, w]))
              for factor, part in parts]
    requantize = qf.requantizer_for(p, bias, -bound, bound)
    nchw, stride, padding, dilation = p.nchw, list(p.stride), list(padding), list(p.dilation)
    ones, zeros = torch.ones(channels), torch.zeros(channels, dtype=torch.int64)
    conv = torch.ops.onednn.qconv2d_pointwise

    def run(xs: list, _p) -> list:
        x = qf.to_unsigned(xs[0])
        if not symmetric:
            # NNAPI's SAME padding may put the odd row/column at the end; oneDNN pads symmetrically.
            x = pad_nhwc(x, left, right, top, bottom, value=float(zp), nchw=nchw)
        x4 = to_nchw(x, nchw)
        acc = None
        for factor, weights in packed:
            # Σ (x − zp)·w as float32: scales 1, no bias.
            part = conv(x4, 1.0, zp, weights, ones, zeros, None, stride, padding, dilation, groups, 1.0, 0,
                        torch.float32, "none", [], "")
            if factor != 1:
                part.mul_(factor)
            acc = part if acc is None else acc.add_(part)   # exact: every partial sum is below 2^24
        return [from_nchw(requantize(acc, 1), nchw)]

    parts_note = "" if len(packed) == 1 else f", {len(packed)} parts"
    run.requantizer = requantize   # a following activation's table can join it (qf.fuse_table)
    return qf.described(run, f"oneDNN u8 x s8 convolution{parts_note}, {qf.requantization_name(requantize)}")


def _native_depthwise_kernel(p, in_shape: tuple[int, ...], out_shape: tuple[int, ...], w: torch.Tensor,
                             bias: torch.Tensor, bound: torch.Tensor, dtype: torch.dtype) -> Optional[Kernel]:
    """An NHWC depthwise convolution (multiplier 1) by the compiled loop, which sums each output's
    taps exactly in int32 (below 2^31: ``bound``) and requantizes them as it goes, without a
    float32 accumulator tensor; None without the library or a proved requantizer."""
    native = _native.kernels()
    requantize = qf.requantizer_for(p, bias, -bound, bound, torch.int32) if native is not None else None
    if not isinstance(requantize, qf.Requantizer):
        return None
    channels, _, kh, kw = w.shape
    weights = w[:, 0].permute(1, 2, 0).to(torch.int16).contiguous()       # [kh, kw, c]: q_w − zp_w
    n, h, width, _ = in_shape
    left, _, top, _ = p.pads
    geometry = torch.tensor([n, h, width, channels, kh, kw, *p.stride, *p.dilation, top, left, out_shape[1],
                             out_shape[2]], dtype=torch.int64)
    zp = p.q_zp[0]
    # Rows of the AVX-512 path are requantized with the constants repeated over at least 256
    # values (a long inner loop; some short periods run several times slower).
    repeat = max(1, min(out_shape[2], -(-256 // channels)))

    def run(xs: list, _p) -> list:
        x = xs[0].contiguous()
        table = requantize.table
        out = torch.empty(out_shape, dtype=dtype if table is None else table.dtype)
        native.depthwise(x, geometry, weights, zp, requantize.flat_constants(repeat), requantize.lo, requantize.hi,
                         requantize.shift, requantize.int32_clamp, table, out, repeat=repeat)
        return [out]

    run.requantizer = requantize   # a following activation's table can join it (qf.fuse_table)
    run.replayable = True          # its work is its native calls (native_runs.py)
    return qf.described(run, f"compiled depthwise convolution, {qf.requantization_name(requantize)}")


def _im2col(a: torch.Tensor, kh: int, kw: int, stride: tuple[int, int], dilation: tuple[int, int],
            out_hw: tuple[int, int]) -> torch.Tensor:
    """[N·oh·ow, kh·kw·C] taps of a padded NHWC tensor, in the (ky, kx, c) order of the weights."""
    n, _, _, c = a.shape
    if (kh, kw) == (1, 1) and stride == (1, 1):
        return a.reshape(-1, c)
    sn, sh, sw, sc = a.stride()
    (oh, ow), (st_h, st_w), (dh, dw) = out_hw, stride, dilation
    taps = a.as_strided((n, oh, ow, kh, kw, c), (sn, sh * st_h, sw * st_w, sh * dh, sw * dw, sc))
    return taps.reshape(n * oh * ow, kh * kw * c)


PACKED_LANES, PACKED_DEPTH = 16, 4        # nnapi_host_gemm.c's weight blocks
PACKED_SCRATCH = 16384                    # int32 accumulators of a block of rows (64 KB)


def pack_weights(matrix: torch.Tensor) -> torch.Tensor:
    """int8 [N, K] as nnapi_host_gemm.c reads it: [ceil(N/16), ceil(K/4), 16, 4], zero-filled."""
    n, k = matrix.shape
    padded = torch.zeros(-(-n // PACKED_LANES) * PACKED_LANES, -(-k // PACKED_DEPTH) * PACKED_DEPTH, dtype=torch.int8)
    padded[:n, :k] = matrix
    blocks = padded.view(-1, PACKED_LANES, padded.shape[1] // PACKED_DEPTH, PACKED_DEPTH)
    return blocks.permute(0, 2, 1, 3).contiguous()


def _unrolled_gemm_kernel(p, in_shape: tuple[int, ...], out_shape: tuple[int, ...], w8: torch.Tensor,
                          bias: torch.Tensor, abs_sum: torch.Tensor, dtype: torch.dtype) -> Optional[Kernel]:
    """An ungrouped NHWC convolution as the compiled product over its taps, unrolled in C a block
    of output pixels at a time (out-of-image taps read the input's zero point: they add nothing)."""
    channels, _, kh, kw = w8.shape
    matrix = w8.permute(0, 2, 3, 1).reshape(channels, -1)                 # [O, (ky, kx, c)]
    left, _, top, _ = p.pads
    n, h, width, c = in_shape
    geometry = torch.tensor([n, h, width, c, kh, kw, *p.stride, *p.dilation, top, left, out_shape[1], out_shape[2]],
                            dtype=torch.int64)
    return _packed_gemm_kernel(p, out_shape, matrix, bias, abs_sum, dtype, unroll=geometry)


def _packed_gemm_kernel(p, out_shape: tuple[int, ...], matrix: torch.Tensor, bias: torch.Tensor,
                        abs_sum: torch.Tensor, dtype: torch.dtype, product: Optional[str] = None,
                        beta: int = 0, unroll: Optional[torch.Tensor] = None) -> Optional[Kernel]:
    """A 1x1 NHWC convolution or a FULLY_CONNECTED as the compiled product of the activation rows,
    read as unsigned bytes, with the packed int8 weights [O, K], requantized block by block; None
    without the library, a vector product (AVX-512 VNNI or AVX2; ``product`` None: the machine's
    fastest; else one of `NativeKernels.products`, for tests), a proved requantizer or int32
    room. ``abs_sum``: Σ|q_w − zp_w| per output; ``beta``: q_w − zp_w = matrix + beta (per-tensor
    weights stored shifted), added in C as beta times each row's Σu; ``unroll``: a convolution's geometry when the rows are its unrolled taps
    (see NativeKernels.gemm_requantize)."""
    native = _native.kernels()
    channels, depth = matrix.shape
    room = (int(matrix.to(torch.int64).abs().sum(1).max()) + abs(beta) * depth) * 255
    if native is None or (product is None and native.vector_product is None) or room >= qf.INT32_LIMIT:
        return None
    # Unsigned bytes u = q_in + 128 for int8 codes (their bit pattern, top bit flipped), q_in for uint8.
    s_u = -128 if dtype == torch.int8 else 0
    offset, low, high, _ = _signed_offsets(p, matrix, bias, abs_sum, dtype, s=s_u)
    # Σ (u − s_u − zp)(w + β) = Σ u·w + β·Σu + (s_u − zp)·(Σw + K·β): the K·β part joins the offset.
    extra = (s_u - p.q_zp[0]) * depth * beta
    offset, low, high = offset + extra, low - extra, high - extra
    requantize = qf.requantizer_for(p, offset, low, high, torch.int32)
    if not isinstance(requantize, qf.Requantizer):
        return None
    packed = pack_weights(matrix)
    block_rows = max(4, PACKED_SCRATCH // channels // 4 * 4)
    # Constants repeated over rows when there are few channels (a long inner loop), as
    # Requantizer.native_codes does.
    repeat = max(1, min(block_rows, -(-qf.NATIVE_ROW // channels)))
    product = native.vector_product if product is None else product

    def run(xs: list, _p) -> list:
        a = xs[0].contiguous()
        table = requantize.table
        out = torch.empty(out_shape, dtype=dtype if table is None else table.dtype)
        native.gemm_requantize(a if unroll is not None else a.view(-1, depth), packed, channels, block_rows, repeat,
                               requantize.flat_constants(repeat), requantize.lo, requantize.hi, requantize.shift,
                               requantize.int32_clamp, table, product, out, beta, unroll, p.q_zp[0])
        return [out]

    run.requantizer = requantize   # a following activation's table can join it (qf.fuse_table)
    run.replayable = True          # its work is its native calls (native_runs.py)
    return qf.described(run, f"compiled 8-bit product ({product}) with its requantization, "
                             f"{qf.requantization_name(requantize)}")


def _int_mm_conv_kernel(p, out_shape: tuple[int, ...], w8: torch.Tensor, bias: torch.Tensor, abs_sum: torch.Tensor,
                        dtype: torch.dtype) -> Kernel:
    """An ungrouped convolution as one int8 matrix product over its unrolled taps."""
    channels, _, kh, kw = w8.shape
    matrix = w8.permute(2, 3, 1, 0).reshape(-1, channels).contiguous()   # [(ky, kx, c), O]
    offset, low, high, zp_signed = _signed_offsets(p, w8, bias, abs_sum, dtype)
    requantize = qf.requantizer_for(p, offset, low, high, torch.int32)
    left, right, top, bottom = p.pads
    nchw, stride, dilation = p.nchw, p.stride, p.dilation
    n, oh, ow = (out_shape[0], out_shape[2], out_shape[3]) if nchw else out_shape[:3]

    def run(xs: list, _p) -> list:
        a = qf.to_signed(xs[0].permute(0, 2, 3, 1) if nchw else xs[0])
        # Out-of-bounds taps read the zero point: (zp − zp)·w adds nothing.
        a = pad_nhwc(a, left, right, top, bottom, value=float(zp_signed))
        acc = torch._int_mm(_im2col(a.contiguous(), kh, kw, stride, dilation, (oh, ow)), matrix)
        codes = requantize(acc.view(n, oh, ow, channels), 3)
        return [codes.permute(0, 3, 1, 2) if nchw else codes]

    run.requantizer = requantize   # a following activation's table can join it (qf.fuse_table)
    unrolled = "" if (kh, kw) == (1, 1) and tuple(stride) == (1, 1) else " over unrolled taps"
    return qf.described(run, f"torch._int_mm{unrolled}, {qf.requantization_name(requantize)}")


def _signed_offsets(p, w8: torch.Tensor, bias: torch.Tensor, abs_sum: torch.Tensor, dtype: torch.dtype,
                    s: Optional[int] = None):
    """For an accumulation on codes a = q_in − s (by default signed: s = 128 for uint8, else 0;
    s = −128 for int8 codes read as unsigned bytes): Σ (q_in − zp)·w = Σ a·w + (s − zp)·Σ w.
    Returns (offset = bias + (s − zp)·Σw, the domain [low, high] of Σ a·w, the zero point in
    the codes a)."""
    if s is None:
        s = 128 if dtype == torch.uint8 else 0
    alpha = s - p.q_zp[0]
    dims = tuple(range(1, w8.dim()))
    correction = alpha * w8.to(torch.int64).sum(dims)
    bound = abs_sum * qf.input_reach(dtype, p.q_zp[0])
    return bias + correction, -bound - correction, bound - correction, p.q_zp[0] - s


def fully_connected_kernel(p, ins: Sequence[qf.OperandInfo], outs: Sequence[qf.OperandInfo],
                           reference: Kernel) -> Optional[Kernel]:
    """FULLY_CONNECTED: [batch, input_size] x weights[units, input_size]^T on torch._int_mm.

    Per-tensor weights keep their zero point (uint8 weights rarely fit int8 once offset): with
    b = q_w − t (t = 128 for codes above 127, else 0) and β = t − zp_w, the sum gains β·Σa per
    row, a small vector added to the product.
    """
    if getattr(p, "weight", None) is None or getattr(p, "bias", None) is None or not qf.int_mm_exact():
        return None
    x = ins[0]
    if x.dtype not in qf.EIGHT_BIT or x.shape is None or 0 in x.shape:
        return None
    offset_w = p.weight.to(torch.int64)                    # q_w − zp_w
    q_w = offset_w + p.q_zp[1]
    t = 128 if int(q_w.max()) > 127 else 0
    b = q_w - t
    if int(b.min()) < -128 or int(b.max()) > 127:
        return None
    beta = t - p.q_zp[1]
    units, depth = b.shape
    s = 128 if x.dtype == torch.uint8 else 0
    alpha = s - p.q_zp[0]
    bias = p.bias.to(torch.int64)
    if depth * ((1 << 14) + 256 * abs(beta)) >= qf.INT32_LIMIT:
        return None
    if outs[0].shape is not None:
        packed = _packed_gemm_kernel(p, outs[0].shape, b.to(torch.int8), bias, offset_w.abs().sum(1), x.dtype,
                                     beta=beta)
        if packed is not None:
            return packed
    bound = offset_w.abs().sum(1) * qf.input_reach(x.dtype, p.q_zp[0])
    folded = alpha * b.sum(1) + depth * alpha * beta        # α·Σb + K·α·β per unit
    requantize = qf.requantizer_for(p, bias + folded, -bound - folded, bound - folded, torch.int32)
    matrix = b.to(torch.int8).t().contiguous()
    batch_shape = p.batch_shape

    def run(xs: list, _p) -> list:
        a = qf.to_signed(xs[0].reshape(batch_shape)).contiguous()
        acc = torch._int_mm(a, matrix)
        if beta:
            acc += a.sum(1, dtype=torch.int32).mul_(beta)[:, None]
        return [requantize(acc, 1)]

    run.requantizer = requantize   # a following activation's table can join it (qf.fuse_table)
    return qf.described(run, f"torch._int_mm, {qf.requantization_name(requantize)}")
