"""DEPTHWISE_CONV_2D (4): per-channel convolution with a depth multiplier; filter [1, kh, kw, depth_out]."""

from ._conv import (
    CONV_TYPES, channels_last, check_bias, check_per_channel, conv2d, conv_types, geometry, prepare_bias,
    scalars,
)
from .common import INT32, Ctx, fuse_code, layout_dims, layout_flag, layout_value, nhwc_dims

NAME, CODE, SINCE = "DEPTHWISE_CONV_2D", 4, 27
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    c.counts((8, 9, 11, 12, 14))
    n = c.n_in
    # 11 inputs is explicit padding without layout, or implicit with layout and dilation:
    # the type of input 8 tells them apart.
    explicit = n in (12, 14) or (n == 11 and c.type(8) == INT32)
    conv_types(c, CONV_TYPES, channel_dim=3)
    if explicit:
        scalars(c, 3, ["pad_left", "pad_right", "pad_top", "pad_bottom", "stride_w", "stride_h",
                       "depth_multiplier", "fused activation"])
        mult_at, act_at, layout_at, dil_at, pad_at, stride_at = 9, 10, 11, 12, 3, 7
    else:
        scalars(c, 3, ["padding code", "stride_w", "stride_h", "depth_multiplier", "fused activation"])
        mult_at, act_at, layout_at, dil_at, pad_at, stride_at = 6, 7, 8, 9, 3, 4
    layout_flag(c, layout_at)
    if n > dil_at:
        scalars(c, dil_at, ["dilation_w", "dilation_h"])
        c.require_level(29, "dilation")
    c.p.act = fuse_code(c, act_at)
    c.p.nchw = nchw = layout_value(c, layout_at)
    mult = c.value(mult_at, "depth_multiplier")
    if mult <= 0:
        c.fail(f"input {mult_at} (depth_multiplier) must be > 0, got {mult}")
    dil_w, dil_h = (c.value(dil_at), c.value(dil_at + 1)) if n > dil_at else (1, 1)
    check_per_channel(c, 3)
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    batches, in_h, in_w, in_c = nhwc_dims(c.dims(0), nchw)
    fd = c.dims(1)
    if len(fd) != 4 or fd[0] != 1:
        c.fail(f"input 1 (filter) must have shape [1, filter_h, filter_w, depth_out], got {list(fd)}")
    _, k_h, k_w, depth_out = fd
    if depth_out != in_c * mult:
        c.fail(f"filter depth_out {depth_out} must equal input channels {in_c} * depth_multiplier {mult}")
    check_bias(c, depth_out)
    _, out_h, out_w = geometry(c, explicit=explicit, pad_at=pad_at, stride_at=stride_at, in_h=in_h, in_w=in_w,
                               k_h=k_h, k_w=k_w, dil_h=dil_h, dil_w=dil_w)
    c.p.groups = in_c
    w = c.const_tensor(1)
    c.p.weight = None if w is None else prepare_weight(w)
    prepare_bias(c)
    c.set_out(0, layout_dims(batches, out_h, out_w, depth_out, nchw))


def prepare_weight(w):
    """[1, kh, kw, Cin*m] -> [Cin*m, 1, kh, kw]: torch groups=Cin gives out channel k*m+q input k."""
    return channels_last(w.permute(3, 0, 1, 2))


def compute(ins, p):
    w = p.weight if p.weight is not None else prepare_weight(ins[1])
    b = p.bias if p.bias is not None else ins[2]
    return [conv2d(ins[0], w, b, p, groups=p.groups)]
