"""aten.convolution -> CONV_2D / DEPTHWISE_CONV_2D / GROUPED_CONV_2D / TRANSPOSE_CONV_2D."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import NHWC
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .batch_norm import folded_parameters
from .common import check_float_tensors, fuse_operand
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantized_weights import bias_operand, weight_operand
from .registry import register_builder

aten = torch.ops.aten


def _conv_args(node: Node):
    x, weight, bias, stride, padding, dilation, transposed, output_padding, groups = node.args
    return x, weight, bias, list(stride), list(padding), list(dilation), bool(transposed), list(output_padding), int(groups)


@register_builder
class ConvolutionBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.convolution.default, FeatureLevel.ANDROID_8_1, "CONV_2D / DEPTHWISE_CONV_2D / GROUPED_CONV_2D / TRANSPOSE_CONV_2D",
                  "float32, 2-D, constant weight and bias, padding < kernel; dilation, groups not in {1, Cin} "
                  "and transposed need API 29"),
    )
    layout = LayoutClass.NHWC
    fuses_activation = True

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, weight, bias, stride, padding, dilation, transposed, output_padding, groups = _conv_args(node)
        check_float_tensors(node, x, weight, bias)
        if len(tensor_shape(x)) != 4:
            raise Refused(f"{len(tensor_shape(x)) - 2}-D convolution (NNAPI has 2-D convolutions only)")
        # A quantized weight dequantizes constant codes: computable at lowering time.
        if not ctx.is_foldable(weight):
            raise Refused("convolution with a non-constant weight")
        if bias is not None and not ctx.is_foldable(bias):
            raise Refused("convolution with a non-constant bias")
        w_shape = tensor_shape(weight)
        kh, kw = w_shape[2], w_shape[3]
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
        if dilation != [1, 1]:
            ctx.require(FeatureLevel.ANDROID_10, f"convolution with dilation={dilation}")
        in_channels = tensor_shape(x)[1]
        out_channels = w_shape[0]
        if groups != 1 and not (groups == in_channels and out_channels % in_channels == 0):
            ctx.require(FeatureLevel.ANDROID_10, f"grouped convolution (groups={groups}, GROUPED_CONV_2D)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, weight_node, bias_node, stride, padding, dilation, transposed, output_padding, groups = _conv_args(node)
        folded = folded_parameters(lc, node)
        if folded is not None:
            weight, bias = folded
        else:
            weight = lc.constant(weight_node).to(torch.float32)
            bias = lc.constant(bias_node).to(torch.float32) if bias_node is not None else None
        g = lc.graph
        if transposed:
            self._define_transposed(node, lc, (weight_node, weight), (bias_node, bias), stride, padding,
                                    output_padding)
            return
        out_channels, _, kh, kw = weight.shape
        in_channels = lc.shape(x)[1]
        inp = lc.operand(x, NHWC)
        out = lc.emit_output(node, NHWC)
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

    @staticmethod
    def _define_transposed(node, lc, weight, bias, stride, padding, output_padding) -> None:
        g = lc.graph
        x = node.args[0]
        (weight_node, weight), (bias_node, bias) = weight, bias
        out_channels = weight.shape[1]
        inp = lc.operand(x, NHWC)
        out = lc.emit_output(node, NHWC)
        filt = weight_operand(lc, weight_node, weight, (1, 2, 3, 0))  # [Cin,Cout,kh,kw] -> [Cout,kh,kw,Cin]
        # NNAPI: out = in*s + k - s - head - tail; PyTorch adds output_padding at the end.
        pads = [g.emit_int32(padding[1]), g.emit_int32(padding[1] - output_padding[1]),
                g.emit_int32(padding[0]), g.emit_int32(padding[0] - output_padding[0])]
        inputs = [inp, filt, bias_operand(lc, bias_node, bias, out_channels, inp, filt), *pads, g.emit_int32(stride[1]), g.emit_int32(stride[0]),
                  fuse_operand(lc, node), g.emit_bool(False)]
        g.emit_operation(OperationCode.TRANSPOSE_CONV_2D, inputs, [out], debug_name=node.name)
