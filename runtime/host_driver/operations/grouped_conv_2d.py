"""GROUPED_CONV_2D (55): grouped convolution; filter [depth_out, kh, kw, depth_group]."""

from ._conv import (
    CONV_TYPES_29, channels_last, check_bias, check_per_channel, conv2d, conv_types, geometry, prepare_bias,
    scalars,
)
from .common import Ctx, fuse_code, layout_dims, layout_flag, layout_value, nhwc_dims

NAME, CODE, SINCE = "GROUPED_CONV_2D", 55, 29
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    c.counts((9, 12))
    explicit = c.n_in == 12
    conv_types(c, CONV_TYPES_29, channel_dim=0)
    if explicit:
        scalars(c, 3, ["pad_left", "pad_right", "pad_top", "pad_bottom", "stride_w", "stride_h", "num_groups",
                       "fused activation"])
        groups_at, act_at, layout_at, pad_at, stride_at = 9, 10, 11, 3, 7
    else:
        scalars(c, 3, ["padding code", "stride_w", "stride_h", "num_groups", "fused activation"])
        groups_at, act_at, layout_at, pad_at, stride_at = 6, 7, 8, 3, 4
    layout_flag(c, layout_at, required=True)
    c.p.act = fuse_code(c, act_at)
    c.p.nchw = nchw = layout_value(c, layout_at)
    groups = c.value(groups_at, "num_groups")
    if groups <= 0:
        c.fail(f"input {groups_at} (num_groups) must be > 0, got {groups}")
    check_per_channel(c, 0)
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    batches, in_h, in_w, in_c = nhwc_dims(c.dims(0), nchw)
    fd = c.dims(1)
    if len(fd) != 4:
        c.fail(f"input 1 (filter) must have rank 4 [depth_out, filter_h, filter_w, depth_group], got {list(fd)}")
    depth_out, k_h, k_w, depth_group = fd
    if in_c != groups * depth_group:
        c.fail(f"input channels {in_c} must equal num_groups {groups} * filter depth_group {depth_group}")
    if depth_out % groups:
        c.fail(f"filter depth_out {depth_out} must be divisible by num_groups {groups}")
    check_bias(c, depth_out)
    _, out_h, out_w = geometry(c, explicit=explicit, pad_at=pad_at, stride_at=stride_at, in_h=in_h, in_w=in_w,
                               k_h=k_h, k_w=k_w)
    c.p.groups = groups
    w = c.const_tensor(1)
    c.p.weight = None if w is None else prepare_weight(w)
    prepare_bias(c)
    c.set_out(0, layout_dims(batches, out_h, out_w, depth_out, nchw))


def prepare_weight(w):
    return channels_last(w.permute(0, 3, 1, 2))


def compute(ins, p):
    w = p.weight if p.weight is not None else prepare_weight(ins[1])
    b = p.bias if p.bias is not None else ins[2]
    return [conv2d(ins[0], w, b, p, groups=p.groups)]
