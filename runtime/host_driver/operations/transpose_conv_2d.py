"""TRANSPOSE_CONV_2D (91): transposed convolution; filter [depth_out, kh, kw, depth_in]."""

import torch.nn.functional as F

from ._conv import CONV_TYPES_29, check_bias, check_per_channel, conv_types, prepare_bias, scalars
from .common import (
    I32T, Ctx, PADDING_SAME, activate_, check_positive, from_nchw, fuse_code, layout_dims, layout_flag,
    layout_value, nhwc_dims, padding_code, to_nchw,
)

NAME, CODE, SINCE = "TRANSPOSE_CONV_2D", 91, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    c.counts((9, 11))
    explicit = c.n_in == 11
    conv_types(c, CONV_TYPES_29, channel_dim=0)
    if explicit:
        scalars(c, 3, ["pad_left", "pad_right", "pad_top", "pad_bottom", "stride_w", "stride_h",
                       "fused activation"])
        act_at, layout_at, stride_at = 9, 10, 7
    else:
        c.tensor(3, {I32T: 29}, "output shape")
        scalars(c, 4, ["padding code", "stride_w", "stride_h", "fused activation"])
        act_at, layout_at, stride_at = 7, 8, 5
    layout_flag(c, layout_at, required=True)
    c.p.act = fuse_code(c, act_at)
    c.p.nchw = nchw = layout_value(c, layout_at)
    sw, sh = c.value(stride_at, "stride_w"), c.value(stride_at + 1, "stride_h")
    check_positive(c, stride_w=sw, stride_h=sh)
    check_per_channel(c, 0)
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    batches, in_h, in_w, in_c = nhwc_dims(c.dims(0), nchw)
    fd = c.dims(1)
    if len(fd) != 4:
        c.fail(f"input 1 (filter) must have rank 4 [depth_out, filter_h, filter_w, depth_in], got {list(fd)}")
    depth_out, k_h, k_w, depth_in = fd
    if depth_in != in_c:
        c.fail(f"filter depth_in {depth_in} does not match the input's {in_c} channels")
    check_bias(c, depth_out)
    if explicit:
        left, right, top, bottom = (c.value(3 + k) for k in range(4))
    else:
        shape = c.ints(3, "output shape")
        if len(shape) != 4:
            c.fail(f"input 3 (output shape) must have 4 elements, got {shape}")
        _, o_h, o_w, _ = nhwc_dims(shape, nchw)
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
    w = c.const_tensor(1)
    c.p.weight = None if w is None else prepare_weight(w)
    prepare_bias(c)
    c.set_out(0, layout_dims(batches, out_h, out_w, depth_out, nchw))


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
    w = p.weight if p.weight is not None else prepare_weight(ins[1])
    b = p.bias if p.bias is not None else ins[2]
    y = F.conv_transpose2d(to_nchw(ins[0], p.nchw), w, None, p.stride)
    left, right, top, bottom = p.pads
    # Full output is (in-1)*s + k; NNAPI crops head/tail (a negative tail extends it with zeros).
    y = F.pad(y, (-left, -right, -top, -bottom))
    if b is not None:
        y = y + b.view(1, -1, 1, 1)
    return [from_nchw(activate_(y, p.act), p.nchw)]
