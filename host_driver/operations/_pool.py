"""Shared parts of AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D (docs/nnapi_facts.md §6.4, §7.4)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..operand_types import INT32
from .common import (
    Ctx, check_pads, check_positive, fuse_code, implicit_padding, layout_dims, layout_flag, layout_value,
    nhwc_dims, out_size, padding_code,
)


def validate_pool(c: Ctx, types: dict[int, int]) -> None:
    """Explicit (10/11 inputs) or implicit (7/8 inputs) padding; sets p.kernel/stride/pads/act/nchw."""
    c.counts((7, 8, 10, 11))
    explicit = c.n_in >= 10
    c.tensor(0, types)
    names = (["pad_left", "pad_right", "pad_top", "pad_bottom"] if explicit else ["padding code"]) + [
        "stride_w", "stride_h", "filter_w", "filter_h", "fused activation"]
    for k, name in enumerate(names):
        c.scalar(1 + k, INT32, name)
    layout_at = len(names) + 1
    layout_flag(c, layout_at)
    c.out_like(0, 0)
    c.p.act = fuse_code(c, layout_at - 1)
    c.p.nchw = nchw = layout_value(c, layout_at)
    s_at = 5 if explicit else 2
    sw, sh, fw, fh = (c.value(s_at + k) for k in range(4))
    check_positive(c, stride_w=sw, stride_h=sh, filter_w=fw, filter_h=fh)
    if c.rank(0) != 4:
        c.fail(f"input 0 must have rank 4, got {c.rank(0)}")
    batches, in_h, in_w, ch = nhwc_dims(c.dims(0), nchw)
    if explicit:
        left, right, top, bottom = (c.value(1 + k) for k in range(4))
    else:
        code = padding_code(c, 1)
        left, right = implicit_padding(code, in_w, sw, fw)
        top, bottom = implicit_padding(code, in_h, sh, fh)
    check_pads(c, {"pad_left": left, "pad_right": right, "pad_top": top, "pad_bottom": bottom}, fw, fh)
    out_h = out_size(c, "height", in_h, fh, sh, top, bottom)
    out_w = out_size(c, "width", in_w, fw, sw, left, right)
    c.p.kernel, c.p.stride, c.p.pads = (fh, fw), (sh, sw), (left, right, top, bottom)
    # torch pads symmetrically and at most half the kernel; anything else is padded explicitly.
    c.p.torch_pad = (top, left) if left == right and top == bottom and 2 * left <= fw and 2 * top <= fh else None
    c.p.divisor = None
    if any(c.p.pads) and c.p.torch_pad is None:
        c.p.divisor = _in_bounds_factor(in_h, in_w, out_h, out_w, fh, fw, sh, sw, top, left)
    c.set_out(0, layout_dims(batches, out_h, out_w, ch, nchw))


def _counts(size: int, out: int, k: int, s: int, head: int) -> torch.Tensor:
    start = torch.arange(out) * s - head
    return (torch.clamp(start + k, max=size) - torch.clamp(start, min=0)).float()


def _in_bounds_factor(in_h, in_w, out_h, out_w, fh, fw, sh, sw, top, left) -> torch.Tensor:
    """kh*kw / (in-bounds window size): turns a zero-padded average into NNAPI's padding-excluded one."""
    count = _counts(in_h, out_h, fh, sh, top)[:, None] * _counts(in_w, out_w, fw, sw, left)[None, :]
    return (fh * fw) / count


def _padded(x: torch.Tensor, p, value: float) -> torch.Tensor:
    """NCHW view of x padded explicitly (torch_pad is None) with `value`."""
    left, right, top, bottom = p.pads
    if p.nchw:
        return F.pad(x, (left, right, top, bottom), value=value)
    # Pad in NHWC so the result stays a contiguous NHWC buffer (a channels_last NCHW view).
    return F.pad(x, (0, 0, left, right, top, bottom), value=value).permute(0, 3, 1, 2)


def average(x: torch.Tensor, p) -> torch.Tensor:
    """Padding-excluded average pool of the NCHW view of x (returns an NCHW view)."""
    x4 = x if p.nchw else x.permute(0, 3, 1, 2)
    if p.torch_pad is not None:
        return F.avg_pool2d(x4, p.kernel, p.stride, p.torch_pad, count_include_pad=False)
    y = F.avg_pool2d(_padded(x, p, 0.0), p.kernel, p.stride)
    return y * p.divisor


def maximum(x: torch.Tensor, p) -> torch.Tensor:
    x4 = x if p.nchw else x.permute(0, 3, 1, 2)
    if p.torch_pad is not None:
        return F.max_pool2d(x4, p.kernel, p.stride, p.torch_pad)
    return F.max_pool2d(_padded(x, p, float("-inf")), p.kernel, p.stride)
