"""aten.logical_and / or / xor / not -> LOGICAL_AND / LOGICAL_OR / NOT_EQUAL / LOGICAL_NOT (API 29),
and the bitwise forms of the same ops on bool tensors (``a & b``, ``a | b``, ``a ^ b``, ``~a``).

The result is a TENSOR_BOOL8 in PyTorch's dim order (see bool_values.py). The logical ops take
float32 and int32 inputs too, as PyTorch does: ``x != 0`` is their truth value.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op
from .bool_values import as_bool, check_inputs, emit_result, result_dtype
from .node_builder import CheckContext, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten

_CODES = {
    aten.logical_and.default: OperationCode.LOGICAL_AND,
    aten.logical_or.default: OperationCode.LOGICAL_OR,
    aten.logical_xor.default: OperationCode.NOT_EQUAL,
    aten.logical_not.default: OperationCode.LOGICAL_NOT,
    aten.bitwise_and.Tensor: OperationCode.LOGICAL_AND,
    aten.bitwise_or.Tensor: OperationCode.LOGICAL_OR,
    aten.bitwise_xor.Tensor: OperationCode.NOT_EQUAL,
    aten.bitwise_not.default: OperationCode.LOGICAL_NOT,
}
# Bitwise ops are logical only on bool tensors.
_BOOL_ONLY = frozenset({aten.bitwise_and.Tensor, aten.bitwise_or.Tensor, aten.bitwise_xor.Tensor,
                        aten.bitwise_not.default})


def _inputs(node: Node) -> tuple:
    return node.args[:1] if aten_op(node) in (aten.logical_not.default, aten.bitwise_not.default) else node.args[:2]


@register_builder
class LogicalBuilder(NodeBuilder):
    ops = tuple(OpSupport(op, FeatureLevel.ANDROID_10, code.name,
                          ("bool tensors" if op in _BOOL_ONLY else "bool inputs (float32 / int32: x != 0)")
                          + ("" if op in (aten.logical_not.default, aten.bitwise_not.default) else ", broadcasting"))
                for op, code in _CODES.items())

    def check(self, node: Node, ctx: CheckContext) -> None:
        op = aten_op(node)
        allowed = (torch.bool,) if op in _BOOL_ONLY else (torch.float32, torch.int32, torch.bool)
        # Each input is converted to bool on its own, so they need not share a dtype.
        for x in _inputs(node):
            check_inputs(ctx, [x], result_dtype([x]), allowed)

    def define(self, node: Node, lc: LoweringContext) -> None:
        inputs = [as_bool(lc, node, x, result_dtype([x])) for x in _inputs(node)]
        lc.graph.emit_operation(_CODES[aten_op(node)], inputs, [emit_result(lc, node)], debug_name=node.name)
