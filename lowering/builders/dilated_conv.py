"""A dilated convolution below API 29, where CONV_2D and DEPTHWISE_CONV_2D have no dilation.

Three exact forms, tried in this order (``plan_dilated``):

1. **Dead taps dropped.** A kernel tap that reads only padding, for every output position,
   adds nothing: it is cut from the weight and the padding shrinks by the taps cut before it.
   An axis left with one tap has no dilation any more; with both axes so, the convolution is a
   plain CONV_2D / DEPTHWISE_CONV_2D (any level). DeepLabV3's ASPP rates 12-36 on a small
   feature map end this way.
2. **SPACE_TO_BATCH_ND, convolution, BATCH_TO_SPACE_ND (API 28)**, TensorFlow's atrous
   convolution: with block = dilation d, batch item (r_h, r_w) holds the input rows
   r_h, r_h + d, ... (and columns likewise), on which the dilated kernel is a dense one. Per axis
   the padding ``p`` is split into whole steps of d, given to the convolution itself (at most
   k - 1: NNAPI wants each pad below the kernel), and the rest, given to SPACE_TO_BATCH_ND with
   the tail rows that make the padded size a multiple of d; BATCH_TO_SPACE_ND then has as many
   rows as the output, or up to d - 1 more, which a STRIDED_SLICE cuts (BATCH_TO_SPACE_ND has
   no crops). Output row ``j·d + r`` of batch item r reads padded rows ``(j - m + t)·d + r``,
   i.e. input rows ``j·d + r - p + t·d``: the dilated convolution's. Dilated axes need
   stride 1. 8-bit: both operations keep the codes' scale and zero point, but before API 29
   SPACE_TO_BATCH_ND takes only a zero point of 0 (Android 9 pads with code 0, not with the zero
   point; AOSP's validation asks for HAL 1.2 otherwise), so another zero point takes form 3 or
   stays on the CPU.
3. **SPACE_TO_DEPTH, DEPTHWISE_CONV_2D, DEPTH_TO_SPACE (API 27)**, for a depthwise convolution
   only: SPACE_TO_DEPTH puts phase (r_h, r_w) of channel c at channel (r_h·d + r_w)·C + c, a
   depthwise kernel tiled d² times convolves each phase alone, and DEPTH_TO_SPACE puts them
   back. Without padding of its own it needs one dilation on both axes (or one tap on the
   other), stride 1, and the sizes and both pads of each dilated axis multiples of d. A regular
   convolution would need a block-diagonal weight d⁴ times its size: it is refused at API 27.
"""

from __future__ import annotations

import dataclasses
import enum

import torch

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperandCode, OperationCode
from ..shape_program import is_static
from .common import fuse_operand
from .node_builder import level_refusal
from .quantized_weights import QuantizedConstant, bias_operand, quantized_constant


class DilatedForm(enum.Enum):
    """How a dilated convolution is emitted below API 29 (module docstring)."""

    DENSE = "dead taps dropped: no dilation left"
    SPACE_TO_BATCH = "SPACE_TO_BATCH_ND + convolution + BATCH_TO_SPACE_ND"
    SPACE_TO_DEPTH = "SPACE_TO_DEPTH + DEPTHWISE_CONV_2D + DEPTH_TO_SPACE"


@dataclasses.dataclass(frozen=True)
class AxisPlan:
    """One spatial axis of the emitted convolution."""

    size: int                 # input size
    out: int                  # output size
    first_tap: int            # kernel taps kept: first_tap .. last_tap
    last_tap: int
    dilation: int             # 1 when a single tap is left
    stride: int
    pads: tuple[int, int]     # the dilated convolution's padding once the dead taps are cut
    conv_pads: tuple[int, int] = (0, 0)   # the emitted convolution's own padding
    block_pads: tuple[int, int] = (0, 0)  # SPACE_TO_BATCH_ND's padding
    crop: int = 0                         # BATCH_TO_SPACE_ND's rows past ``out`` (cut)

    @property
    def taps(self) -> int:
        return self.last_tap - self.first_tap + 1


@dataclasses.dataclass(frozen=True)
class DilatedPlan:
    form: DilatedForm
    h: AxisPlan
    w: AxisPlan
    level: FeatureLevel       # the form's operations' level

    @property
    def block(self) -> tuple[int, int]:
        return self.h.dilation, self.w.dilation


def _live_taps(size: int, kernel: int, dilation: int, pad: int, stride: int, out: int) -> list[int]:
    """The kernel taps that read an input element for some output position."""
    live = []
    for t in range(kernel):
        start = t * dilation - pad              # input index read at output 0; + j * stride at output j
        first_j = (-start + stride - 1) // stride if start < 0 else 0   # the first j reading index >= 0
        if first_j < out and start + first_j * stride < size:
            live.append(t)
    return live


def _axis(size: int, kernel: int, dilation: int, pad: int, stride: int) -> AxisPlan:
    """The axis with its dead taps cut where that keeps NNAPI's pads valid (module docstring, 1)."""
    out = (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1
    live = _live_taps(size, kernel, dilation, pad, stride, out) or [kernel // 2]
    # Cutting a tap removes d of padding on its side: never more than there is.
    first = min(live[0], pad // dilation)
    last = max(live[-1], kernel - 1 - pad // dilation)
    head, tail = pad - first * dilation, pad - (kernel - 1 - last) * dilation
    taps = last - first + 1
    if max(head, tail) >= (taps - 1) * dilation + 1:   # a pad must stay below the (dilated) kernel
        first, last, head, tail, taps = 0, kernel - 1, pad, pad, kernel
    return AxisPlan(size, out, first, last, dilation if taps > 1 else 1, stride, (head, tail))


def _space_to_batch_axis(a: AxisPlan) -> AxisPlan:
    """Form 2's paddings and crop for one axis (module docstring)."""
    if a.dilation == 1:
        return dataclasses.replace(a, conv_pads=a.pads)
    d, k = a.dilation, a.taps
    conv_head, conv_tail = min(a.pads[0] // d, k - 1), min(a.pads[1] // d, k - 1)
    head, tail = a.pads[0] - conv_head * d, a.pads[1] - conv_tail * d
    crop = -(head + a.size + tail) % d
    return dataclasses.replace(a, conv_pads=(conv_head, conv_tail), block_pads=(head, tail + crop), crop=crop)


def _space_to_depth_refusal(h: AxisPlan, w: AxisPlan) -> str | None:
    """Why form 3 cannot take the axes, or None."""
    dilations = {a.dilation for a in (h, w) if a.dilation > 1}
    if len(dilations) > 1:
        return f"two dilations {h.dilation}, {w.dilation} (SPACE_TO_DEPTH has one block size)"
    d = dilations.pop()
    for name, a in (("height", h), ("width", w)):
        if a.dilation == 1 and a.taps > 1:
            return f"a {name} kernel of {a.taps} taps without dilation (SPACE_TO_DEPTH blocks both axes)"
        if a.stride != 1:
            return f"{name} stride {a.stride}"
        if a.size % d or a.pads[0] % d or a.pads[1] % d:
            return f"{name} {a.size} or its padding {list(a.pads)} not a multiple of the dilation {d}"
    return None


def plan_dilated(in_hw: tuple, kernel_hw: tuple, stride: list, padding: list, dilation: list, depthwise: bool,
                 level: FeatureLevel, zero_point: int | None) -> DilatedPlan | str:
    """How a dilated convolution (groups 1 or depthwise) is emitted at ``level`` < API 29, or why it
    cannot be; ``zero_point``: the 8-bit input's (None: float)."""
    what = f"dilated convolution (dilation={list(dilation)})"
    if not all(is_static(s) for s in in_hw):
        return f"{what} with a dynamic height or width below API 29 (its form depends on the sizes)"
    h, w = (_axis(int(n), k, d, p, s) for n, k, d, p, s in zip(in_hw, kernel_hw, dilation, padding, stride))
    if h.dilation == w.dilation == 1:
        return DilatedPlan(DilatedForm.DENSE, h, w, FeatureLevel.ANDROID_8_1)
    strided = [f"{name} stride {a.stride}" for name, a in (("height", h), ("width", w))
               if a.dilation > 1 and a.stride != 1]
    if strided:
        return f"{what} with {strided[0]} below API 29 (its SPACE_TO_BATCH_ND form needs stride 1)"
    depth_refusal = _space_to_depth_refusal(h, w) if depthwise else "it is not depthwise"
    s2b = level_refusal(f"{what} (SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND)", FeatureLevel.ANDROID_9, level)
    if s2b is None and zero_point:
        s2b = (f"{what} on 8-bit codes of zero point {zero_point}: SPACE_TO_BATCH_ND takes zero point 0 only "
               "before API 29 (Android 9 pads with code 0)")
    if s2b is None:
        return DilatedPlan(DilatedForm.SPACE_TO_BATCH, _space_to_batch_axis(h), _space_to_batch_axis(w),
                           FeatureLevel.ANDROID_9)
    if depth_refusal is None:
        h, w = (dataclasses.replace(a, conv_pads=(a.pads[0] // a.dilation, a.pads[1] // a.dilation))
                if a.dilation > 1 else a for a in (h, w))
        return DilatedPlan(DilatedForm.SPACE_TO_DEPTH, h, w, FeatureLevel.ANDROID_8_1)
    return f"{s2b}; its API 27 form (SPACE_TO_DEPTH + DEPTHWISE_CONV_2D + DEPTH_TO_SPACE) does not fit: {depth_refusal}"


# ------------------------------------------------------------------ emission
def _cut_weight(weight: torch.Tensor, plan: DilatedPlan) -> torch.Tensor:
    """The [O, I, kh, kw] weight (a 1-D one given its H of 1) with only the kept taps."""
    if weight.dim() == 3:
        weight = weight.unsqueeze(2)
    return weight[:, :, plan.h.first_tap:plan.h.last_tap + 1, plan.w.first_tap:plan.w.last_tap + 1]


def _filter_and_bias(lc: LoweringContext, conv: tuple, plan: DilatedPlan, depthwise: bool, tile: int,
                     inp: int) -> tuple[int, int]:
    """The cut filter (depthwise: its channels repeated ``tile`` times) and bias operands; float or
    the convert_pt2e codes. ``conv``: (weight node, float weight, bias node, float bias)."""
    weight_node, weight, bias_node, bias = conv
    g = lc.graph
    perm = (1, 2, 3, 0) if depthwise else (0, 2, 3, 1)      # -> [1, kh, kw, O] / [O, kh, kw, I]
    out_channels = weight.shape[0]
    q = quantized_constant(lc, weight_node)
    if tile == 1:
        cut = _cut_weight(weight, plan)
        if q is None:
            filt = g.emit_constant_tensor(cut.permute(perm))
        else:
            filt = _quantized_filter(lc, _cut_weight(q.codes, plan), q, perm, 1)
        return filt, bias_operand(lc, bias_node, bias, out_channels, inp, filt)
    if q is None:
        filt = g.emit_constant_tensor(_cut_weight(weight, plan).permute(perm).repeat(1, 1, 1, tile))
        values = bias if bias is not None else torch.zeros(out_channels)
        return filt, g.emit_constant_tensor(values.to(torch.float32).reshape(-1).repeat(tile))
    filt = _quantized_filter(lc, _cut_weight(q.codes, plan), q, perm, tile)
    bq = quantized_constant(lc, bias_node) if bias_node is not None else None
    codes = bq.codes.to(torch.int32).reshape(-1) if bq is not None else torch.zeros(out_channels, dtype=torch.int32)
    scale = 0.0
    if g.operands[filt].per_channel_scales is None:   # NNAPI's bias scale: float32(input x filter)
        scale = float(torch.tensor(g.operands[inp].scale, dtype=torch.float32)
                      * torch.tensor(g.operands[filt].scale, dtype=torch.float32))
    return filt, g.emit_quantized_constant(codes.repeat(tile), OperandCode.TENSOR_INT32, scale=scale)


def _quantized_filter(lc: LoweringContext, codes: torch.Tensor, q: QuantizedConstant, perm: tuple, tile: int) -> int:
    """The 8-bit filter of cut ``codes`` permuted by ``perm``, its channels (last dim) repeated ``tile``
    times (a depthwise filter's output channels)."""
    g = lc.graph
    codes = codes.permute(perm).repeat(1, 1, 1, tile)
    if q.axis is not None:
        return g.emit_quantized_constant(codes, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL,
                                         channel_dim=list(perm).index(q.axis), channel_scales=q.scales.repeat(tile))
    code = OperandCode.TENSOR_QUANT8_ASYMM if q.codes.dtype == torch.uint8 else OperandCode.TENSOR_QUANT8_ASYMM_SIGNED
    return g.emit_quantized_constant(codes, code, scale=float(q.scales[0]), zero_point=q.zero_point)


def emit_dilated(lc: LoweringContext, node, plan: DilatedPlan, conv: tuple, depthwise: bool, multiplier: int,
                 inp: int, out: int) -> None:
    """The dilated convolution ``node`` as ``plan`` says, from NHWC operand ``inp`` into ``out``;
    ``conv``: (weight node, float weight, bias node, float bias) as in ``_filter_and_bias``."""
    g = lc.graph
    g.require_feature_level(plan.level)
    h, w = plan.h, plan.w
    n, _, _, channels = g.operands[inp].dims
    out_channels = g.operands[out].dims[3]
    code = OperationCode.DEPTHWISE_CONV_2D if depthwise else OperationCode.CONV_2D
    tile = h.dilation * w.dilation if plan.form is DilatedForm.SPACE_TO_DEPTH else 1
    filt, bias = _filter_and_bias(lc, conv, plan, depthwise, tile, inp)
    pads = [g.emit_int32(v) for v in (*w.conv_pads, *h.conv_pads)]
    strides = [g.emit_int32(1 if w.dilation > 1 else w.stride), g.emit_int32(1 if h.dilation > 1 else h.stride)]
    tail = [g.emit_int32(multiplier)] if depthwise else []

    def convolve(source: int, shape: list, target: int | None = None) -> int:
        target = g.emit_like(out, shape, debug_name=f"{node.name}.conv") if target is None else target
        g.emit_operation(code, [source, filt, bias, *pads, *strides, *tail, fuse_operand(lc, node)], [target],
                         debug_name=node.name)
        return target

    if plan.form is DilatedForm.DENSE:
        convolve(inp, [], target=out)
        return
    if plan.form is DilatedForm.SPACE_TO_DEPTH:
        d = max(plan.block)
        block = g.emit_int32(d)
        phases = g.emit_like(inp, [n, h.size // d, w.size // d, channels * d * d], debug_name=f"{node.name}.phases")
        g.emit_operation(OperationCode.SPACE_TO_DEPTH, [inp, block], [phases], debug_name=node.name)
        result = convolve(phases, [n, h.out // d, w.out // d, out_channels * d * d])
        g.emit_operation(OperationCode.DEPTH_TO_SPACE, [result, block], [out], debug_name=node.name)
        return
    _space_to_batch(lc, node, plan, inp, out, convolve)


def _space_to_batch(lc: LoweringContext, node, plan: DilatedPlan, inp: int, out: int, convolve) -> None:
    """Form 2: SPACE_TO_BATCH_ND, ``convolve``, BATCH_TO_SPACE_ND [, STRIDED_SLICE of the extra rows]."""
    g = lc.graph
    h, w = plan.h, plan.w
    bh, bw = plan.block
    n, _, _, channels = g.operands[inp].dims
    out_channels = g.operands[out].dims[3]
    block = g.emit_int32_vector([bh, bw])
    padded_h, padded_w = (a.size + sum(a.block_pads) for a in (h, w))
    batch = g.emit_like(inp, [n * bh * bw, padded_h // bh, padded_w // bw, channels], debug_name=f"{node.name}.batch")
    paddings = g.emit_int32_tensor([*h.block_pads, *w.block_pads], [2, 2])
    g.emit_operation(OperationCode.SPACE_TO_BATCH_ND, [inp, block, paddings], [batch], debug_name=node.name)
    sub_h, sub_w = ((a.out + a.crop) // b for a, b in ((h, bh), (w, bw)))
    result = convolve(batch, [n * bh * bw, sub_h, sub_w, out_channels])
    if not (h.crop or w.crop):
        g.emit_operation(OperationCode.BATCH_TO_SPACE_ND, [result, block], [out], debug_name=node.name)
        return
    whole = g.emit_like(out, [n, h.out + h.crop, w.out + w.crop, out_channels], debug_name=f"{node.name}.uncropped")
    g.emit_operation(OperationCode.BATCH_TO_SPACE_ND, [result, block], [whole], debug_name=node.name)
    # Batch and channels whole (end_mask bits 0 and 3): their sizes need no expression.
    g.emit_operation(OperationCode.STRIDED_SLICE,
                     [whole, g.emit_int32_vector([0, 0, 0, 0]), g.emit_int32_vector([0, h.out, w.out, 0]),
                      g.emit_int32_vector([1, 1, 1, 1]), g.emit_int32(0), g.emit_int32(0b1001), g.emit_int32(0)],
                     [out], debug_name=node.name)


__all__ = ["AxisPlan", "DilatedForm", "DilatedPlan", "emit_dilated", "plan_dilated"]
