"""CONV_2D (3): 2-D convolution, NHWC input, OHWI filter, explicit or implicit padding."""

from ._conv import (
    CONV_TYPES, check_bias, check_per_channel, compute_conv, conv_types, decode_scalars, filter_dims, finish,
    geometry, input_dims, ohwi_to_oihw, padding_form,
)
from .common import Ctx

NAME, CODE, SINCE = "CONV_2D", 3, 27
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    explicit = padding_form(c, 7, 10, optional=True)
    conv_types(c, CONV_TYPES, channel_dim=0)
    s = decode_scalars(c, explicit, dilation=True)
    check_per_channel(c, 0)
    batches, in_h, in_w, in_c = input_dims(c)
    depth_out, k_h, k_w, depth_in = filter_dims(c, "depth_out, filter_h, filter_w, depth_in")
    if depth_in != in_c:
        c.fail(f"filter depth_in {depth_in} does not match the input's {in_c} channels "
               "(grouped convolution needs GROUPED_CONV_2D or DEPTHWISE_CONV_2D)")
    check_bias(c, depth_out)
    _, out_h, out_w = geometry(c, s, in_h=in_h, in_w=in_w, k_h=k_h, k_w=k_w)
    finish(c, ohwi_to_oihw, batches, out_h, out_w, depth_out)


def compute(ins, p):
    return [compute_conv(ins, p)]
