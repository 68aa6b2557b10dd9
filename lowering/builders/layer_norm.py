"""aten.native_layer_norm -> MEAN, SUB, MUL, MEAN, ADD eps, RSQRT, MUL (+ MUL weight,
ADD bias), all in the input's physical dim order (NNAPI has no layer-norm operation).

The normalized dims are the last ones of the logical shape; they are reduced at
their physical positions, so a channels-last value (e.g. ConvNeXt's
``permute -> layer_norm -> permute`` around an NHWC convolution) needs no
TRANSPOSE. Only the normalized output (getitem 0) is produced; the saved mean
and rstd outputs are refused.
"""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from ..graph import permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank, constant_operand, physical_axis
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def normalized_output(node: Node) -> Node | None:
    """The getitem(0) user of a native_layer_norm / native_group_norm node, or None if its saved
    mean and rstd outputs (1, 2) are used too."""
    out = None
    for user in node.users:
        if user.op != "call_function" or user.target is not operator.getitem or user.args[1] != 0:
            return None
        out = user
    return out


@register_builder
class LayerNormBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.native_layer_norm.default, FeatureLevel.ANDROID_10, "MEAN, SUB, MUL, MEAN, ADD, RSQRT, MUL (+ MUL, ADD affine)",
                  "float32, rank <= 4, trailing normalized dims, constant weight/bias, only output 0 used"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, normalized_shape, weight, bias = node.args[:4]
        check_float_tensors(node.args[0], x, weight, bias)
        check_rank(x, MAX_RANK, what="input")
        shape = tensor_shape(x)
        k = len(normalized_shape)
        if k == 0 or k > len(shape) or list(shape[len(shape) - k:]) != list(normalized_shape):
            raise Refused(f"normalized_shape {list(normalized_shape)} is not the trailing dims of {shape}")
        for p in (weight, bias):
            if p is not None and not ctx.is_constant(p):
                raise Refused("layer norm with non-constant weight or bias")
        if normalized_output(node) is None:
            raise Refused("layer norm whose saved mean/rstd outputs are used (NNAPI computes output 0 only)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, normalized_shape, weight, bias, eps = node.args[:5]
        out_node = normalized_output(node)
        g = lc.graph
        order = lc.order(x)
        rank = len(order)
        logical = lc.shape(x)
        dims = permute_shape(logical, order)
        axes = [physical_axis(order, d) for d in range(rank - len(normalized_shape), rank)]
        reduced = [1 if i in axes else d for i, d in enumerate(dims)]
        x_op = lc.operand(x, order)
        name = node.name
        steps = iter(range(1, 100))

        def temp(shape) -> int:
            return g.emit_tensor(shape, debug_name=f"{name}.{next(steps)}")

        def emit(code: OperationCode, inputs: list[int], out: int) -> int:
            if code in (OperationCode.ADD, OperationCode.SUB, OperationCode.MUL):
                inputs = inputs + [g.emit_int32(int(FuseCode.NONE))]
            g.emit_operation(code, inputs, [out], debug_name=name)
            return out

        axes_op = g.emit_int32_vector(axes)
        keep = g.emit_int32(1)
        mean = emit(OperationCode.MEAN, [x_op, axes_op, keep], temp(reduced))
        centered = emit(OperationCode.SUB, [x_op, mean], temp(dims))
        squared = emit(OperationCode.MUL, [centered, centered], temp(dims))
        # Biased variance (divide by N), as PyTorch's layer norm.
        var = emit(OperationCode.MEAN, [squared, axes_op, keep], temp(reduced))
        var_eps = emit(OperationCode.ADD, [var, g.emit_constant_tensor(torch.tensor([float(eps)]))], temp(reduced))
        rstd = emit(OperationCode.RSQRT, [var_eps], temp(reduced))
        affine = [(OperationCode.MUL, weight), (OperationCode.ADD, bias)]
        affine = [(code, p) for code, p in affine if p is not None]
        if not affine:
            emit(OperationCode.MUL, [centered, rstd], lc.emit_output(out_node, order))
            return
        value = emit(OperationCode.MUL, [centered, rstd], temp(dims))
        for i, (code, p) in enumerate(affine):
            # weight/bias have the normalized shape: broadcast from the trailing logical dims.
            p_op = constant_operand(lc, lc.constant(p), rank, order)
            out = lc.emit_output(out_node, order) if i == len(affine) - 1 else temp(dims)
            value = emit(code, [value, p_op], out)
