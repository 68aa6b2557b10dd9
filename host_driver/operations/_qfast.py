"""Prepared 8-bit kernels: the reference kernels' results (`_qkernels`), bit for bit, at the speed
of integer kernels (issue 40; docs/architecture.md, "The host driver's 8-bit path").

A plan (compilation.py) asks `_prepared.prepared_kernel` once per operation when it is compiled
(the convolutions' kernels are in `_qconv`). What it prepares, and why each result equals the
reference's:

* Convolutions and FULLY_CONNECTED: the weights become int8 once; the accumulation runs in an
  integer kernel, oneDNN's u8 x s8 convolution (float32 output), `torch._int_mm` (int32 output)
  or a compiled depthwise loop (`_qconv`). A float32 accumulator is exact while |acc| < 2^24,
  which is proved per output channel from the weights (sum of |w| times the largest
  |input - zero point|), not checked per run.
* Their requantization (`Requantizer`): NNAPI's MultiplyByQuantizedMultiplier with its two
  roundings is a non-decreasing step function of the accumulator, and so is the float64
  expression computed here; two such functions are equal everywhere if they are equal on both
  sides of each of the first one's steps, which are found and checked per channel when the plan
  is made (`verify`, through the code that will run). A channel that fails keeps the reference
  requantization. A following activation's table can join it (`fuse_table`).
* One-input 8-bit element-wise operations (LOGISTIC, TANH, HARD_SWISH, DEQUANTIZE): a table of
  the reference's result for each of the 256 codes; ADD, SUB and MUL of two 8-bit tensors: a
  table of 65,536 pairs. Exact by construction; `fused_table` composes two such tables.
* QUANTIZE of float32: the reference's arithmetic in one compiled loop.
* 8-bit pools: sums in float32 (exact) or, over the whole image, in integers.

The one-pass loops (requantization, tables, QUANTIZE, the global mean) are C
(host_driver/kernels/nnapi_host_kernels.c, loaded by `_native`); without the library the same
arithmetic runs as torch passes. `EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS=1` turns all of this off
(plans then run the reference kernels), which the tests use to compare the two.
"""

from __future__ import annotations

import functools
import math
import os
from typing import Callable, Optional, Sequence

import torch
import torch.nn.functional as F

from . import _native
from . import _qkernels as qk
from . import _qmath as qm
from .common import f32, from_nchw, pad_nhwc, to_nchw

REFERENCE_VARIABLE = "EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS"
FLOAT32_EXACT = 1 << 24
INT32_LIMIT = 1 << 31
NATIVE_ROW = 64   # the least inner loop of the compiled requantization (repeats of few channels)

# (ins, p) -> outputs, the signature of an operation's compute.
Kernel = Callable[[list, object], list]


def described(run: Kernel, what: str) -> Kernel:
    """Label a prepared kernel (``run.prepared``): what the plan runs for the operation (tests and
    benchmarks read it)."""
    run.prepared = what
    return run


def reference_only() -> bool:
    """Whether $EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS asks for the reference kernels."""
    return os.environ.get(REFERENCE_VARIABLE, "") not in ("", "0")


class OperandInfo:
    """What a plan knows about one operand of an operation before it runs."""

    __slots__ = ("dtype", "shape", "value")

    def __init__(self, dtype: Optional[torch.dtype], shape: Optional[tuple[int, ...]], value=None) -> None:
        self.dtype, self.shape, self.value = dtype, shape, value


# -- tables for element-wise operations -------------------------------------------------------------
EIGHT_BIT = (torch.uint8, torch.int8)


def _all_codes(dtype: torch.dtype) -> torch.Tensor:
    """The 256 codes of an 8-bit dtype, ordered by their bit pattern read as uint8."""
    return torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dtype)


def _lut_index(x: torch.Tensor) -> torch.Tensor:
    """A code tensor's bit patterns as int32 (the table index)."""
    return x.view(torch.uint8).to(torch.int32) if x.dtype == torch.int8 else x.to(torch.int32)


class Table:
    """A prepared element-wise kernel: out = table[code] (one 8-bit input) or table[256·a + b]
    (two, broadcast), the codes read as their uint8 bit patterns."""

    # Its work is its native call, except where it says otherwise (native_runs.py).
    replayable = True

    def __init__(self, table: torch.Tensor, arity: int, what: str) -> None:
        self.table, self.arity, self.prepared = table.contiguous(), arity, what
        self.native = _native.kernels()
        self._transposed: Optional[torch.Tensor] = None   # table[256·b + a], made when first needed

    def __call__(self, xs: list, _p=None) -> list:
        native = self.native
        if native is not None:
            a, b = xs[0], (xs[1] if self.arity == 2 else None)
            if b is not None and b.shape != a.shape:
                out = self._one_row_broadcast(native, a, b)
                if out is not None:
                    return [out]
                # Other broadcasting: both as full 8-bit tensors (copies made here).
                native.computed_otherwise()
                a, b = torch.broadcast_tensors(a, b)
            a, b = a.contiguous(), (None if b is None else b.contiguous())
            out = torch.empty(a.shape, dtype=self.table.dtype)
            if native.table(a, b, self.table, out):
                return [out]
            native.computed_otherwise()
        if self.arity == 1:
            x = xs[0]
            return [self.table.index_select(0, _lut_index(x).reshape(-1)).view(x.shape)]
        index = _lut_index(xs[0]) << 8
        index = index + _lut_index(xs[1])
        return [self.table.index_select(0, index.reshape(-1)).view(index.shape)]


    def _one_row_broadcast(self, native, a: torch.Tensor, b: torch.Tensor) -> Optional[torch.Tensor]:
        """table[256·a + b] when one input is a full contiguous tensor and the other one row of its
        last dimension (shape [1, ..., 1, C] or [C]): each channel then reads 256 entries of the
        table (of its transpose when the row is the second input). None for other shapes."""
        shape = _broadcast_shape(tuple(a.shape), tuple(b.shape))
        if shape is None or not shape or 0 in shape:
            return None
        if tuple(a.shape) == shape:
            full, row, transposed = a, b, True      # the row is the table's second input
        elif tuple(b.shape) == shape:
            full, row, transposed = b, a, False
        else:
            return None
        channels = shape[-1]
        if row.numel() != channels or row.shape[-1:] != (channels,) or not full.is_contiguous():
            return None
        table = self.table
        if transposed:
            if self._transposed is None:
                self._transposed = table.view(256, 256).t().contiguous().view(-1)
            table = self._transposed
        out = torch.empty(full.shape, dtype=table.dtype)
        key = row.reshape(-1).contiguous().view(torch.uint8)
        if not native.table_rows(full.view(torch.uint8), key, table, out):
            return None
        return out


def _broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> Optional[tuple[int, ...]]:
    """numpy's broadcast of two shapes (torch.broadcast_shapes is Python-slow), None if none."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    if any(x != y and x != 1 and y != 1 for x, y in zip(a, b)):
        return None
    return tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(a, b))


def unary_table(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel) -> Optional[Kernel]:
    """One 8-bit input, an element-wise result."""
    if len(ins) != 1 or ins[0].dtype not in EIGHT_BIT or ins[0].shape is None:
        return None
    return Table(reference([_all_codes(ins[0].dtype)], p)[0], 1, "table of 256 codes")


# A binary table evaluates the reference on all 65,536 code pairs (~3 ms); a result this small is
# cheaper to compute from its operands at each run (Android's conformance cases, compiled once
# and run once each: their 8-bit ADD and SUB spent most of their time building tables).
SMALL_BINARY_RESULT = 256


def _at_most(shape: Optional[tuple[int, ...]], count: int) -> bool:
    """Whether a fully known ``shape`` holds at most ``count`` elements."""
    return shape is not None and all(d > 0 for d in shape) and math.prod(shape) <= count


def binary_table(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel) -> Optional[Kernel]:
    """Two 8-bit inputs (broadcast), an element-wise result."""
    if len(ins) < 2 or ins[0].dtype not in EIGHT_BIT or ins[1].dtype != ins[0].dtype:
        return None
    if _at_most(outs[0].shape if outs else None, SMALL_BINARY_RESULT):
        return None
    codes = _all_codes(ins[0].dtype)
    extra = [None] * (len(ins) - 2)   # the fused activation is a parameter already
    table = reference([codes.repeat_interleave(256), codes.repeat(256), *extra], p)[0]
    return Table(table, 2, "table of 65,536 code pairs")


def fused_table(outer: Table, inner: Table, inner_position: int) -> Optional[Table]:
    """``outer(x, inner(x))`` (``inner_position`` 1) or ``outer(inner(x), x)`` (0) as one table
    of x's 256 codes: e.g. SiLU's MUL(x, LOGISTIC(x)). None unless both are 8-bit tables."""
    if outer.arity != 2 or inner.arity != 1 or inner.table.dtype not in EIGHT_BIT:
        return None
    x = torch.arange(256, dtype=torch.int32)
    u = _lut_index(inner.table)
    index = x * 256 + u if inner_position == 1 else u * 256 + x
    return Table(outer.table.index_select(0, index), 1, "table of 256 codes (two operations)")


def dequantize_table(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo],
                      reference: Kernel) -> Optional[Kernel]:
    """DEQUANTIZE with one scale for the tensor (per-channel scales are not element-wise)."""
    if isinstance(p.scale, torch.Tensor):
        return None
    return unary_table(p, ins, outs, reference)


def quantize_kernel(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel) -> Optional[Kernel]:
    """QUANTIZE of float32 by the compiled loop (there is no torch pass fewer than the
    reference's): the reference's arithmetic, and its codes for the values whose int64
    conversion is the platform's (infinities, NaN, magnitudes of 2^63 and more)."""
    native = _native.kernels()
    if native is None or ins[0].dtype != torch.float32:
        return None
    scale, zp, dtype = p.q_out
    lo, hi = qm.QRANGE[dtype]
    special = reference([torch.tensor([math.inf, -math.inf, math.nan])], p)[0].to(torch.int32)
    divisor = f32(scale)   # the reference divides in float64 by the float32 scale

    def run(xs: list, _p) -> list:
        x = xs[0].contiguous()
        out = torch.empty(x.shape, dtype=dtype)
        native.quantize(x, divisor, zp, lo, hi, special, out)
        return [out]

    run.replayable = True   # its work is its native call (native_runs.py)

    return described(run, "compiled QUANTIZE loop")


# -- pooling ----------------------------------------------------------------------------------------------
def average_pool(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel) -> Optional[Kernel]:
    """The reference's rounding division of the window sums, the sums taken in float32 (exact:
    at most taps·255 < 2^24) or, for a pool over the whole image, as an integer sum."""
    x = ins[0]
    (fh, fw), (sh, sw) = p.kernel, p.stride
    if x.shape is None or outs[0].shape is None or 0 in x.shape or fh * fw * 256 >= FLOAT32_EXACT:
        return None
    left, right, top, bottom = p.pads
    n, oh, ow, _ = (outs[0].shape[0], outs[0].shape[2], outs[0].shape[3], None) if p.nchw else outs[0].shape
    count = (qk._window_counts(p.in_hw[0], oh, fh, sh, top)[:, None]
             * qk._window_counts(p.in_hw[1], ow, fw, sw, left)[None, :])
    half = count // 2
    whole = (oh, ow) == (1, 1) and not any(p.pads) and (fh, fw) == tuple(p.in_hw)
    lo, hi = p.q_range
    native = _native.kernels()
    if whole and not p.nchw and native is not None and fh * fw * 256 < INT32_LIMIT:
        return _global_mean(native, n, fh * fw, x.shape[3], lo, hi)

    def run(xs: list, _p) -> list:
        q = xs[0]
        if whole:
            acc = q.sum((2, 3) if p.nchw else (1, 2), keepdim=True, dtype=torch.int64)
        else:
            padded = to_nchw(pad_nhwc(q.to(torch.float32), left, right, top, bottom, nchw=p.nchw), p.nchw)
            acc = from_nchw(F.avg_pool2d(padded, p.kernel, p.stride, divisor_override=1), p.nchw).to(torch.int64)
        counts, halves = (count, half) if p.nchw or whole else (count[:, :, None], half[:, :, None])
        avg = torch.div(acc + torch.where(acc >= 0, halves, -halves), counts, rounding_mode="trunc")
        return [avg.clamp_(lo, hi).to(q.dtype)]

    return described(run, "integer sum pool" if whole else "float32 sum pool")


def _global_mean(native: "_native.NativeKernels", batches: int, rows: int, channels: int, lo: int, hi: int) -> Kernel:
    """An NHWC average pool over the whole image by the compiled loop: the same integer sums and
    rounding division as the torch passes."""

    def run(xs: list, _p) -> list:
        q = xs[0].contiguous()
        out = torch.empty((batches, 1, 1, channels), dtype=q.dtype)
        native.mean_rows(q, batches, rows, channels, lo, hi, out)
        return [out]

    run.replayable = True

    return described(run, "compiled integer mean pool")


def max_pool(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel) -> Optional[Kernel]:
    """The reference's float32 maximum, padding with torch's when it is symmetric (both ignore
    the padding: every window holds an input element), clamped from float32 directly."""
    if ins[0].shape is None or 0 in ins[0].shape:
        return None
    lo, hi = p.q_range
    left, right, top, bottom = p.pads
    native = _native.kernels()
    if native is not None and not p.nchw and outs[0].shape is not None and 0 not in outs[0].shape:
        return _compiled_max_pool(native, p, tuple(ins[0].shape), tuple(outs[0].shape))
    lowest = float(qm.QRANGE[ins[0].dtype][0] - 1)

    def run(xs: list, _p) -> list:
        q = xs[0]
        xf = q.to(torch.float32)
        if p.torch_pad is not None:
            y = F.max_pool2d(to_nchw(xf, p.nchw), p.kernel, p.stride, p.torch_pad)
        else:
            padded = to_nchw(pad_nhwc(xf, left, right, top, bottom, value=lowest, nchw=p.nchw), p.nchw)
            y = F.max_pool2d(padded, p.kernel, p.stride)
        return [from_nchw(y.clamp_(lo, hi).to(q.dtype), p.nchw)]

    return described(run, "float32 max pool")


def _compiled_max_pool(native: "_native.NativeKernels", p, in_shape: tuple, out_shape: tuple) -> Kernel:
    """An NHWC max pool by the compiled loop: the maximum of each window's in-bounds codes (the
    reference's padding is below every code), clamped; no float32 copy of the input."""
    n, h, w, c = in_shape
    _, oh, ow, _ = out_shape
    left, _right, top, _bottom = p.pads
    geometry = torch.tensor([n, h, w, c, *p.kernel, *p.stride, top, left, oh, ow], dtype=torch.int64)
    lo, hi = p.q_range

    def run(xs: list, _p) -> list:
        q = xs[0].contiguous()
        out = torch.empty(out_shape, dtype=q.dtype)
        native.max_pool(q, geometry, lo, hi, out)
        return [out]

    run.replayable = True

    return described(run, "compiled 8-bit max pool")


# -- requantization of convolution accumulators ---------------------------------------------------
def _real_multiplier(m: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    """M·2^(shift−31) in float64 (exact: M has 31 bits)."""
    return torch.ldexp(m.to(torch.float64), (shift - 31).to(torch.float64))


class Requantizer:
    """Exact accumulators (plus a per-channel ``offset``: the bias and folded zero-point terms)
    to output codes, the reference's `requantize_acc`, computed in float64::

        codes = floor(acc · r + c)  clamped to the activation's range

    where, when the output range reaches negative values of MultiplyByQuantizedMultiplier, ``c``
    is ``c_mid ± half`` by the sign of ``acc − threshold`` (the reference's second rounding goes
    half away from zero, so for negative products its steps sit 2^-e lower). Built by
    `build_requantizer`, which proves it equal to the reference per channel.
    """

    def __init__(self, r: torch.Tensor, c: torch.Tensor, branch: Optional[tuple[torch.Tensor, torch.Tensor]],
                 lo: int, hi: int, dtype: torch.dtype, int32_clamp: bool = False,
                 acc_dtype: torch.dtype = torch.float32) -> None:
        self.r, self.c, self.branch = r, c, branch
        # Codes are computed as uint8 (int8 + 128), where truncation is floor (below 0, truncation
        # and floor both clamp to lo >= 0).
        self.shift = 128 if dtype == torch.int8 else 0
        self.lo, self.hi = lo + self.shift, hi + self.shift
        # int32_clamp: every value fits int32, so the clamp can follow the (cheaper) conversion.
        self.int32_clamp = int32_clamp
        self.dtype = dtype
        # What the accumulators will be: float32 (oneDNN) or int32 (torch._int_mm).
        self.acc_dtype = acc_dtype
        # The compiled loop computing the same expression in one pass (`_native`), or None.
        self.native = _native.kernels()
        # 256 8-bit codes the codes become (a following one-input table the plan fused), or None.
        self.table: Optional[torch.Tensor] = None
        self._shaped: dict[tuple[int, int], tuple] = {}
        self._flat: dict[int, tuple] = {}

    def constants(self, view: Callable[[torch.Tensor], torch.Tensor]) -> tuple:
        """(r, c, threshold, half) shaped by ``view`` to broadcast against accumulators."""
        threshold, half = self.branch if self.branch is not None else (None, None)
        return tuple(None if t is None else view(t) for t in (self.r, self.c, threshold, half))

    def codes(self, acc: torch.Tensor, constants: tuple) -> torch.Tensor:
        """Output codes of ``acc`` (float32 or int32 holding integers) with `constants`."""
        r, c, threshold, half = constants
        y = acc.to(torch.float64)
        side = None if threshold is None else torch.sub(y, threshold).sign_()   # ±1: a half-integer threshold
        y.mul_(r)
        y.add_(c)
        if side is not None:
            y.addcmul_(side, half)                      # ± 2^-(e+1), exact
        # Through int32: float64 -> uint8 has no vectorized conversion.
        if self.int32_clamp:
            out = y.to(torch.int32).clamp_(self.lo, self.hi).to(torch.uint8)
        else:
            out = y.clamp_(self.lo, self.hi + 1.0 - 2.0 ** -8).to(torch.int32).to(torch.uint8)
        if self.shift:
            out = out.bitwise_xor_(0x80).view(torch.int8)
        return out

    def flat_constants(self, repeat: int) -> tuple:
        """The constants as contiguous float64 vectors, ``repeat`` copies end to end."""
        constants = self._flat.get(repeat)
        if constants is None:
            constants = self._flat[repeat] = self.constants(lambda t: t.repeat(repeat).contiguous())
        return constants

    def native_codes(self, acc: torch.Tensor, channel_axis: int) -> Optional[torch.Tensor]:
        """The codes by the compiled loop, in ``acc``'s memory layout; None when ``acc`` is not a
        dense float32 / int32 tensor the loop reads (the torch passes then run)."""
        native = self.native
        if native is None or acc.dtype not in (torch.float32, torch.int32) or acc.numel() == 0:
            return None
        channels = acc.shape[channel_axis]
        channels_last = acc.dim() == 4 and channel_axis == 1 and acc.is_contiguous(memory_format=torch.channels_last)
        if channels_last or (channel_axis == acc.dim() - 1 and acc.is_contiguous()):
            # Channels innermost in memory: rows of codes, constants repeated to a long inner loop.
            outer, inner = acc.numel() // channels, 1
            repeat = max(1, min(outer, -(-NATIVE_ROW // channels)))
        elif acc.is_contiguous():
            outer, inner, repeat = math.prod(acc.shape[:channel_axis]), math.prod(acc.shape[channel_axis + 1:]), 1
        else:
            return None
        table = self.table
        out = torch.empty_like(acc, dtype=self.dtype if table is None else table.dtype)   # acc's strides (dense)
        native.requantize(acc, outer, channels, inner, repeat, self.flat_constants(repeat), self.lo, self.hi,
                          self.shift, self.int32_clamp, out, table)
        return out

    def codes_at(self, points: torch.Tensor, channels: slice) -> torch.Tensor:
        """int64 codes of the int64 accumulators ``points`` [c, ...] of output channels
        ``channels``, computed as executions compute them (by the compiled loop when there is
        one, reading the accumulators' dtype): what `verify` checks."""
        if self.native is None:
            return self.codes(points, self.constants(lambda t: t[channels].view(-1, *[1] * (points.dim() - 1))))\
                .to(torch.int64)
        rows = points.reshape(points.shape[0], -1).t().contiguous()      # [points, c]: channels innermost
        exact_f32 = self.acc_dtype == torch.float32 and int(rows.abs().max()) < FLOAT32_EXACT
        rows = rows.to(torch.float32 if exact_f32 else torch.int32)
        constants = self.constants(lambda t: t[channels].contiguous())
        out = torch.empty(rows.shape, dtype=self.dtype)
        self.native.requantize(rows, rows.shape[0], rows.shape[1], 1, 1, constants, self.lo, self.hi, self.shift,
                               self.int32_clamp, out)
        return out.t().reshape(points.shape).to(torch.int64)

    def __call__(self, acc: torch.Tensor, channel_axis: int) -> torch.Tensor:
        out = self.native_codes(acc, channel_axis)
        if out is not None:
            return out
        key = (channel_axis, acc.dim())
        constants = self._shaped.get(key)
        if constants is None:
            shape = [1] * acc.dim()
            shape[channel_axis] = -1
            constants = self._shaped[key] = self.constants(lambda t: t.view(shape))
        codes = self.codes(acc, constants)
        if self.table is None:
            return codes
        return self.table.index_select(0, _lut_index(codes).reshape(-1)).view(codes.shape)


def fuse_table(kernel: Kernel, table: "Table") -> bool:
    """Make ``kernel`` (a prepared convolution or FULLY_CONNECTED) give ``table``'s result on its
    codes, when it requantizes with a `Requantizer` and the table is a one-input table of 8-bit
    codes; returns whether it did."""
    req = getattr(kernel, "requantizer", None)
    if (not isinstance(req, Requantizer) or req.table is not None or table.arity != 1
            or table.table.dtype not in EIGHT_BIT or len(table.table) != 256):
        return False
    req.table = table.table
    kernel.prepared = f"{kernel.prepared}, then a {table.prepared}"
    return True


def _reference_codes(x_ref: torch.Tensor, p, channels: slice) -> torch.Tensor:
    """The reference's `requantize_acc` on int64 ``x_ref`` laid out [channel, ...] (int64 codes)."""
    m = p.q_m[channels].view(-1, 1, 1)
    shift = p.q_shift[channels].view(-1, 1, 1)
    return (qm.mbqm(x_ref, m, shift) + p.q_zp[2]).clamp(*p.q_range)


VERIFY_CHUNK = 1 << 21   # points per verification slice (bounds the memory it takes)
MAX_RIGHT_SHIFT = 23     # j·2^(31+e) must fit in int64 for the step formula


def reference_steps(p, ks: torch.Tensor, channels: slice) -> torch.Tensor:
    """Candidate steps [C, K]: the least x with MultiplyByQuantizedMultiplier(x) + zp ≥ k.

    With j = k − zp and e the right shift, the reference is floor((x·M + K)/2^(31+e)) with
    K = 2^30 + 2^(30+e) (minus 2^31 where x·M + 2^30 < 0, i.e. for j ≤ 0), 2^30 for e = 0, and
    for a left shift s floor((x·M·2^s + 2^30)/2^31); so the step is a ceiling division. `verify`
    checks each candidate with the reference itself, so a wrong one can only refuse a channel.
    """
    m = p.q_m[channels, None]
    shift = p.q_shift[channels, None]
    e = (-shift).clamp(min=0)
    j = ks[None, :] - p.q_zp[2]
    pos = (1 << 30) + torch.where(e > 0, (1 << 30) << e, 0)
    k_const = torch.where((e > 0) & (j <= 0), pos - (1 << 31), pos)
    numerator = (j << (31 + e)) - k_const
    denominator = m << shift.clamp(min=0)
    return -torch.div(-numerator, denominator, rounding_mode="floor")


def verify(req: Requantizer, p, offset: torch.Tensor, low: torch.Tensor, high: torch.Tensor) -> bool:
    """Whether ``req`` equals the reference on every accumulator of ``[low, high]`` (per channel).

    Both are non-decreasing step functions of the accumulator (for M > 0, no overflow in the
    domain). For each output code k of the clamped range, the reference steps to k between the
    two points T − 1 and T (`reference_steps`, confirmed with the reference; or the domain ends
    before, on the side the pair lies), and ``req`` must agree with the reference on both. Then
    ``req`` agrees everywhere: between two consecutive steps both are constant, and the pairs
    give their values at both ends.
    """
    lo, hi = p.q_range
    channels = len(offset)
    ks = torch.arange(lo + 1, hi + 1, dtype=torch.int64)
    if len(ks) == 0 or int((-p.q_shift).max()) > MAX_RIGHT_SHIFT:
        return False
    step = max(1, VERIFY_CHUNK // (2 * len(ks)))
    for start in range(0, channels, step):
        sl = slice(start, min(channels, start + step))
        steps = reference_steps(p, ks, sl) - offset[sl, None]
        points = torch.stack((steps - 1, steps), 2)                                 # [C, K, 2]
        points = torch.maximum(torch.minimum(points, high[sl, None, None]), low[sl, None, None])
        expected = _reference_codes(points + offset[sl, None, None], p, sl)
        got = req.codes_at(points, sl)
        if not torch.equal(expected, got):
            return False
        below = (expected[:, :, 0] < ks) | (points[:, :, 0] == low[sl, None])
        above = (expected[:, :, 1] >= ks) | (points[:, :, 1] == high[sl, None])
        if not bool((below & above).all()):
            return False
    return True


def build_requantizer(p, offset: torch.Tensor, low: torch.Tensor, high: torch.Tensor,
                      acc_dtype: torch.dtype = torch.float32) -> Optional[Requantizer]:
    """A `Requantizer` proved equal to the reference for accumulators in [low, high] (per
    channel) plus ``offset``, or None (then the caller requantizes with the reference).
    ``acc_dtype``: float32 or int32, what the accumulators are (int32 ones are no wider)."""
    if acc_dtype == torch.int32:
        low, high = low.clamp(min=-INT32_LIMIT), high.clamp(max=INT32_LIMIT - 1)
    m_int, shift = p.q_m, p.q_shift
    reach = torch.maximum((low + offset).abs(), (high + offset).abs())
    # Monotone without overflow: no int32 wrap of the (shifted) input, M > 0.
    limit = torch.full_like(shift, INT32_LIMIT) >> shift.clamp(min=0)
    if not bool((m_int > 0).all()) or not bool((reach < limit).all()):
        return None
    r = _real_multiplier(m_int, shift)
    e = (-shift).clamp(min=0).to(torch.float64)
    # floor((x·M + 2^30 + 2^(30+e)) / 2^(31+e)) for the reference's positive branch (e > 0):
    # 1/2 + 2^-(e+1) after the scaling; a quarter unit more keeps the sum off integers.
    half_up = torch.where(e > 0, torch.ldexp(torch.ones_like(e), -(e + 1)), torch.zeros_like(e))
    nudge = torch.ldexp(torch.ones_like(e), -(e + 33))
    c_pos = (float(p.q_zp[2] + (128 if p.q_dtype == torch.int8 else 0)) + offset.to(torch.float64) * r
             + 0.5 + half_up + nudge)
    split = None
    if p.q_range[0] < p.q_zp[2]:
        # Negative products (x·M + 2^30 < 0, i.e. acc ≤ −offset − 1, or − 2 when M = 2^30) reach
        # the output range: there the second rounding goes down at ties, a step 2^-e lower.
        half = torch.where(e > 0, torch.ldexp(torch.ones_like(e), -(e + 1)), torch.zeros_like(e))
        threshold = -offset.to(torch.float64) - 0.5 - (m_int == 1 << 30).to(torch.float64)
        c_pos = c_pos - half
        split = (threshold, half)
    largest = torch.maximum(low.abs(), high.abs()).to(torch.float64) * r + c_pos.abs() + 1.0
    req = Requantizer(r, c_pos, split, p.q_range[0], p.q_range[1], p.q_dtype,
                      int32_clamp=bool((largest < INT32_LIMIT - 1).all()), acc_dtype=acc_dtype)
    if verify(req, p, offset, low, high):
        return req
    return None


# -- integer accumulation ----------------------------------------------------------------------
ONEDNN_PROBES = (  # (kernel, stride, groups, input channels): the kernels oneDNN picks differ by shape
    (3, 1, 1, 64), (3, 2, 1, 64), (1, 1, 1, 600), (3, 1, 8, 64), (3, 1, 64, 64), (5, 2, 64, 64))


@functools.cache
def onednn_exact() -> bool:
    """Whether oneDNN's u8 x s8 convolution (float32 output) gives exact sums on this machine,
    probed with the extreme codes (a kernel that saturated 16-bit pair sums would fail) and with
    sums of the codes far above 2^24 whose zero-point-corrected sums are small (a kernel that
    converted before subtracting the zero point's term would fail: the bound of `_qconv` is on
    the corrected sums)."""
    try:
        gen = torch.Generator().manual_seed(0)
        for k, stride, groups, cin in ONEDNN_PROBES:
            for zp, fill in ((0, 255), (255, 255), (131, None)):
                x = torch.full((1, 7, 6, cin), fill, dtype=torch.uint8) if fill is not None else \
                    torch.randint(0, 256, (1, 7, 6, cin), dtype=torch.uint8, generator=gen)
                x[0, 0, 0, 0] = 254   # odd sums: a float32 rounding above 2^24 shows
                channels = max(8, groups)
                w = torch.randint(-128, 128, (channels, cin // groups, k, k), dtype=torch.int8, generator=gen)
                if fill is not None:
                    w[:4], w[4:6], w[:, 0, 0, 0] = 127, -128, 126
                x4 = x.permute(0, 3, 1, 2)
                pad = k // 2
                packed = torch.ops.onednn.qconv_prepack(w, torch.ones(channels), 1.0, zp, [stride, stride],
                                                        [pad, pad], [1, 1], groups, list(x4.shape))
                got = _onednn_conv(x4, zp, packed, channels, [stride, stride], [pad, pad], [1, 1], groups)
                want = F.conv2d(x4.to(torch.float64) - zp, w.to(torch.float64), None, stride, pad, 1, groups)
                if want.abs().max() < FLOAT32_EXACT and not torch.equal(got.to(torch.float64), want):
                    return False
        return True
    except Exception:  # no oneDNN in this torch build, or it refuses: the other paths remain
        return False


@functools.cache
def int_mm_exact() -> bool:
    """Whether torch._int_mm (int8 x int8 -> int32) is available and exact on this machine."""
    try:
        gen = torch.Generator().manual_seed(0)
        for fill in (-128, 127, None):
            a = torch.full((20, 72), fill, dtype=torch.int8) if fill is not None else \
                torch.randint(-128, 128, (20, 72), dtype=torch.int8, generator=gen)
            b = torch.randint(-128, 128, (72, 24), dtype=torch.int8, generator=gen)
            b[:, :8] = -128
            if not torch.equal(torch._int_mm(a, b).to(torch.int64), a.to(torch.int64) @ b.to(torch.int64)):
                return False
        return True
    except Exception:
        return False


def _onednn_conv(x4: torch.Tensor, zp: int, packed: torch.Tensor, channels: int, stride, padding, dilation,
                 groups: int) -> torch.Tensor:
    """Σ (x − zp)·w as float32 (scales 1, no bias), NCHW-shaped like x4."""
    return torch.ops.onednn.qconv2d_pointwise(
        x4, 1.0, zp, packed, torch.ones(channels), torch.zeros(channels, dtype=torch.int64), None, list(stride),
        list(padding), list(dilation), groups, 1.0, 0, torch.float32, "none", [], "")


def input_reach(dtype: torch.dtype, zp: int) -> int:
    """The largest |code − zero point| of an 8-bit input."""
    qmin, qmax = qm.QRANGE[dtype]
    return max(zp - qmin, qmax - zp)


def to_unsigned(x: torch.Tensor) -> torch.Tensor:
    """int8 codes as uint8 codes + 128 (what oneDNN takes); uint8 as they are."""
    return torch.bitwise_xor(x.view(torch.uint8), 0x80) if x.dtype == torch.int8 else x


def to_signed(x: torch.Tensor) -> torch.Tensor:
    """uint8 codes as int8 codes − 128 (what torch._int_mm takes); int8 as they are."""
    return torch.bitwise_xor(x, 0x80).view(torch.int8) if x.dtype == torch.uint8 else x


def requantizer_for(p, offset: torch.Tensor, low: torch.Tensor, high: torch.Tensor,
                    acc_dtype: torch.dtype = torch.float32):
    """(acc, channel_axis) -> codes: the proved float64 requantizer, else the reference's.
    ``acc_dtype``: float32 (oneDNN) or int32 (torch._int_mm) accumulators."""
    req = build_requantizer(p, offset, low, high, acc_dtype)
    if req is not None:
        return req

    def reference(acc: torch.Tensor, channel_axis: int) -> torch.Tensor:
        shape = [1] * acc.dim()
        shape[channel_axis] = -1
        exact = acc.to(torch.int64) + offset.view(shape)
        return qk.requantize_acc(exact, p, channel_axis)

    return reference


def requantization_name(requantize) -> str:
    """How a kernel made by `requantizer_for` requantizes (for `described`)."""
    if not isinstance(requantize, Requantizer):
        return "reference requantization"
    return "proved float64 requantization" + (" (compiled loop)" if requantize.native is not None else "")
