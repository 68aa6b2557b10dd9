"""aten.eq / ne / gt / ge / lt / le (.Tensor and .Scalar) -> EQUAL / NOT_EQUAL / GREATER /
GREATER_EQUAL / LESS / LESS_EQUAL (API 29): broadcasting, a TENSOR_BOOL8 result in PyTorch's dim
order (see bool_values.py).

Inputs are float32, int32, int64 or bool tensors of the dtype PyTorch compares in; constants and
numbers are converted to it at lowering time. int64 values are compared as the TENSOR_INT32 operands
that hold them exactly (builders/integer_ranges.py), so ``input_ids != padding_idx`` needs no CAST;
a number outside int32 is refused. A bool tensor compared with 0 or 1 (``mask == 0``, which
PyTorch computes in int64) is compared with False or True instead: the same order, the same result.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, tensor_dtype
from .bool_values import COMPUTE_DTYPES, HELD_IN_INT32, check_inputs, emit_result, operand, result_dtype
from .node_builder import CheckContext, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten

_CODES = {
    aten.eq.Tensor: OperationCode.EQUAL, aten.eq.Scalar: OperationCode.EQUAL,
    aten.ne.Tensor: OperationCode.NOT_EQUAL, aten.ne.Scalar: OperationCode.NOT_EQUAL,
    aten.gt.Tensor: OperationCode.GREATER, aten.gt.Scalar: OperationCode.GREATER,
    aten.ge.Tensor: OperationCode.GREATER_EQUAL, aten.ge.Scalar: OperationCode.GREATER_EQUAL,
    aten.lt.Tensor: OperationCode.LESS, aten.lt.Scalar: OperationCode.LESS,
    aten.le.Tensor: OperationCode.LESS_EQUAL, aten.le.Scalar: OperationCode.LESS_EQUAL,
}


def compare_dtype(args) -> torch.dtype:
    """The dtype to compare ``args`` in: PyTorch's, or bool for bool tensors and the numbers 0 and 1."""
    dtype = result_dtype(args)
    tensors = [a for a in args if isinstance(a, Node)]
    numbers = [a for a in args if not isinstance(a, Node)]
    if dtype not in COMPUTE_DTYPES and all(tensor_dtype(t) == torch.bool for t in tensors) \
            and all(n in (0, 1) for n in numbers):
        return torch.bool
    return dtype


@register_builder
class ComparisonBuilder(NodeBuilder):
    ops = tuple(OpSupport(op, FeatureLevel.ANDROID_10, code.name, "float32, int32, int64 (held in int32) or bool "
                          "inputs of the dtype PyTorch compares in, broadcasting; numbers and constants converted")
                for op, code in _CODES.items())

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_inputs(ctx, node.args[:2], compare_dtype(node.args[:2]), allowed=(*COMPUTE_DTYPES, *HELD_IN_INT32))

    def define(self, node: Node, lc: LoweringContext) -> None:
        a, b = node.args[:2]
        dtype = compare_dtype((a, b))
        inputs = [operand(lc, a, dtype), operand(lc, b, dtype)]
        lc.graph.emit_operation(_CODES[aten_op(node)], inputs, [emit_result(lc, node)], debug_name=node.name)
