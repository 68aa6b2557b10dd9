"""DEPTHWISE_CONV_2D (4): per-channel convolution with a depth multiplier; filter [1, kh, kw, depth_out]."""

from ._conv import (
    CONV_TYPES, channels_last, check_bias, check_per_channel, compute_conv, conv_types, decode_scalars,
    filter_dims, finish, geometry, input_dims, padding_form,
)
from .common import Ctx

NAME, CODE, SINCE = "DEPTHWISE_CONV_2D", 4, 27
QUANT_COMPUTE = True
FILTER_LAYOUT = "1, filter_h, filter_w, depth_out"


def validate(c: Ctx) -> None:
    explicit = padding_form(c, 8, 11, optional=True)
    conv_types(c, CONV_TYPES, channel_dim=3)
    check_filter_layout(c)
    s = decode_scalars(c, explicit, extra="depth_multiplier", dilation=True)
    check_per_channel(c, 3)
    batches, in_h, in_w, in_c = input_dims(c)
    fd = filter_dims(c, FILTER_LAYOUT)
    if fd[0] != 1:
        _wrong_filter_shape(c, fd)
    _, k_h, k_w, depth_out = fd
    if depth_out != in_c * s.extra:
        c.fail(f"filter depth_out {depth_out} must equal input channels {in_c} * depth_multiplier {s.extra}")
    check_bias(c, depth_out)
    _, out_h, out_w = geometry(c, s, in_h=in_h, in_w=in_w, k_h=k_h, k_w=k_w)
    c.p.groups = in_c
    finish(c, prepare_weight, batches, out_h, out_w, depth_out)


def check_filter_layout(c: Ctx) -> None:
    """The filter's rank and first dim need no values: checked on its declared dims already, so
    that such a model is refused by addOperation (0: a dim not known yet, checked later)."""
    fd = c.partial_dims(1)
    if len(fd) != 4:
        c.fail(f"input 1 (filter) must have rank 4 [{FILTER_LAYOUT}], got {_shown(fd)}")
    if fd[0] not in (0, 1):
        _wrong_filter_shape(c, fd)


def _wrong_filter_shape(c: Ctx, fd: tuple[int, ...]) -> None:
    c.fail(f"input 1 (filter) must have shape [{FILTER_LAYOUT}], got {_shown(fd)}")


def _shown(dims: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) if d else "?" for d in dims) + "]"


def prepare_weight(w):
    """[1, kh, kw, Cin*m] -> [Cin*m, 1, kh, kw]: torch groups=Cin gives out channel k*m+q input k."""
    return channels_last(w.permute(3, 0, 1, 2))


def compute(ins, p):
    return [compute_conv(ins, p, groups=p.groups)]
