"""SPACE_TO_BATCH_ND (33): pad H and W, then move blocks of (bh, bw) pixels into the batch,
TensorFlow's order: output batch index (i * bw + j) * N + n holds pixel (h * bh + i, w * bw + j)."""

import torch

from ._space_batch import validate_common
from .common import QA8, QA8S, Ctx, layout_dims

NAME, CODE, SINCE = "SPACE_TO_BATCH_ND", 33, 28
QUANT_COMPUTE = True  # data movement; quantized padding is the zero point (defined since 29)


def validate(c: Ctx) -> None:
    n, h, w, ch, (bh, bw) = validate_common(c, 3)
    pads = c.ints(2, "paddings")
    if list(c.dims(2)) != [2, 2] or min(pads) < 0:
        c.fail(f"input 2 (paddings) must be a [2, 2] tensor of values >= 0, got {list(c.dims(2))} {pads}")
    c.p.pads = pads
    hp, wp = h + pads[0] + pads[1], w + pads[2] + pads[3]
    if hp % bh or wp % bw:
        c.fail(f"padded height {hp} and width {wp} must be divisible by the block sizes {bh} and {bw}")
    op = c.operand(0)
    c.p.fill = op.zero_point if op.type in (QA8, QA8S) else 0
    c.set_out(0, layout_dims(n * bh * bw, hp // bh, wp // bw, ch, c.p.nchw))


def compute(ins, p):
    x = ins[0].permute(0, 2, 3, 1) if p.nchw else ins[0]
    top, bottom, left, right = p.pads
    x = torch.nn.functional.pad(x, (0, 0, left, right, top, bottom), value=p.fill) if any(p.pads) else x
    n, hp, wp, ch = x.shape
    bh, bw = p.block
    y = x.reshape(n, hp // bh, bh, wp // bw, bw, ch).permute(2, 4, 0, 1, 3, 5)
    y = y.reshape(bh * bw * n, hp // bh, wp // bw, ch)
    return [y.permute(0, 3, 1, 2) if p.nchw else y]
