"""aten.linear / addmm / mm -> FULLY_CONNECTED (+ RESHAPE back for inputs of rank > 2)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, tensor_shape
from .batch_norm import folded_parameters
from .common import MAX_RANK, check_float_tensors, check_rank, fuse_operand
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .quantization import QuantKind, Quantization
from .quantized_weights import bias_operand, weight_operand
from .registry import register_builder

aten = torch.ops.aten


def _parts(node: Node):
    """(input, weight as [out, in] node-or-tensor spec, bias, transpose_weight)."""
    op = aten_op(node)
    if op == aten.linear.default:
        x, w = node.args[:2]
        b = node.args[2] if len(node.args) > 2 else None
        return x, w, b, False
    if op == aten.addmm.default:
        b, x, w = node.args[:3]
        return x, w, b, True
    x, w = node.args[:2]  # mm
    return x, w, None, True


@register_builder
class LinearBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.linear.default, FeatureLevel.ANDROID_8_1, "FULLY_CONNECTED", "float32, input rank 2-4, static in-features", keep=True,
                  # FULLY_CONNECTED has no per-channel weights: per tensor, of the activations' type.
                  quantized=Quantization(QuantKind.WEIGHTED, (aten.linear.default,), fuses_activation=True)),
        OpSupport(aten.addmm.default, FeatureLevel.ANDROID_8_1, "FULLY_CONNECTED", "float32, beta = alpha = 1, bias per output"),
        OpSupport(aten.mm.default, FeatureLevel.ANDROID_8_1, "FULLY_CONNECTED", "float32, static reduced dim"),
    )
    fuses_activation = True

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, w, b, _ = _parts(node)
        check_float_tensors(node, x, w, b)
        check_rank(x, MAX_RANK, min_rank=2, what="input")
        if len(tensor_shape(w)) != 2:
            raise Refused("weight of rank other than 2")
        if not isinstance(tensor_shape(x)[-1], int):
            raise Refused("dynamic dim in the reduced (input-features) dim")
        if aten_op(node) == aten.addmm.default:
            beta = node.kwargs.get("beta", 1)
            alpha = node.kwargs.get("alpha", 1)
            if beta != 1 or alpha != 1:
                raise Refused(f"addmm with beta={beta}, alpha={alpha}")
        if b is not None:
            b_shape = tensor_shape(b)
            if len(b_shape) == 2 and b_shape[0] != 1 or len(b_shape) > 2:
                raise Refused(f"bias of shape {b_shape} (FULLY_CONNECTED takes a per-output bias)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, w, b, transposed = _parts(node)
        g = lc.graph
        weight_t, bias_t = folded_parameters(lc, node) or (None, None)
        if weight_t is not None:
            w_op = g.emit_constant_tensor(weight_t)
        elif lc.is_constant(w):
            weight = lc.constant(w).to(torch.float32)
            w_op = weight_operand(lc, w, weight, (1, 0) if transposed else (0, 1))
        else:
            w_op = lc.operand(w, (1, 0) if transposed else (0, 1))
        out_features = g.operands[w_op].dims[0]
        if bias_t is not None:
            b_op = g.emit_constant_tensor(bias_t)
        elif b is None or lc.is_constant(b):
            bias = lc.constant(b) if b is not None else None
            b_op = bias_operand(lc, b, bias, int(out_features), lc.operand(x, identity(len(lc.shape(x)))), w_op)
        else:
            b_op = lc.operand(b)
            if len(lc.shape(b)) != 1:
                flat = g.emit_tensor([out_features], debug_name=f"{node.name}.bias")
                g.emit_operation(OperationCode.RESHAPE, [b_op, g.emit_int32_vector([out_features])], [flat])
                b_op = flat
        x_rank = len(lc.shape(x))
        x_op = lc.operand(x, identity(x_rank))
        out_shape = lc.shape(node)
        if x_rank == 2:
            out = lc.emit_output(node)
            g.emit_operation(OperationCode.FULLY_CONNECTED, [x_op, w_op, b_op, fuse_operand(lc, node)], [out],
                             debug_name=node.name)
            return
        rows = 1
        for d in out_shape[:-1]:
            rows = rows * d
        out = lc.emit_output(node)
        flat = g.emit_like(out, [rows, out_features], debug_name=f"{node.name}.2d")  # quantized as the output
        g.emit_operation(OperationCode.FULLY_CONNECTED, [x_op, w_op, b_op, fuse_operand(lc, node)], [flat],
                         debug_name=node.name)
        g.emit_operation(OperationCode.RESHAPE, [flat, g.emit_int32_vector(out_shape)], [out], debug_name=node.name)
