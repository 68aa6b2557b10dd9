"""aten.convolution -> CONV_2D / DEPTHWISE_CONV_2D / GROUPED_CONV_2D / TRANSPOSE_CONV_2D.

Dilation is an operand of CONV_2D and DEPTHWISE_CONV_2D from API 29; below it a dilated
convolution takes one of the exact forms of dilated_conv.py.

A 1-D convolution ([N, C, L]) runs as the 2-D one on an H=1 view: its value is
held channels-last, in dim order (0, 2, 1) ([N, L, C], the same bytes as NHWC
[N, 1, L, C]), so a RESHAPE on each side is all it takes, no TRANSPOSE; the
runtime permutes partition inputs and outputs while copying them.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import QUANTIZED_TYPES, LoweringContext
from ..nnapi_codes import FeatureLevel, OperandCode, OperationCode
from ..node_utils import is_dequantize, quant_params, tensor_shape
from .batch_norm import folded_parameters
from .common import check_float_tensors, fuse_operand
from .conv3d import check_conv3d, define_conv3d
from .dilated_conv import DilatedPlan, emit_dilated, plan_dilated
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import QuantKind, Quantization
from .quantized_weights import bias_operand, weight_operand
from .registry import register_builder

aten = torch.ops.aten


CHANNELS_LAST_1D = (0, 2, 1)


def _conv_args(node: Node):
    """The convolution's arguments; a 1-D one's as those of the 2-D one on an H=1 view."""
    x, weight, bias, stride, padding, dilation, transposed, output_padding, groups = node.args
    # aten.convolution repeats a one-element list over every spatial dim (conv2d(padding="valid")
    # reaches it as padding=[0], output_padding=[0] on a 2-D convolution).
    spatial = len(tensor_shape(weight)) - 2
    stride, padding, dilation, output_padding = (
        list(v) * spatial if len(v) == 1 else list(v) for v in (stride, padding, dilation, output_padding))
    if len(stride) == 1:
        stride, padding, dilation, output_padding = [1, *stride], [0, *padding], [1, *dilation], [0, *output_padding]
    return x, weight, bias, stride, padding, dilation, bool(transposed), output_padding, int(groups)


def _one_group(node: Node, feature_level: int) -> bool:
    """conv_transpose2d with groups=1 (TRANSPOSE_CONV_2D has no groups: others stay float)."""
    return (node.args[6] if len(node.args) > 6 else 1) == 1


# Weights symmetric int8 per output channel (API 29; per tensor below), an int32 bias of scale
# input scale x weight scale; a relu / relu6 / hardtanh(-1, 1) after it fuses.
_QUANTIZED = (
    Quantization(QuantKind.WEIGHTED, (aten.conv2d.default,), fuses_activation=True, per_channel=True),
    Quantization(QuantKind.WEIGHTED, (aten.conv_transpose2d.input,), check=_one_group, fuses_activation=True,
                 per_channel=True, weight_axis=1),  # a transposed weight is [in, out / groups, kh, kw]
)


def _kernel_hw(weight: Node) -> tuple:
    shape = tensor_shape(weight)
    return (1, shape[2]) if len(shape) == 3 else (shape[2], shape[3])


@register_builder
class ConvolutionBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.convolution.default, FeatureLevel.ANDROID_8_1, "CONV_2D / DEPTHWISE_CONV_2D / GROUPED_CONV_2D / TRANSPOSE_CONV_2D",
                  "float32, 1-D (on an H=1 view, RESHAPE each side) or 2-D, constant weight and bias, padding < "
                  "kernel; groups not in {1, Cin} and transposed need API 29; dilation below API 29 (static "
                  "height and width): taps reading only padding dropped, then SPACE_TO_BATCH_ND + conv + "
                  "BATCH_TO_SPACE_ND (API 28, stride 1), else depthwise SPACE_TO_DEPTH + conv + DEPTH_TO_SPACE or "
                  "the kernel written out, regular one-hot DEPTHWISE_CONV_2D im2col + CONV_2D; 3-D (API 28, groups=1, not "
                  "transposed, static sizes): CONV_2D per tap of D (or one over D, H when W's kernel is 1) summed "
                  "by ADD, on TRANSPOSEd rank-4 views (conv3d.py)", quantized=_QUANTIZED),
    )
    layout = LayoutClass.NHWC
    fuses_activation = True
    reads_merged_views = True  # a 3-D convolution's input and result (conv3d.py)

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, weight, bias, stride, padding, dilation, transposed, output_padding, groups = _conv_args(node)
        check_float_tensors(node, x, weight, bias)
        if len(tensor_shape(x)) not in (3, 4, 5):
            raise Refused(f"{len(tensor_shape(x)) - 2}-D convolution (NNAPI has 2-D convolutions only; 1-D runs "
                          "on an H=1 view, 3-D as 2-D ones per tap)")
        # A quantized weight dequantizes constant codes: computable at lowering time.
        if not ctx.is_foldable(weight):
            raise Refused("convolution with a non-constant weight")
        if bias is not None and not ctx.is_foldable(bias):
            raise Refused("convolution with a non-constant bias")
        if len(tensor_shape(x)) == 5:
            check_conv3d(node, ctx, stride, padding, dilation, transposed, groups)
            return
        w_shape = tensor_shape(weight)
        kh, kw = _kernel_hw(weight)
        if not isinstance(tensor_shape(x)[1], int):
            raise Refused("dynamic dim in convolution input channels")
        if transposed:
            ctx.require(FeatureLevel.ANDROID_10, "transposed convolution (TRANSPOSE_CONV_2D)")
            if groups != 1:
                raise Refused(f"transposed convolution with groups={groups} (TRANSPOSE_CONV_2D has no groups)")
            if dilation != [1, 1]:
                raise Refused(f"transposed convolution with dilation={dilation} (TRANSPOSE_CONV_2D has no dilation)")
            if any(op >= s for op, s in zip(output_padding, stride)):
                raise Refused("transposed convolution with output_padding >= stride")
            return
        eff_h, eff_w = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
        if padding[0] >= eff_h or padding[1] >= eff_w:
            raise Refused(f"convolution padding {padding} not smaller than the (dilated) kernel ({eff_h}, {eff_w})")
        in_channels = tensor_shape(x)[1]
        out_channels = w_shape[0]
        if groups != 1 and not (groups == in_channels and out_channels % in_channels == 0):
            ctx.require(FeatureLevel.ANDROID_10, f"grouped convolution (groups={groups}, GROUPED_CONV_2D)")
        self._check_dilated(node, ctx.feature_level, None)

    def check_quantized(self, node: Node, output, ctx: CheckContext) -> None:
        """Below API 29 a dilated convolution's form depends on its 8-bit input's zero point."""
        x = node.args[0]
        self._check_dilated(node, ctx.feature_level, quant_params(x).zero_point if is_dequantize(x) else None)

    @staticmethod
    def _check_dilated(node: Node, level: FeatureLevel, zero_point: int | None) -> None:
        """Refuses a dilated convolution that has no form below API 29 at ``level`` (dilated_conv.py)."""
        plan = _dilated_plan(node, tensor_shape, level, zero_point)
        if isinstance(plan, str):
            raise Refused(plan)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, weight_node, bias_node, stride, padding, dilation, transposed, output_padding, groups = _conv_args(node)
        folded = folded_parameters(lc, node)
        if folded is not None:
            weight, bias = folded
        else:
            weight = lc.constant(weight_node).to(torch.float32)
            bias = lc.constant(bias_node).to(torch.float32) if bias_node is not None else None
        g = lc.graph
        if len(lc.shape(x)) == 5:
            define_conv3d(node, lc, weight, bias, stride, padding, dilation)
            return
        if transposed:
            self._define_transposed(node, lc, (weight_node, weight), (bias_node, bias), stride, padding,
                                    output_padding)
            return
        out_channels = weight.shape[0]
        in_channels = lc.shape(x)[1]
        inp, out = _nhwc_operands(lc, node)
        source = g.operands[inp]
        zero_point = None if source.type == OperandCode.TENSOR_FLOAT32 else source.zero_point
        plan = _dilated_plan(node, lc.shape, g.feature_level, zero_point)
        if plan is not None:
            depthwise = groups != 1
            emit_dilated(lc, node, plan, (weight_node, weight, bias_node, bias), depthwise,
                         out_channels // in_channels if depthwise else 1, inp, out)
            _finish_1d(lc, node, out)
            return
        pads = [g.emit_int32(padding[1]), g.emit_int32(padding[1]), g.emit_int32(padding[0]), g.emit_int32(padding[0])]
        strides = [g.emit_int32(stride[1]), g.emit_int32(stride[0])]
        dilated = dilation != [1, 1]
        tail = [g.emit_bool(False), g.emit_int32(dilation[1]), g.emit_int32(dilation[0])] if dilated else []
        if groups == 1:
            filt = weight_operand(lc, weight_node, weight, (0, 2, 3, 1))  # OIHW -> OHWI
            bias_op = bias_operand(lc, bias_node, bias, out_channels, inp, filt)
            code = OperationCode.CONV_2D
            inputs = [inp, filt, bias_op, *pads, *strides, fuse_operand(lc, node), *tail]
        elif groups == in_channels and out_channels % in_channels == 0:
            filt = weight_operand(lc, weight_node, weight, (1, 2, 3, 0))  # [Cout,1,kh,kw] -> [1,kh,kw,Cout]
            bias_op = bias_operand(lc, bias_node, bias, out_channels, inp, filt)
            code = OperationCode.DEPTHWISE_CONV_2D
            multiplier = g.emit_int32(out_channels // in_channels)
            inputs = [inp, filt, bias_op, *pads, *strides, multiplier, fuse_operand(lc, node), *tail]
        else:
            filt = weight_operand(lc, weight_node, weight, (0, 2, 3, 1))
            bias_op = bias_operand(lc, bias_node, bias, out_channels, inp, filt)
            code = OperationCode.GROUPED_CONV_2D
            inputs = [inp, filt, bias_op, *pads, *strides, g.emit_int32(groups), fuse_operand(lc, node),
                      g.emit_bool(False)]
        if dilated:
            g.require_feature_level(FeatureLevel.ANDROID_10)
        g.emit_operation(code, inputs, [out], debug_name=node.name)
        _finish_1d(lc, node, out)

    @staticmethod
    def _define_transposed(node, lc, weight, bias, stride, padding, output_padding) -> None:
        g = lc.graph
        (weight_node, weight), (bias_node, bias) = weight, bias
        out_channels = weight.shape[1]
        inp, out = _nhwc_operands(lc, node)
        filt = weight_operand(lc, weight_node, weight, (1, 2, 3, 0))  # [Cin,Cout,kh,kw] -> [Cout,kh,kw,Cin]
        # NNAPI: out = in*s + k - s - head - tail; PyTorch adds output_padding at the end.
        pads = [g.emit_int32(padding[1]), g.emit_int32(padding[1] - output_padding[1]),
                g.emit_int32(padding[0]), g.emit_int32(padding[0] - output_padding[0])]
        inputs = [inp, filt, bias_operand(lc, bias_node, bias, out_channels, inp, filt), *pads, g.emit_int32(stride[1]), g.emit_int32(stride[0]),
                  fuse_operand(lc, node), g.emit_bool(False)]
        g.emit_operation(OperationCode.TRANSPOSE_CONV_2D, inputs, [out], debug_name=node.name)
        _finish_1d(lc, node, out)


def _dilated_plan(node: Node, shape_of, level: FeatureLevel, zero_point: int | None) -> DilatedPlan | str | None:
    """A dilated convolution's form below API 29 (or why it has none); None when it needs none
    (no dilation, a transposed or grouped one, or API 29+). ``shape_of``: a node's logical shape."""
    x, weight, _, stride, padding, dilation, transposed, _, groups = _conv_args(node)
    if dilation == [1, 1] or transposed or level >= FeatureLevel.ANDROID_10:
        return None
    x_shape = shape_of(x)
    in_channels = x_shape[1]
    depthwise = groups != 1 and groups == in_channels
    if groups != 1 and not depthwise:
        return None  # GROUPED_CONV_2D: API 29 anyway
    in_hw = (1, x_shape[2]) if len(x_shape) == 3 else tuple(x_shape[2:])
    return plan_dilated(in_hw, _kernel_hw(weight), stride, padding, dilation, depthwise, level, zero_point)


def _nhwc_operands(lc: LoweringContext, node: Node) -> tuple[int, int]:
    """The NHWC input and output operands of the 2-D operation. A 1-D convolution's
    channels-last [N, L, C] input is RESHAPEd to [N, 1, L, C]; its output is a
    temporary [N, 1, L', C'] that ``_finish_1d`` RESHAPEs to the node's value."""
    x = node.args[0]
    if len(lc.shape(x)) == 4:
        return lc.operand(x, NHWC), lc.emit_output(node, NHWC)
    g = lc.graph
    source = lc.operand(x, CHANNELS_LAST_1D)
    n, c, length = lc.shape(x)
    inp = g.emit_like(source, [n, 1, length, c], debug_name=f"{node.name}.h1")
    g.emit_operation(OperationCode.RESHAPE, [source, g.emit_int32_vector([n, 1, length, c])], [inp],
                     debug_name=node.name)
    n, c_out, length_out = lc.shape(node)
    shape_2d = [n, 1, length_out, c_out]
    params = lc.quant_params(node)
    if params is None:
        return inp, g.emit_tensor(shape_2d, debug_name=f"{node.name}.2d")
    return inp, g.emit_operand(QUANTIZED_TYPES[params.dtype], shape_2d, scale=params.scale,
                               zero_point=params.zero_point, debug_name=f"{node.name}.2d")


def _finish_1d(lc: LoweringContext, node: Node, out: int) -> None:
    """A 1-D convolution's result: the 2-D output RESHAPEd to channels-last [N, L', C']."""
    if len(lc.shape(node)) != 3:
        return
    g = lc.graph
    n, c_out, length_out = lc.shape(node)
    value = lc.emit_output(node, CHANNELS_LAST_1D)
    g.emit_operation(OperationCode.RESHAPE, [out, g.emit_int32_vector([n, length_out, c_out])], [value],
                     debug_name=node.name)
