"""BATCH_TO_SPACE_ND (29): the inverse of SPACE_TO_BATCH_ND without cropping: batch index
(i * bw + j) * N + n goes to pixel (h * bh + i, w * bw + j) of image n."""

from ._space_batch import validate_common
from .common import Ctx, layout_dims

NAME, CODE, SINCE = "BATCH_TO_SPACE_ND", 29, 28
QUANT_COMPUTE = True  # data movement only


def validate(c: Ctx) -> None:
    b, h, w, ch, (bh, bw) = validate_common(c, 2)
    if b % (bh * bw):
        c.fail(f"batch {b} must be divisible by the product of the block sizes {bh} x {bw}")
    c.set_out(0, layout_dims(b // (bh * bw), h * bh, w * bw, ch, c.p.nchw))


def compute(ins, p):
    x = ins[0].permute(0, 2, 3, 1) if p.nchw else ins[0]
    b, h, w, ch = x.shape
    bh, bw = p.block
    n = b // (bh * bw)
    y = x.reshape(bh, bw, n, h, w, ch).permute(2, 3, 0, 4, 1, 5).reshape(n, h * bh, w * bw, ch)
    return [y.permute(0, 3, 1, 2) if p.nchw else y]
