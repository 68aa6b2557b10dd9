"""Prepared float32 kernels of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with constant weights
and bias, by the compiled loops of nnapi_host_float.c (through `_native`), asked by the plan once
per compilation (`_prepared`).

The weights are packed once; the bias and the fused activation are applied as the results are
written. torch's fp32 kernels (MKL / oneDNN) ran mobilenet_v2's 1x1 convolutions at about half
XNNPACK's speed on one thread here; the compiled product runs them near the FMA units' rate. Each
output is one float32 sum in a fixed order whatever the thread count (one answer per input).

Only NHWC tensors; a 1x1 stride-1 unpadded convolution is the product of the tensor as it lies
(the [N·H·W, C] matrix), another ungrouped one of 16 input channels or more the same product over
its taps, unrolled in C a block of rows at a time. Everything else (an image stem, grouped
convolutions other than depthwise with multiplier 1, NCHW, non-constant weights) keeps its torch
compute, as the reference plan does
($EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence

import torch

from . import _native
from ._qfast import Kernel, OperandInfo, described
from .common import FUSE_NONE, FUSE_RELU, FUSE_RELU1, FUSE_RELU6, activate_

LANES = 16   # nnapi_host_float.c's output channels per packed block

# An image stem's 3 channels: unrolling its taps costs as much as their product (224 x 224 x 3,
# 3x3 stride 2: 220 us against oneDNN's 145 on one thread); from 16 channels the product is as
# fast as oneDNN's or faster.
UNROLL_MIN_CHANNELS = 16

BOUNDS = {FUSE_NONE: (-math.inf, math.inf), FUSE_RELU: (0.0, math.inf), FUSE_RELU1: (-1.0, 1.0),
          FUSE_RELU6: (0.0, 6.0)}


def pack_float_weights(matrix: torch.Tensor) -> torch.Tensor:
    """float32 [N, K] as nnapi_host_float.c reads it: [ceil(N/16), K, 16], zero-filled past N."""
    n, k = matrix.shape
    blocks = -(-n // LANES)
    padded = torch.zeros(blocks * LANES, k, dtype=torch.float32)
    padded[:n] = matrix
    return padded.view(blocks, LANES, k).transpose(1, 2).contiguous()


def pad_bias(bias: torch.Tensor) -> torch.Tensor:
    """The bias zero-filled to a whole number of 16-channel blocks."""
    n = bias.numel()
    padded = torch.zeros(-(-n // LANES) * LANES, dtype=torch.float32)
    padded[:n] = bias.reshape(-1)
    return padded


def _usable(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo]) -> Optional[_native.NativeKernels]:
    """The library, when the operation is a float32 one with constant weight and bias whose shapes
    are known, and a fused activation it knows."""
    if getattr(p, "quant", True) or getattr(p, "nchw", False) or p.act not in BOUNDS:
        return None
    if p.weight is None or p.bias is None or p.weight.dtype != torch.float32 or p.bias.dtype != torch.float32:
        return None
    if ins[0].dtype != torch.float32 or outs[0].dtype != torch.float32 or ins[0].shape is None:
        return None
    if outs[0].shape is None or 0 in ins[0].shape or 0 in outs[0].shape:
        return None
    return _native.kernels()


def gemm_kernel(native: _native.NativeKernels, matrix: torch.Tensor, bias: torch.Tensor, act: int,
                out_shape: tuple[int, ...], geometry: Optional[torch.Tensor] = None,
                loops: Optional[str] = None) -> Kernel:
    """out = act(rows @ matrixᵀ + bias) shaped ``out_shape``; the rows are the input as it lies
    ([-1, K]), or with ``geometry`` (as `depthwise`'s) the taps of the NHWC convolution input,
    unrolled in C; ``loops`` None: the machine's fastest (else one of `NativeKernels.float_loops`, tests)."""
    n, k = matrix.shape
    packed, padded_bias = pack_float_weights(matrix.float()), pad_bias(bias.float())
    lo, hi = BOUNDS[act]
    loops = native.float_vector if loops is None else loops

    epilogue = [_native.EPILOGUE_NONE]   # set by fuse_epilogue

    def into(xs: list, _p, outs: list) -> bool:
        if geometry is None:
            native.float_gemm(xs[0].contiguous().view(-1, k), packed, n, padded_bias, lo, hi, outs[0], loops,
                              epilogue[0])
        else:
            native.float_conv(xs[0].contiguous(), geometry, packed, n, padded_bias, lo, hi, outs[0], loops,
                              epilogue[0])
        return True

    run = _writing(into, lambda xs: out_shape)
    run.epilogue = epilogue
    what = loops or "plain C"
    return described(run, f"compiled float32 product ({what}){'' if geometry is None else ' over unrolled taps'}")


def _writing(into: Callable, shape: Callable[[list], Any]) -> Kernel:
    """The kernel that runs ``into`` on a fresh float32 tensor of ``shape(inputs)``; ``into`` stays
    reachable (the plan hands it its pool's buffers, compilation.py) and the kernel's work is its
    native calls, unless ``into`` says otherwise (native_runs.py)."""

    def run(xs: list, p) -> list:
        out = torch.empty(shape(xs), dtype=torch.float32)
        into(xs, p, [out])
        return [out]

    run.into = into
    run.replayable = True
    return run


def _geometry(p, in_shape: tuple[int, ...], kh: int, kw: int, out_shape: tuple[int, ...]) -> torch.Tensor:
    """[n, h, w, c, kh, kw, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left, oh, ow]."""
    n, h, w, c = in_shape
    left, _, top, _ = p.pads
    return torch.tensor([n, h, w, c, kh, kw, *p.stride, *p.dilation, top, left, out_shape[1], out_shape[2]],
                        dtype=torch.int64)


def conv_kernel(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel,
                loops: Optional[str] = None) -> Optional[Kernel]:
    """CONV_2D (ungrouped) or DEPTHWISE_CONV_2D (depth multiplier 1) of NHWC float32; None for
    the rest (the plan keeps ``reference``)."""
    native = _usable(p, ins, outs)
    if native is None:
        return None
    w, groups = p.weight, getattr(p, "groups", 1)
    in_shape, out_shape = tuple(ins[0].shape), tuple(outs[0].shape)
    channels, per_group, kh, kw = w.shape
    if groups == 1:
        matrix = w.permute(0, 2, 3, 1).reshape(channels, kh * kw * per_group)   # (ky, kx, c) order
        if (kh, kw) == (1, 1) and tuple(p.stride) == (1, 1) and not any(p.pads):
            return gemm_kernel(native, matrix, p.bias, p.act, out_shape, loops=loops)
        if in_shape[3] < UNROLL_MIN_CHANNELS:
            return None
        return gemm_kernel(native, matrix, p.bias, p.act, out_shape, _geometry(p, in_shape, kh, kw, out_shape),
                           loops)
    if groups != channels or per_group != 1:
        return None
    return depthwise_kernel(native, p, in_shape, out_shape, loops)


def depthwise_kernel(native: _native.NativeKernels, p, in_shape: tuple[int, ...], out_shape: tuple[int, ...],
                     loops: Optional[str] = None) -> Kernel:
    """The compiled NHWC depthwise loop, bias and activation fused."""
    channels, _, kh, kw = p.weight.shape
    weights = p.weight[:, 0].permute(1, 2, 0).contiguous()     # [kh, kw, c]
    bias = p.bias.reshape(-1).contiguous()
    geometry = _geometry(p, in_shape, kh, kw, out_shape)
    lo, hi = BOUNDS[p.act]
    loops = native.float_vector if loops is None else loops

    epilogue = [_native.EPILOGUE_NONE]   # set by fuse_epilogue

    def into(xs: list, _p, outs: list) -> bool:
        native.float_depthwise(xs[0].contiguous(), geometry, weights, bias, lo, hi, outs[0], loops, epilogue[0])
        return True

    run = _writing(into, lambda xs: out_shape)
    run.epilogue = epilogue

    return described(run, f"compiled float32 depthwise convolution ({loops or 'plain C'})")


def fully_connected_kernel(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel,
                           loops: Optional[str] = None) -> Optional[Kernel]:
    """FULLY_CONNECTED of float32 rows with constant weights [units, input_size]."""
    native = _usable(p, ins, outs)
    if native is None or p.weight.dim() != 2:
        return None
    return gemm_kernel(native, p.weight, p.bias, p.act, tuple(outs[0].shape), loops=loops)


# Below this many elements torch's own call costs less than the compiled loop's checks and call
# (a language model's decode step: LOGISTIC / MUL of one token's 576-1536 values ran 30% slower).
MIN_ELEMENTWISE = 8192
# A broadcast row shorter than this (a scalar: a language model's scaling) is torch's: the loop
# runs one row at a time (a [9, 256, 64, 1] x [1] product took 0.4 ms, element by element).
MIN_ROW = 16


def _small(shape: Optional[Sequence[int]]) -> bool:
    """Whether a shape is unknown until execution (a dynamic one: the plan keeps torch, which
    writes into its buffers as before) or holds fewer than MIN_ELEMENTWISE elements."""
    return shape is None or math.prod(shape) < MIN_ELEMENTWISE


def logistic_kernel(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel,
                    silu: bool = False) -> Optional[Kernel]:
    """Float32 LOGISTIC by the compiled loop (nnapi_host_elementwise.c), on the kernel pool;
    ``silu``: x times its logistic (what `silu_kernel` makes of MUL(x, LOGISTIC(x))). None for a
    small static tensor (torch's call is cheaper)."""
    native = _native.kernels()
    if native is None or ins[0].dtype != torch.float32 or outs[0].dtype != torch.float32 or _small(ins[0].shape):
        return None

    def into(xs: list, _p, outs: list) -> bool:
        x, out = xs[0], outs[0]
        if out.is_contiguous() and out.shape == x.shape and x.is_contiguous() and x.numel() >= MIN_ELEMENTWISE:
            native.float_logistic(x, out, silu)
        elif silu:   # small or strided: torch, rounding as the two operations do
            native.computed_otherwise()
            torch.mul(x, torch.sigmoid(x), out=out)
        else:
            native.computed_otherwise()
            torch.sigmoid(x, out=out)
        return True

    run = _writing(into, lambda xs: xs[0].shape)
    run.float_logistic = not silu   # a MUL(x, this(x)) step can become one SiLU step
    run.float_silu = silu           # ... and a SiLU step the epilogue of the convolution before it
    return described(run, "compiled float32 SiLU" if silu else "compiled float32 LOGISTIC")


def silu_kernel(reference: Kernel) -> Optional[Kernel]:
    """MUL(x, LOGISTIC(x)) of float32 with no fused activation as one compiled pass (the logistic
    rounded to float32 before the product, as the two operations round)."""
    return logistic_kernel(None, [OperandInfo(torch.float32, (MIN_ELEMENTWISE,))],
                           [OperandInfo(torch.float32, (MIN_ELEMENTWISE,))], reference, silu=True)


def fuse_epilogue(kernel: Kernel, step: Kernel, op_name: str, step_shape: Optional[Sequence[int]]) -> bool:
    """Make the compiled float32 convolution or product ``kernel`` apply the activation of the
    step after it (function ``step`` of operation ``op_name``) to its results as it writes them
    (nnapi_host_float.c's epilogue), in place of that step; returns whether it did. Taken: a SiLU
    step the compiled loop runs (the same float32 operations; a small or dynamic shape runs
    torch's sigmoid, other roundings: not taken) and a float32 HARD_SWISH, which runs torch's
    hardswish (the epilogue performs its operations in its order) at any static shape."""
    flag = getattr(kernel, "epilogue", None)
    if flag is None or flag[0] != _native.EPILOGUE_NONE or step_shape is None:
        return False
    if getattr(step, "float_silu", False) and not _small(step_shape):
        flag[0], name = _native.EPILOGUE_SILU, "SiLU"
    elif op_name == "HARD_SWISH" and getattr(step, "prepared", None) is None:
        flag[0], name = _native.EPILOGUE_HARD_SWISH, "HARD_SWISH"
    else:
        return False
    kernel.prepared = f"{kernel.prepared}, then {name}"
    return True


def _row_period(full: torch.Tensor, row: torch.Tensor, small: bool = False) -> int:
    """The length of ``row`` when it is one row of ``full``'s last dimension ([C] or [1, ..., 1, C],
    of no higher rank), else 0; with ``small``, any length, and 1 for a single value."""
    c = full.shape[-1] if full.dim() else 0
    if small and row.numel() == 1 and row.dim() <= full.dim():
        return 1
    if row.dim() > full.dim() or row.numel() != c or (c < MIN_ROW and not small) or (row.dim() and row.shape[-1] != c):
        return 0
    return c


def _mul_form(a: tuple, b: tuple, small: bool = False) -> bool:
    """Whether the compiled MUL takes these static shapes: equal, or one a row of the other (with
    ``small``, a row of any length or a single value)."""
    def row_of(full: tuple, row: tuple) -> bool:
        if small and math.prod(row) == 1 and len(row) <= len(full):
            return True
        return (bool(full) and len(row) <= len(full) and math.prod(row) == full[-1] and (not row or row[-1] == full[-1])
                and (full[-1] >= MIN_ROW or small))
    return a == b or row_of(a, b) or row_of(b, a)


def mul_kernel(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel) -> Optional[Kernel]:
    """Float32 MUL by the compiled loop when both inputs have one shape or one is a row of the
    other's last dimension (a squeeze-and-excite scale), with its fused activation; other
    broadcasts run the reference."""
    return _binary_kernel(p, ins, outs, add=False)


def add_kernel(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel) -> Optional[Kernel]:
    """Float32 ADD (a residual connection) by the compiled loop, on the shapes `mul_kernel` takes:
    one float32 sum per element, as torch.add rounds it, then the fused activation."""
    return _binary_kernel(p, ins, outs, add=True)


def _binary_kernel(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], add: bool) -> Optional[Kernel]:
    """MUL or ADD by the compiled loop. A small static tensor (a squeeze-and-excite gate and its
    scaling by a single value) takes torch's call as a step of its own, cheaper than the library's,
    and the compiled loop in a native run (native_runs.py), where it costs no call: both give the
    same bytes (one float32 rounding per element, the same clamp)."""
    native = _native.kernels()
    if (native is None or len(ins) < 2 or any(i.dtype != torch.float32 for i in ins[:2])
            or outs[0].dtype != torch.float32 or p.act not in BOUNDS or outs[0].shape is None):
        return None
    small = _small(outs[0].shape)
    a_shape, b_shape = ins[0].shape, ins[1].shape
    if a_shape is not None and b_shape is not None and not _mul_form(tuple(a_shape), tuple(b_shape), small):
        return None   # another broadcast, known now: the plan keeps the reference

    def into(xs: list, _q, outs: list) -> bool:
        a, b, out = xs[0], xs[1], outs[0]
        period = a.numel() if a.shape == b.shape else _row_period(a, b, small)
        if period == 0 and (period := _row_period(b, a, small)):
            a, b = b, a
        compiled = a.numel() >= MIN_ELEMENTWISE or native.recording_now()
        if (period and compiled and out.shape == a.shape and out.is_contiguous() and a.is_contiguous()
                and b.is_contiguous() and native.float_mul(a, b, period, p.act, out, add)):
            return True
        # Another broadcast, a strided input or a small tensor: torch into the same buffer (a
        # fresh tensor would cost its page faults at every execution).
        native.computed_otherwise()
        (torch.add if add else torch.mul)(xs[0], xs[1], out=out)
        activate_(out, p.act)
        return True

    run = _writing(into, lambda xs: torch.broadcast_shapes(xs[0].shape, xs[1].shape))
    if not add:
        run.float_mul_act = p.act   # a SiLU's MUL (compilation.py)
    return described(run, f"compiled float32 {'ADD' if add else 'MUL'}")


def mean_kernel(p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo], reference: Kernel) -> Optional[Kernel]:
    """Float32 MEAN over consecutive dims of a static tensor with rows of MIN_ROW values or more
    after them (a global average pool: NHWC over H and W) by the compiled loop: each sum in
    float64, one rounding to float32 (torch sums in float32: the two differ by float32 rounding)."""
    native, x = _native.kernels(), ins[0]
    if (native is None or x.dtype != torch.float32 or outs[0].dtype != torch.float32 or x.shape is None
            or 0 in x.shape or outs[0].shape is None):
        return None
    axes, shape = tuple(p.axes), tuple(x.shape)
    if axes != tuple(range(axes[0], axes[-1] + 1)):
        return None
    batches, rows, channels = (math.prod(shape[:axes[0]]), math.prod(shape[axes[0]:axes[-1] + 1]),
                               math.prod(shape[axes[-1] + 1:]))
    if channels < MIN_ROW:
        return None
    out_shape = tuple(outs[0].shape)

    def into(xs: list, _p, outs: list) -> bool:
        x, out = xs[0], outs[0]
        if not x.is_contiguous() or not out.is_contiguous():
            native.computed_otherwise()   # a copy made here
            result = torch.empty(out_shape, dtype=torch.float32)
            native.float_mean(x.contiguous(), batches, rows, channels, result)
            out.copy_(result)
            return True
        native.float_mean(x, batches, rows, channels, out)
        return True

    run = _writing(into, lambda xs: out_shape)
    return described(run, "compiled float32 MEAN (float64 sums)")


# Operation name -> maker(params, inputs, outputs, reference kernel) -> kernel or None.
FLOAT_MAKERS = {
    "CONV_2D": conv_kernel,
    "DEPTHWISE_CONV_2D": conv_kernel,
    "FULLY_CONNECTED": fully_connected_kernel,
    "LOGISTIC": logistic_kernel,
    "MUL": mul_kernel,
    "ADD": add_kernel,
    "MEAN": mean_kernel,
}
