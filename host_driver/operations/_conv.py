"""Shared parts of CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D and TRANSPOSE_CONV_2D.

Their inputs follow one pattern: 0 input, 1 filter, 2 bias, then four explicit pads (left, right,
top, bottom) or one padding code (TRANSPOSE_CONV_2D's implicit form has an output-shape tensor
before it), stride_w, stride_h, an op-specific INT32 for some (depth_multiplier, num_groups), the
fused activation, the layout flag and, for CONV_2D and DEPTHWISE_CONV_2D, an optional dilation pair.
Each op module keeps only what is specific to it: its input counts, filter layout and output size.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import torch
import torch.nn.functional as F

from ..operand_types import INT32, type_name
from . import _qkernels as qk
from .common import (
    F16, F32, I32T, QA8, QA8S, QS8PC, Ctx, activate_, check_pads, check_positive, f32, from_nchw,
    fuse_code, implicit_padding, layout_dims, layout_flag, layout_value, nhwc_dims, out_size, pad_nhwc,
    padding_code, to_nchw,
)

CONV_TYPES = {F32: 27, QA8: 27, F16: 29, QA8S: 30}
CONV_TYPES_29 = {F32: 29, F16: 29, QA8: 29, QA8S: 30}


def conv_types(c: Ctx, input_types: dict[int, int], channel_dim: int) -> None:
    """Input/filter/bias/output type configurations (docs/nnapi_facts.md §6.3)."""
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
    qk.check_bias_quant(c)
    if ft != QS8PC:
        prod = f32(c.operand(0).scale * c.operand(1).scale)
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


def padding_form(c: Ctx, implicit: int, explicit: int, optional: bool) -> bool:
    """Check the input count; True for the explicit-padding form.

    `implicit` / `explicit` count the inputs of each form without optional ones; with `optional`
    the layout flag (+1) and the dilation pair (+2 more) may follow.
    """
    counts = {implicit, explicit}
    if optional:
        counts |= {implicit + 1, implicit + 3, explicit + 1, explicit + 3}
    c.counts(counts)
    if optional and c.n_in == implicit + 3:
        # Explicit padding alone, or implicit with layout and dilation: the type at `implicit`
        # (INT32 pad_bottom or BOOL layout) tells them apart.
        return c.type(implicit) == INT32
    return c.n_in >= explicit


@dataclasses.dataclass(frozen=True)
class ConvScalars:
    """Where a convolution's padding and strides are, and its decoded op-specific scalars."""

    explicit: bool
    pad_at: int
    stride_at: int
    extra: Optional[int]          # depth_multiplier / num_groups (checked > 0)
    dilation: tuple[int, int]     # (width, height); (1, 1) when not given


def decode_scalars(c: Ctx, explicit: bool, *, first: int = 3, extra: str = "", layout_required: bool = False,
                   dilation: bool = False) -> ConvScalars:
    """Check the scalar inputs from `first` on; set p.act and p.nchw.

    `extra` names the INT32 between the strides and the fused activation, if the op has one;
    `dilation`: the op accepts the optional dilation pair after the layout flag (API 29).
    """
    names = ["pad_left", "pad_right", "pad_top", "pad_bottom"] if explicit else ["padding code"]
    names += ["stride_w", "stride_h"] + ([extra] if extra else []) + ["fused activation"]
    scalars(c, first, names)
    stride_at = first + (4 if explicit else 1)
    act_at = first + len(names) - 1
    layout_at, dil_at = act_at + 1, act_at + 2
    layout_flag(c, layout_at, required=layout_required)
    has_dilation = dilation and c.n_in > dil_at
    if has_dilation:
        scalars(c, dil_at, ["dilation_w", "dilation_h"])
        c.require_level(29, "dilation")
    c.p.act = fuse_code(c, act_at)
    c.p.nchw = layout_value(c, layout_at)
    extra_value = None
    if extra:
        extra_value = c.value(stride_at + 2, extra)
        if extra_value <= 0:
            c.fail(f"input {stride_at + 2} ({extra}) must be > 0, got {extra_value}")
    dil = (c.value(dil_at), c.value(dil_at + 1)) if has_dilation else (1, 1)
    return ConvScalars(explicit, first, stride_at, extra_value, dil)


def strides(c: Ctx, s: ConvScalars) -> tuple[int, int]:
    """(stride_w, stride_h), checked > 0."""
    sw, sh = c.value(s.stride_at, "stride_w"), c.value(s.stride_at + 1, "stride_h")
    check_positive(c, stride_w=sw, stride_h=sh)
    return sw, sh


def input_dims(c: Ctx) -> tuple[int, int, int, int]:
    """(N, H, W, C) of the rank-4 input 0 in the op's layout."""
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    return nhwc_dims(c.dims(0), c.p.nchw)


def filter_dims(c: Ctx, layout: str) -> tuple[int, ...]:
    """The rank-4 filter's dims; `layout` names them for the message."""
    fd = c.dims(1)
    if len(fd) != 4:
        c.fail(f"input 1 (filter) must have rank 4 [{layout}], got {list(fd)}")
    return fd


def geometry(c: Ctx, s: ConvScalars, *, in_h: int, in_w: int, k_h: int,
             k_w: int) -> tuple[tuple[int, int, int, int], int, int]:
    """Decode padding and strides (width first), check them and set p.pads/p.stride/p.dilation.

    Returns ((left, right, top, bottom), out_h, out_w).
    """
    if s.explicit:
        left, right, top, bottom = (c.value(s.pad_at + k) for k in range(4))
    else:
        code = padding_code(c, s.pad_at)
    dil_w, dil_h = s.dilation
    sw, sh = strides(c, s)
    check_positive(c, dilation_w=dil_w, dilation_h=dil_h)
    if not s.explicit:
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


def finish(c: Ctx, prepare_weight: Callable[[torch.Tensor], torch.Tensor], batches: int, out_h: int,
           out_w: int, depth_out: int) -> None:
    """Prepare a constant weight and bias once, and set the output's dims.

    Quantized: the weight becomes float64 (q_w - zp_w) for the integer accumulation and the
    requantization parameters are derived (docs/nnapi_facts.md §9.6).
    """
    c.p.quant = c.type(0) in (QA8, QA8S)
    if c.p.quant:
        qk.requant_conv(c, depth_out)
        prepare_weight = qk.offset_weight(prepare_weight, c.p.q_zp[1])
    c.p.prepare = prepare_weight
    w = c.const_tensor(1)
    c.p.weight = None if w is None else prepare_weight(w)
    c.p.bias = c.const_tensor(2)
    c.set_out(0, layout_dims(batches, out_h, out_w, depth_out, c.p.nchw))


def weight_and_bias(ins, p):
    """The prepared weight and the bias, from validate when they were constants."""
    w = p.weight if p.weight is not None else p.prepare(ins[1])
    b = p.bias if p.bias is not None else ins[2]
    return w, b


def compute_conv(ins, p, groups: int = 1) -> torch.Tensor:
    """The float or the quantized convolution of a validated CONV_2D/DEPTHWISE/GROUPED_CONV_2D."""
    w, b = weight_and_bias(ins, p)
    if p.quant:
        return qk.qconv2d(ins[0], w, b, p, groups)
    return conv2d(ins[0], w, b, p, groups)


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


def ohwi_to_oihw(w: torch.Tensor) -> torch.Tensor:
    """OHWI -> OIHW; a channels_last OIHW tensor is the OHWI buffer itself."""
    return channels_last(w.permute(0, 3, 1, 2))
