"""GROUPED_CONV_2D (55): grouped convolution; filter [depth_out, kh, kw, depth_group]."""

from ._conv import (
    CONV_TYPES_29, check_bias, check_per_channel, compute_conv, conv_types, decode_scalars, filter_dims,
    finish, geometry, input_dims, ohwi_to_oihw, padding_form,
)
from .common import Ctx

NAME, CODE, SINCE = "GROUPED_CONV_2D", 55, 29
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    explicit = padding_form(c, 9, 12, optional=False)
    conv_types(c, CONV_TYPES_29, channel_dim=0)
    s = decode_scalars(c, explicit, extra="num_groups", layout_required=True)
    groups = s.extra
    check_per_channel(c, 0)
    batches, in_h, in_w, in_c = input_dims(c)
    depth_out, k_h, k_w, depth_group = filter_dims(c, "depth_out, filter_h, filter_w, depth_group")
    if in_c != groups * depth_group:
        c.fail(f"input channels {in_c} must equal num_groups {groups} * filter depth_group {depth_group}")
    if depth_out % groups:
        c.fail(f"filter depth_out {depth_out} must be divisible by num_groups {groups}")
    check_bias(c, depth_out)
    _, out_h, out_w = geometry(c, s, in_h=in_h, in_w=in_w, k_h=k_h, k_w=k_w)
    c.p.groups = groups
    finish(c, ohwi_to_oihw, batches, out_h, out_w, depth_out)


def compute(ins, p):
    return [compute_conv(ins, p, groups=p.groups)]
