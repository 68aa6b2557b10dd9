"""CONV_2D (3): 2-D convolution, NHWC input, OHWI filter, explicit or implicit padding."""

from ._conv import (
    CONV_TYPES, channels_last, check_bias, check_per_channel, conv2d, conv_types, geometry, prepare_bias,
    scalars,
)
from .common import INT32, Ctx, fuse_code, layout_dims, layout_flag, layout_value, nhwc_dims

NAME, CODE, SINCE = "CONV_2D", 3, 27
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    c.counts((7, 8, 10, 11, 13))
    n = c.n_in
    # 10 inputs is explicit padding without layout, or implicit with layout and dilation:
    # the type of input 7 tells them apart.
    explicit = n in (11, 13) or (n == 10 and c.type(7) == INT32)
    conv_types(c, CONV_TYPES, channel_dim=0)
    if explicit:
        scalars(c, 3, ["pad_left", "pad_right", "pad_top", "pad_bottom", "stride_w", "stride_h",
                       "fused activation"])
        act_at, layout_at, dil_at, pad_at, stride_at = 9, 10, 11, 3, 7
    else:
        scalars(c, 3, ["padding code", "stride_w", "stride_h", "fused activation"])
        act_at, layout_at, dil_at, pad_at, stride_at = 6, 7, 8, 3, 4
    layout_flag(c, layout_at)
    if n > dil_at:
        scalars(c, dil_at, ["dilation_w", "dilation_h"])
        c.require_level(29, "dilation")
    c.p.act = fuse_code(c, act_at)
    c.p.nchw = nchw = layout_value(c, layout_at)
    dil_w, dil_h = (c.value(dil_at), c.value(dil_at + 1)) if n > dil_at else (1, 1)
    check_per_channel(c, 0)
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    batches, in_h, in_w, in_c = nhwc_dims(c.dims(0), nchw)
    fd = c.dims(1)
    if len(fd) != 4:
        c.fail(f"input 1 (filter) must have rank 4 [depth_out, filter_h, filter_w, depth_in], got {list(fd)}")
    depth_out, k_h, k_w, depth_in = fd
    if depth_in != in_c:
        c.fail(f"filter depth_in {depth_in} does not match the input's {in_c} channels "
               "(grouped convolution needs GROUPED_CONV_2D or DEPTHWISE_CONV_2D)")
    check_bias(c, depth_out)
    _, out_h, out_w = geometry(c, explicit=explicit, pad_at=pad_at, stride_at=stride_at, in_h=in_h, in_w=in_w,
                               k_h=k_h, k_w=k_w, dil_h=dil_h, dil_w=dil_w)
    w = c.const_tensor(1)
    c.p.weight = None if w is None else prepare_weight(w)
    prepare_bias(c)
    c.set_out(0, layout_dims(batches, out_h, out_w, depth_out, nchw))


def prepare_weight(w):
    """OHWI -> OIHW; a channels_last OIHW tensor is the OHWI buffer itself."""
    return channels_last(w.permute(0, 3, 1, 2))


def compute(ins, p):
    w = p.weight if p.weight is not None else prepare_weight(ins[1])
    b = p.bias if p.bias is not None else ins[2]
    return [conv2d(ins[0], w, b, p)]
