"""A dilated convolution below API 29, where CONV_2D and DEPTHWISE_CONV_2D have no dilation.

Five exact forms, tried in this order (``plan_dilated``); every dilated convolution of static
size has one at API 27:

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
   point; AOSP's validation asks for HAL 1.2 otherwise), so another zero point takes form 3, 4
   or 5.
3. **SPACE_TO_DEPTH, DEPTHWISE_CONV_2D, DEPTH_TO_SPACE (API 27)**, for a depthwise convolution
   only: SPACE_TO_DEPTH puts phase (r_h, r_w) of channel c at channel (r_h·d + r_w)·C + c, a
   depthwise kernel tiled d² times convolves each phase alone, and DEPTH_TO_SPACE puts them
   back. Without padding of its own it needs one dilation on both axes (or one tap on the
   other), stride 1, and the sizes and both pads of each dilated axis multiples of d.
4. **One-hot im2col: DEPTHWISE_CONV_2D per dilated axis, then CONV_2D (API 27)**, for a regular
   convolution that forms 2-3 do not take (API 27; API 28 with an 8-bit zero point other than 0;
   a dilated axis with a stride). Per dilated axis, a DEPTHWISE_CONV_2D with depth multiplier k
   (its taps) and the dilated kernel's extent E = (k - 1)·d + 1, the convolution's own padding
   and stride on that axis, whose kernel for output channel c·k + t is one-hot at t·d: channel
   c·k + t holds the input shifted to tap t. Height first, then width: channel
   (c·k_h + t_h)·k_w + t_w = c·k_h·k_w + t_h·k_w + t_w, the order of the weight's [C, k_h, k_w]
   flattened. Then a CONV_2D with the weight so rearranged to [O, k', k', C·k_h·k_w] (a 1x1
   kernel, or over an undilated axis its own taps, pads and stride), the bias and the fused
   activation. The one-hot products are by exactly 1.0 and 0.0, so the columns are the input's
   values; in 8 bits the depthwise keeps the input's scale and zero point, with a filter of scale
   0.5 and codes 2 / 0 (real 1.0 / 0.0; the multiplier input scale x 0.5 / output scale = 0.5 is
   below 1, as API 27 requires, and halves an even accumulator exactly), padding with the zero
   point as the convolution would; the CONV_2D has the original codes, so the integer sums are
   the original convolution's.
   Cost: the CONV_2D does the convolution's own multiply-adds (O·C·k_h·k_w per output position);
   the one-hot passes add C·k_h·E_h per position of [out_h, W] and C·k_h·k_w·E_w per output
   position, and hold C·k_h·k_w values per output position. The alternative, one CONV_2D with
   the kernel written out (zeros between taps), costs O·C·E_h·E_w per position and a weight that
   large: for DeepLabV3's ASPP at 256x256 (960 -> 256 channels, 3x3, d = 12, 16x16 map) the
   im2col form is 566 M + 74 M multiply-adds with 2.2 M intermediate values, the written-out
   kernel 39 G multiply-adds and a 154 M-value weight.
5. **The kernel written out (API 27)**, for a depthwise convolution form 3 does not take: one
   DEPTHWISE_CONV_2D with an E_h x E_w kernel holding the taps at multiples of d and zeros (the
   weight's zero point in 8 bits) between, the convolution's padding and stride. Cost
   E_h·E_w / (k_h·k_w) times the convolution's multiply-adds (a depthwise convolution's are
   few); an im2col form would need a block-diagonal CONV_2D C times that.
"""

from __future__ import annotations

import dataclasses
import enum

import torch

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperandCode, OperationCode
from ..shape_program import is_static
from .common import fuse_operand
from .quantized_weights import QuantizedConstant, bias_operand, quantized_constant


class DilatedForm(enum.Enum):
    """How a dilated convolution is emitted below API 29 (module docstring)."""

    DENSE = "dead taps dropped: no dilation left"
    SPACE_TO_BATCH = "SPACE_TO_BATCH_ND + convolution + BATCH_TO_SPACE_ND"
    SPACE_TO_DEPTH = "SPACE_TO_DEPTH + DEPTHWISE_CONV_2D + DEPTH_TO_SPACE"
    ONE_HOT_IM2COL = "one-hot DEPTHWISE_CONV_2D per dilated axis + CONV_2D"
    WRITTEN_OUT = "DEPTHWISE_CONV_2D with the dilated kernel written out"


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
    cannot be (dynamic sizes); ``zero_point``: the 8-bit input's (None: float)."""
    what = f"dilated convolution (dilation={list(dilation)})"
    if not all(is_static(s) for s in in_hw):
        return f"{what} with a dynamic height or width below API 29 (its form depends on the sizes)"
    h, w = (_axis(int(n), k, d, p, s) for n, k, d, p, s in zip(in_hw, kernel_hw, dilation, padding, stride))
    if h.dilation == w.dilation == 1:
        return DilatedPlan(DilatedForm.DENSE, h, w, FeatureLevel.ANDROID_8_1)
    strided = any(a.dilation > 1 and a.stride != 1 for a in (h, w))
    if not strided and level >= FeatureLevel.ANDROID_9 and not zero_point:
        return DilatedPlan(DilatedForm.SPACE_TO_BATCH, _space_to_batch_axis(h), _space_to_batch_axis(w),
                           FeatureLevel.ANDROID_9)
    if not depthwise:
        return DilatedPlan(DilatedForm.ONE_HOT_IM2COL, h, w, FeatureLevel.ANDROID_8_1)
    if _space_to_depth_refusal(h, w) is None:
        h, w = (dataclasses.replace(a, conv_pads=(a.pads[0] // a.dilation, a.pads[1] // a.dilation))
                if a.dilation > 1 else a for a in (h, w))
        return DilatedPlan(DilatedForm.SPACE_TO_DEPTH, h, w, FeatureLevel.ANDROID_8_1)
    return DilatedPlan(DilatedForm.WRITTEN_OUT, h, w, FeatureLevel.ANDROID_8_1)


def one_hot_taps(axis: AxisPlan) -> torch.Tensor:
    """[k, E] float32: row t is one-hot at t·d, the dilated kernel's tap t (form 4)."""
    extent = (axis.taps - 1) * axis.dilation + 1
    rows = torch.zeros(axis.taps, extent)
    rows[torch.arange(axis.taps), torch.arange(axis.taps) * axis.dilation] = 1.0
    return rows


def written_out(kernel: torch.Tensor, plan: DilatedPlan, fill: float | int = 0) -> torch.Tensor:
    """The cut [O, I, k_h, k_w] ``kernel`` with ``fill`` between its taps: [O, I, E_h, E_w] (form 5)."""
    dh, dw = plan.h.dilation, plan.w.dilation
    o, i, kh, kw = kernel.shape
    full = torch.full((o, i, (kh - 1) * dh + 1, (kw - 1) * dw + 1), fill, dtype=kernel.dtype)
    full[:, :, ::dh, ::dw] = kernel
    return full


def im2col_weight(kernel: torch.Tensor, plan: DilatedPlan) -> torch.Tensor:
    """The cut [O, C, k_h, k_w] ``kernel`` as form 4's CONV_2D filter [O, k_h', k_w', C·M] (NNAPI's
    OHWI): the taps of each dilated axis join the channels (channel c·M + m, m over those taps,
    height's before width's), an undilated axis keeps its taps as the kernel's."""
    o, c, kh, kw = kernel.shape
    dilated_h, dilated_w = plan.h.dilation > 1, plan.w.dilation > 1
    spatial = [d for d, dilated in ((2, dilated_h), (3, dilated_w)) if not dilated]
    joined = [d for d, dilated in ((2, dilated_h), (3, dilated_w)) if dilated]
    arranged = kernel.permute(0, *spatial, 1, *joined)
    return arranged.reshape(o, 1 if dilated_h else kh, 1 if dilated_w else kw, -1)


# ------------------------------------------------------------------ emission
def _cut_weight(weight: torch.Tensor, plan: DilatedPlan) -> torch.Tensor:
    """The [O, I, kh, kw] weight (a 1-D one given its H of 1) with only the kept taps."""
    if weight.dim() == 3:
        weight = weight.unsqueeze(2)
    return weight[:, :, plan.h.first_tap:plan.h.last_tap + 1, plan.w.first_tap:plan.w.last_tap + 1]


def _arranged_filter(weight: torch.Tensor, plan: DilatedPlan, depthwise: bool, tile: int,
                     fill: float | int) -> tuple[torch.Tensor, int]:
    """The cut ``weight`` (float, or codes whose zero is ``fill``) in the NNAPI filter layout of
    ``plan``'s convolution, a depthwise one's channels repeated ``tile`` times; and the dim of its
    output channels."""
    cut = _cut_weight(weight, plan)
    if plan.form is DilatedForm.ONE_HOT_IM2COL:
        return im2col_weight(cut, plan), 0
    if plan.form is DilatedForm.WRITTEN_OUT:
        cut = written_out(cut, plan, fill)
    if depthwise:
        return cut.permute(1, 2, 3, 0).repeat(1, 1, 1, tile), 3      # [1, kh, kw, O]
    return cut.permute(0, 2, 3, 1), 0                                 # [O, kh, kw, I]


def _filter_and_bias(lc: LoweringContext, conv: tuple, plan: DilatedPlan, depthwise: bool, tile: int,
                     inp: int) -> tuple[int, int]:
    """The filter (``_arranged_filter``) and bias operands, float or the convert_pt2e codes.
    ``conv``: (weight node, float weight, bias node, float bias)."""
    weight_node, weight, bias_node, bias = conv
    g = lc.graph
    out_channels = weight.shape[0]
    q = quantized_constant(lc, weight_node)
    if q is None:
        filt = g.emit_constant_tensor(_arranged_filter(weight, plan, depthwise, tile, 0.0)[0])
    else:
        codes, channel_dim = _arranged_filter(q.codes, plan, depthwise, tile, q.zero_point)
        filt = _quantized_filter(lc, codes, q, channel_dim, tile)
    if tile == 1:
        return filt, bias_operand(lc, bias_node, bias, out_channels, inp, filt)
    if q is None:
        values = bias if bias is not None else torch.zeros(out_channels)
        return filt, g.emit_constant_tensor(values.to(torch.float32).reshape(-1).repeat(tile))
    bq = quantized_constant(lc, bias_node) if bias_node is not None else None
    codes = bq.codes.to(torch.int32).reshape(-1) if bq is not None else torch.zeros(out_channels, dtype=torch.int32)
    scale = 0.0
    if g.operands[filt].per_channel_scales is None:   # NNAPI's bias scale: float32(input x filter)
        scale = float(torch.tensor(g.operands[inp].scale, dtype=torch.float32)
                      * torch.tensor(g.operands[filt].scale, dtype=torch.float32))
    return filt, g.emit_quantized_constant(codes.repeat(tile), OperandCode.TENSOR_INT32, scale=scale)


def _quantized_filter(lc: LoweringContext, codes: torch.Tensor, q: QuantizedConstant, channel_dim: int,
                      tile: int) -> int:
    """The 8-bit filter of arranged ``codes`` (output channels along ``channel_dim``, the scales of
    a per-channel one repeated ``tile`` times)."""
    g = lc.graph
    if q.axis is not None:
        return g.emit_quantized_constant(codes, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL,
                                         channel_dim=channel_dim, channel_scales=q.scales.repeat(tile))
    code = OperandCode.TENSOR_QUANT8_ASYMM if q.codes.dtype == torch.uint8 else OperandCode.TENSOR_QUANT8_ASYMM_SIGNED
    return g.emit_quantized_constant(codes, code, scale=float(q.scales[0]), zero_point=q.zero_point)


def _geometry(plan: DilatedPlan, axis: AxisPlan) -> tuple[tuple[int, int], int]:
    """(pads, stride) of the emitted convolution on ``axis``."""
    if axis.dilation == 1 or plan.form is DilatedForm.WRITTEN_OUT:
        return axis.pads, axis.stride
    return axis.conv_pads, 1     # the block / one-hot operations did the dilated axis' padding and stride


def emit_dilated(lc: LoweringContext, node, plan: DilatedPlan, conv: tuple, depthwise: bool, multiplier: int,
                 inp: int, out: int) -> None:
    """The dilated convolution ``node`` as ``plan`` says, from NHWC operand ``inp`` into ``out``;
    ``conv``: (weight node, float weight, bias node, float bias) as in ``_filter_and_bias``."""
    g = lc.graph
    g.require_feature_level(plan.level)
    h, w = plan.h, plan.w
    n, _, _, channels = g.operands[inp].dims
    out_channels = g.operands[out].dims[3]
    if plan.form is DilatedForm.ONE_HOT_IM2COL:
        inp = _one_hot_columns(lc, node, plan, inp)
    code = OperationCode.DEPTHWISE_CONV_2D if depthwise else OperationCode.CONV_2D
    tile = h.dilation * w.dilation if plan.form is DilatedForm.SPACE_TO_DEPTH else 1
    filt, bias = _filter_and_bias(lc, conv, plan, depthwise, tile, inp)
    (w_pads, w_stride), (h_pads, h_stride) = _geometry(plan, w), _geometry(plan, h)
    pads = [g.emit_int32(v) for v in (*w_pads, *h_pads)]
    strides = [g.emit_int32(w_stride), g.emit_int32(h_stride)]
    tail = [g.emit_int32(multiplier)] if depthwise else []

    def convolve(source: int, shape: list, target: int | None = None) -> int:
        target = g.emit_like(out, shape, debug_name=f"{node.name}.conv") if target is None else target
        g.emit_operation(code, [source, filt, bias, *pads, *strides, *tail, fuse_operand(lc, node)], [target],
                         debug_name=node.name)
        return target

    if plan.form in (DilatedForm.DENSE, DilatedForm.WRITTEN_OUT, DilatedForm.ONE_HOT_IM2COL):
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


def _one_hot_filter(lc: LoweringContext, source: int, weights: torch.Tensor) -> tuple[int, int]:
    """Filter and zero bias of a one-hot DEPTHWISE_CONV_2D reading ``source``: float 1.0 / 0.0, or
    8-bit codes 2 / 0 of scale 0.5 (form 4: exact, multiplier 0.5 < 1)."""
    g = lc.graph
    src = g.operands[source]
    channels = weights.shape[-1]
    if src.type == OperandCode.TENSOR_FLOAT32:
        return g.emit_constant_tensor(weights), g.emit_constant_tensor(torch.zeros(channels))
    dtype = torch.uint8 if src.type == OperandCode.TENSOR_QUANT8_ASYMM else torch.int8
    filt = g.emit_quantized_constant((weights * 2).to(dtype), src.type, scale=0.5, zero_point=0)
    scale = float(torch.tensor(src.scale, dtype=torch.float32) * torch.tensor(0.5, dtype=torch.float32))
    return filt, g.emit_quantized_constant(torch.zeros(channels, dtype=torch.int32), OperandCode.TENSOR_INT32,
                                           scale=scale)


def _one_hot_columns(lc: LoweringContext, node, plan: DilatedPlan, inp: int) -> int:
    """Form 4's one-hot DEPTHWISE_CONV_2D per dilated axis (height first): NHWC ``inp`` [N, H, W, C]
    -> the columns [N, H', W', C·M], channel c·M + m holding the input at tap m (module docstring)."""
    g = lc.graph
    n, height, width, channels = g.operands[inp].dims
    source = inp
    for is_height, axis in ((True, plan.h), (False, plan.w)):
        if axis.dilation == 1:
            continue
        taps = one_hot_taps(axis)                                         # [k, E]
        k, extent = taps.shape
        weights = taps.t().unsqueeze(1).expand(extent, channels, k)      # [e, c, t]: channel c·k + t
        weights = weights.reshape((1, extent, 1, -1) if is_height else (1, 1, extent, -1)).contiguous()
        filt, bias = _one_hot_filter(lc, source, weights)
        height, width, channels = (axis.out, width, channels * k) if is_height else (height, axis.out, channels * k)
        zero, one = g.emit_int32(0), g.emit_int32(1)
        pads = [zero, zero, *map(g.emit_int32, axis.pads)] if is_height else [*map(g.emit_int32, axis.pads), zero, zero]
        strides = [one, g.emit_int32(axis.stride)] if is_height else [g.emit_int32(axis.stride), one]
        result = g.emit_like(source, [n, height, width, channels],
                             debug_name=f"{node.name}.{'height' if is_height else 'width'}_taps")
        g.emit_operation(OperationCode.DEPTHWISE_CONV_2D,
                         [source, filt, bias, *pads, *strides, g.emit_int32(k), g.emit_int32(0)], [result],
                         debug_name=node.name)
        source = result
    return source


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


__all__ = ["AxisPlan", "DilatedForm", "DilatedPlan", "emit_dilated", "im2col_weight", "one_hot_taps", "plan_dilated",
           "written_out"]
