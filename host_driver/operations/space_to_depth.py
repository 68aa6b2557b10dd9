"""SPACE_TO_DEPTH (26): move spatial blocks into channels (inverse of DEPTH_TO_SPACE)."""

from ._space_depth import validate_block
from .common import Ctx, layout_dims

NAME, CODE, SINCE = "SPACE_TO_DEPTH", 26, 27
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    n, h, w, ch, bs = validate_block(c)
    if h % bs or w % bs:
        c.fail(f"height {h} and width {w} must be divisible by block_size {bs}")
    c.set_out(0, layout_dims(n, h // bs, w // bs, ch * bs * bs, c.p.nchw))


def compute(ins, p):
    x = ins[0].permute(0, 2, 3, 1) if p.nchw else ins[0]
    n, h, w, ch = x.shape
    bs = p.block
    y = x.reshape(n, h // bs, bs, w // bs, bs, ch).permute(0, 1, 3, 2, 4, 5)
    y = y.reshape(n, h // bs, w // bs, ch * bs * bs)
    return [y.permute(0, 3, 1, 2) if p.nchw else y]
