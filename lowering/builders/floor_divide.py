"""aten.div.Tensor_mode / div.Scalar_mode: rounding_mode='floor' (``//``, floor_divide) on
int32 -> DIV on TENSOR_INT32 (API 30), which floors (Python ``//``) as PyTorch does;
rounding_mode='trunc' on float32 -> DIV, then trunc composed from FLOOR (API 28): PyTorch
computes trunc(a / b) in float32 too, so the result is exact.

Refused: float floor division, exactly: NNAPI has no floating-point remainder (fmod) at any
feature level, and floor(DIV(a, b)) is not PyTorch's result where a / b rounds up to an
integer (PyTorch computes (a - fmod(a, b)) / b first: 1 // 0.1 is 9, floor(1 / 0.1) is 10).
int64 operands (NNAPI has no 64-bit integers, and INT32_MIN // -1 would not fit) and
int32 rounding_mode='trunc' (DIV on TENSOR_INT32 floors) stay on the CPU. Division by zero:
PyTorch raises, NNAPI leaves it unspecified (the host driver fails the execute).
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_dtype, tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank, common_order, elementwise_operands, is_scalar
from .elementwise_chain import ElementwiseChain
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .rounding import emit_trunc

aten = torch.ops.aten

FLOAT_REFUSAL = ("float floor division: NNAPI has no floating-point remainder (fmod) at any feature level, "
                 "and floor(DIV(a, b)) differs from PyTorch where a / b rounds up to an integer "
                 "(1 // 0.1 is 9.0 in PyTorch, floor(1 / 0.1) is 10.0)")


def _rounding_mode(node: Node) -> str | None:
    return node.kwargs.get("rounding_mode", node.args[2] if len(node.args) > 2 else None)


@register_builder
class FloorDivideBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.div.Tensor_mode, FeatureLevel.ANDROID_9, "DIV (TENSOR_INT32); float trunc: DIV + RELU / "
                  "MUL / FLOOR / ADD", "rank <= 4, broadcasting; 'floor' on int32 (API 30); 'trunc' on float32 "
                  "with the dividend at the output's shape; float 'floor' refused (no fmod in NNAPI: not exact)"),
        OpSupport(aten.div.Scalar_mode, FeatureLevel.ANDROID_9, "DIV (TENSOR_INT32); float trunc: DIV + RELU / "
                  "MUL / FLOOR / ADD", "as div.Tensor_mode with a number divisor (integer for int32)"),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        a, b = node.args[:2]
        mode = _rounding_mode(node)
        dtype = tensor_dtype(node)
        if mode == "trunc" and dtype == torch.float32:
            self._check_float_trunc(node)
            return
        if mode != "floor":
            raise Refused(f"div with rounding_mode={mode!r} on {dtype} (NNAPI's DIV on TENSOR_INT32 floors; "
                          "trunc is lowered for float32 only)".replace("torch.", ""))
        if dtype is not None and dtype.is_floating_point:
            raise Refused(FLOAT_REFUSAL)
        ctx.require(FeatureLevel.ANDROID_11, "int32 floor division (DIV on TENSOR_INT32)")
        for x in (node, a, b):
            if isinstance(x, Node) and tensor_dtype(x) != torch.int32:
                raise Refused(f"floor division with a {tensor_dtype(x)} operand (DIV takes TENSOR_INT32; "
                              "NNAPI has no 64-bit integers)".replace("torch.", ""))
            if not isinstance(x, Node) and not (is_scalar(x) and isinstance(x, int)):
                raise Refused(f"floor division by {x!r} (an int32 tensor or an integer is needed)")
        check_rank(node, MAX_RANK, what="output")
        if not isinstance(a, Node) and not isinstance(b, Node):
            raise Refused("floor division of two numbers")

    @staticmethod
    def _check_float_trunc(node: Node) -> None:
        a, b = node.args[:2]
        check_float_tensors(node, a, b)
        check_rank(node, MAX_RANK, what="output")
        if not isinstance(a, Node) or len(tensor_shape(a)) != len(tensor_shape(node)):
            raise Refused("trunc division whose dividend is not a tensor of the output's rank")

    def define(self, node: Node, lc: LoweringContext) -> None:
        a, b = node.args[:2]
        g = lc.graph
        if lc.dtype(node) == torch.float32:
            (a_op, b_op), order = elementwise_operands(lc, node, [a, b])
            chain = ElementwiseChain(lc, node)
            chain.order, chain.dims = order, permute_shape(lc.shape(node), order)  # the operands' common order
            emit_trunc(chain, chain.op(OperationCode.DIV, [a_op, b_op]))
            return
        order = common_order(lc, node, [a, b])
        rank = len(order)
        operands = []
        for x in (a, b):
            if isinstance(x, Node) and not lc.is_constant(x):
                operands.append(lc.operand(x, order if len(lc.shape(x)) == rank else None))
                continue
            value = torch.tensor([x]) if not isinstance(x, Node) else lc.constant(x)
            if value.numel() > 1:  # broadcast against the physical (permuted) dims
                value = value.reshape([1] * (rank - value.dim()) + list(value.shape)).permute(order)
            else:
                value = value.reshape(1)
            operands.append(g.emit_constant_tensor(value.to(torch.int64), debug_name=f"{node.name}.divisor"))
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.DIV, [*operands, g.emit_int32(int(FuseCode.NONE))], [out], debug_name=node.name)
