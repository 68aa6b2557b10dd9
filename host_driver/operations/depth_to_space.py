"""DEPTH_TO_SPACE (5): move channel blocks into space, TensorFlow "DCR" order."""

from ._space_depth import validate_block
from .common import Ctx, layout_dims

NAME, CODE, SINCE = "DEPTH_TO_SPACE", 5, 27
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    n, h, w, ch, bs = validate_block(c)
    if ch % (bs * bs):
        c.fail(f"channels {ch} must be divisible by block_size^2 = {bs * bs}")
    c.set_out(0, layout_dims(n, h * bs, w * bs, ch // (bs * bs), c.p.nchw))


def compute(ins, p):
    x = ins[0].permute(0, 2, 3, 1) if p.nchw else ins[0]
    n, h, w, ch = x.shape
    bs = p.block
    # Channel index (i * bs + j) * C_out + c lands at (h * bs + i, w * bs + j, c).
    y = x.reshape(n, h, w, bs, bs, ch // (bs * bs)).permute(0, 1, 3, 2, 4, 5)
    y = y.reshape(n, h * bs, w * bs, ch // (bs * bs))
    return [y.permute(0, 3, 1, 2) if p.nchw else y]
