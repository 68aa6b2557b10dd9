"""Shared parts of CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D and TRANSPOSE_CONV_2D."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..operand_types import INT32, type_name
from .common import (
    F16, F32, I32T, QA8, QA8S, QS8PC, Ctx, activate_, check_pads, check_positive, f32, from_nchw,
    implicit_padding, out_size, pad_nhwc, padding_code, to_nchw,
)

CONV_TYPES = {F32: 27, QA8: 27, F16: 29, QA8S: 30}
CONV_TYPES_29 = {F32: 29, F16: 29, QA8: 29, QA8S: 30}


def conv_types(c: Ctx, input_types: dict[int, int], channel_dim: int) -> None:
    """Input/filter/bias/output type configurations (reference §5.3 CONV_2D)."""
    t = c.tensor(0, input_types, "input")
    ft, bt = c.type(1), c.type(2)
    out = c.out_operand(0)
    if out.type != t:
        c.fail(f"output 0 has type {type_name(out.type)}, expected the input's type {type_name(t)}")
    if t in (F32, F16):
        if ft != t:
            c.fail(f"input 1 (filter) must have the input's type {type_name(t)}, got {type_name(ft)}")
        if bt != t:
            c.fail(f"input 2 (bias) must have the input's type {type_name(t)}, got {type_name(bt)}")
        return
    if ft == QS8PC:
        c.require_level(29, "a per-channel quantized filter")
    elif ft != t:
        c.fail(f"input 1 (filter) must be {type_name(t)} or TENSOR_QUANT8_SYMM_PER_CHANNEL, got {type_name(ft)}")
    if bt != I32T:
        c.fail(f"input 2 (bias) must be TENSOR_INT32 for a quantized input, got {type_name(bt)}")
    inp, filt, bias = c.operand(0), c.operand(1), c.operand(2)
    if bias.zero_point != 0:
        c.fail(f"input 2 (bias) must have zeroPoint 0, got {bias.zero_point}")
    if ft != QS8PC:
        prod = f32(inp.scale * filt.scale)
        if abs(prod - bias.scale) > 1e-6 * min(prod, bias.scale):
            c.fail(f"input 2 (bias) scale {bias.scale:g} must equal input scale * filter scale = {prod:g}")
        if t == QA8 and c.level < 29 and not out.scale > prod:
            c.fail(f"output scale {out.scale:g} must be greater than input scale * filter scale "
                   f"({prod:g}) below feature level 29")
    c.p.channel_dim = channel_dim


def check_per_channel(c: Ctx, channel_dim: int) -> None:
    """A QS8PC filter needs its per-channel scales along `channel_dim`."""
    if c.type(1) != QS8PC:
        return
    cq = c.channel_quant(1)
    if cq is None:
        c.fail("input 1 (filter) is per-channel quantized but has no channel quantization parameters")
    if cq[0] != channel_dim:
        c.fail(f"input 1 (filter) must be quantized along dimension {channel_dim}, got {cq[0]}")


def scalars(c: Ctx, first: int, names: list[str]) -> None:
    for k, name in enumerate(names):
        c.scalar(first + k, INT32, name)


def geometry(c: Ctx, *, explicit: bool, pad_at: int, stride_at: int, in_h: int, in_w: int, k_h: int,
             k_w: int, dil_h: int = 1, dil_w: int = 1) -> tuple[tuple[int, int, int, int], int, int]:
    """Decode padding and strides (width first), check them and set p.pads/p.stride/p.dilation.

    Returns ((left, right, top, bottom), out_h, out_w).
    """
    if explicit:
        left, right, top, bottom = (c.value(pad_at + k) for k in range(4))
    else:
        code = padding_code(c, pad_at)
    sw, sh = c.value(stride_at, "stride_w"), c.value(stride_at + 1, "stride_h")
    check_positive(c, stride_w=sw, stride_h=sh, dilation_w=dil_w, dilation_h=dil_h)
    if not explicit:
        left, right = implicit_padding(code, in_w, sw, k_w, dil_w)
        top, bottom = implicit_padding(code, in_h, sh, k_h, dil_h)
    ek_w, ek_h = (k_w - 1) * dil_w + 1, (k_h - 1) * dil_h + 1
    check_pads(c, {"pad_left": left, "pad_right": right, "pad_top": top, "pad_bottom": bottom}, ek_w, ek_h,
               "effective filter" if (dil_w, dil_h) != (1, 1) else "filter")
    out_h = out_size(c, "height", in_h, k_h, sh, top, bottom, dil_h)
    out_w = out_size(c, "width", in_w, k_w, sw, left, right, dil_w)
    c.p.pads = (left, right, top, bottom)
    c.p.stride = (sh, sw)
    c.p.dilation = (dil_h, dil_w)
    return (left, right, top, bottom), out_h, out_w


def check_bias(c: Ctx, n_out: int) -> None:
    bd = c.dims(2)
    if len(bd) != 1 or bd[0] != n_out:
        c.fail(f"input 2 (bias) must have shape [{n_out}], got {list(bd)}")


def prepare_bias(c: Ctx) -> None:
    """Float bias materialized once when constant."""
    c.p.bias = c.const_tensor(2) if c.type(0) in (F32, F16) else None


def conv2d(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None, p, groups: int = 1) -> torch.Tensor:
    """NNAPI convolution on an NHWC (or NCHW) tensor with an OIHW weight (channels_last)."""
    left, right, top, bottom = p.pads
    if left == right and top == bottom:
        x4, padding = to_nchw(x, p.nchw), (top, left)
    else:
        # torch pads symmetrically only; NNAPI's SAME puts the odd element at the end.
        x4, padding = to_nchw(pad_nhwc(x, left, right, top, bottom, nchw=p.nchw), p.nchw), (0, 0)
    y = F.conv2d(x4, w, b, p.stride, padding, p.dilation, groups)
    return from_nchw(activate_(y, p.act), p.nchw)


def channels_last(w: torch.Tensor) -> torch.Tensor:
    return w.contiguous(memory_format=torch.channels_last)
