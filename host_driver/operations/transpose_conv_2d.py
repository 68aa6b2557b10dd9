"""TRANSPOSE_CONV_2D (91): transposed convolution; filter [depth_out, kh, kw, depth_in]."""

import torch
import torch.nn.functional as F

from . import _qkernels as qk
from ._conv import (
    CONV_TYPES_29, check_bias, check_per_channel, conv_types, decode_scalars, filter_dims, finish, input_dims,
    padding_form, strides, weight_and_bias,
)
from .common import I32T, PADDING_SAME, Ctx, activate_, from_nchw, nhwc_dims, padding_code, to_nchw

NAME, CODE, SINCE = "TRANSPOSE_CONV_2D", 91, 29
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    explicit = padding_form(c, 9, 11, optional=False)
    conv_types(c, CONV_TYPES_29, channel_dim=0)
    if not explicit:
        c.tensor(3, {I32T: 29}, "output shape")
    s = decode_scalars(c, explicit, first=3 if explicit else 4, layout_required=True)
    sw, sh = strides(c, s)
    check_per_channel(c, 0)
    batches, in_h, in_w, in_c = input_dims(c)
    depth_out, k_h, k_w, depth_in = filter_dims(c, "depth_out, filter_h, filter_w, depth_in")
    if depth_in != in_c:
        c.fail(f"filter depth_in {depth_in} does not match the input's {in_c} channels")
    check_bias(c, depth_out)
    if explicit:
        left, right, top, bottom = (c.value(3 + k) for k in range(4))
    else:
        shape = c.ints(3, "output shape")
        if len(shape) != 4:
            c.fail(f"input 3 (output shape) must have 4 elements, got {shape}")
        _, o_h, o_w, _ = nhwc_dims(shape, c.p.nchw)
        code = padding_code(c, 4)
        left, right = _implicit(code, o_w, sw, k_w)
        top, bottom = _implicit(code, o_h, sh, k_h)
    # Right/bottom may be negative (that is how NNAPI expresses output_padding); left/top not.
    for name, v in (("pad_left", left), ("pad_top", top)):
        if v < 0:
            c.fail(f"{name} must be >= 0, got {v}")
    out_h = in_h * sh + k_h - sh - top - bottom
    out_w = in_w * sw + k_w - sw - left - right
    if out_h <= 0 or out_w <= 0:
        c.fail(f"output size {out_h}x{out_w} is not positive")
    c.p.pads = (left, right, top, bottom)
    c.p.stride = (sh, sw)
    finish(c, prepare_weight, batches, out_h, out_w, depth_out)


def _implicit(code: int, out: int, stride: int, k: int) -> tuple[int, int]:
    """Padding derived from the requested output size (AOSP calculateExplicitPaddingTransposeConv)."""
    if code != PADDING_SAME:
        return 0, 0
    tmp = ((out + stride - 1) // stride - 1) * stride + k
    head = (tmp - out) // 2 if tmp > out else 0
    return head, tmp - out - head


def prepare_weight(w):
    """[O, kh, kw, I] -> torch's [I, O, kh, kw]."""
    return w.permute(3, 0, 1, 2).contiguous()


def compute(ins, p):
    w, b = weight_and_bias(ins, p)
    x = ins[0].to(torch.float64) - p.q_zp[0] if p.quant else ins[0]
    y = F.conv_transpose2d(to_nchw(x, p.nchw), w, None, p.stride)
    left, right, top, bottom = p.pads
    # Full output is (in-1)*s + k; NNAPI crops head/tail (a negative tail extends it with zeros).
    y = F.pad(y, (-left, -right, -top, -bottom))
    if p.quant:
        # Integer accumulation (exact in float64), then the convolution's requantization (docs/nnapi_facts.md §9.6).
        acc = y.round().to(torch.int64) + b.to(torch.int64).view(1, -1, 1, 1)
        return [from_nchw(qk.requantize_acc(acc, p, 1), p.nchw)]
    if b is not None:
        y = y + b.view(1, -1, 1, 1)
    return [from_nchw(activate_(y, p.act), p.nchw)]
