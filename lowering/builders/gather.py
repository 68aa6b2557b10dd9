"""aten.gather -> GATHER (API 29) when the input has size 1 along every dim but ``dim``.

``torch.gather(input, dim, index)`` picks ``input[..., index[i, j, ...], ...]`` per element of
``index``; when every other dim of ``input`` has size 1 (Hugging Face RoBERTa's
``token_type_ids`` buffer of shape [1, max_positions] gathered with the position ids), that is
``input.flatten()[index]``: NNAPI's GATHER along axis 0 of the flattened input, its indices
``index`` itself, whose shape is the result's. The flattened input is a constant reshaped at
lowering time or a run-time value RESHAPEd (TENSOR_INT32 RESHAPE needs feature level 6).

The indices are int32, or int64 held in TENSOR_INT32 (builders/integer_ranges.py). NNAPI requires
them in bounds, as eager does (it raises); constant indices are checked at lowering time.
"""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from ..graph import LoweringError, identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import is_static
from .bool_values import HELD_IN_INT32
from .common import MAX_RANK, check_rank
from .index_select import check_runtime_indices
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

_VALUE_DTYPES = (torch.float32, *HELD_IN_INT32)


def _length(x: Node) -> int:
    """The number of elements of ``x`` (every dim static)."""
    return math.prod(int(d) for d in tensor_shape(x))


@register_builder
class GatherBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.gather.default, FeatureLevel.ANDROID_10, "GATHER (RESHAPE of a run-time input)",
                  "float32, int32 or int64 (held in int32) input of size 1 along every dim but dim, static sizes; "
                  "int32 / int64 indices of rank <= 4; a run-time integer input needs feature level 6"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, dim, index = node.args[:3]
        if tensor_dtype(x) not in _VALUE_DTYPES or tensor_dtype(node) != tensor_dtype(x):
            raise Refused(f"gather of a {tensor_dtype(x)} input (GATHER here takes float32, int32 and int64)")
        shape = tensor_shape(x)
        if not all(is_static(d) for d in shape):
            raise Refused("gather from an input of dynamic size")
        dim = normalize_dim(dim, max(len(shape), 1))
        if any(int(d) != 1 for i, d in enumerate(shape) if i != dim):
            raise Refused(f"gather from an input of shape {[int(d) for d in shape]} (only one dim larger than 1 "
                          "is a single GATHER)")
        check_rank(index, MAX_RANK, what="index")
        if not ctx.is_foldable(x) and tensor_dtype(x) != torch.float32:
            ctx.require(FeatureLevel.FEATURE_LEVEL_6, "gather from a run-time integer tensor (TENSOR_INT32 RESHAPE)")
        if ctx.is_foldable(index):
            value = ctx.folded_value(index)
            if value is not None and value.numel() and (int(value.min()) < 0 or int(value.max()) >= _length(x)):
                raise Refused(f"gather with constant indices outside [0, {_length(x)}) (eager fails too)")
        else:
            check_runtime_indices(index, "gather")
        check_int64_result(node, ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, _, index = node.args[:3]
        g = lc.graph
        n = _length(x)
        if lc.is_constant(x):
            source = g.emit_constant_tensor(lc.constant(x).reshape(n), debug_name=f"{node.name}.input")
        else:
            source = g.emit_tensor([n], lc.dtype(x), debug_name=f"{node.name}.flat")
            g.emit_operation(OperationCode.RESHAPE, [lc.operand(x), g.emit_int32_vector([n])], [source],
                             debug_name=node.name)
        if lc.is_constant(index):
            value = lc.constant(index)
            if value.numel() and (int(value.min()) < 0 or int(value.max()) >= n):
                raise LoweringError(f"{node.name}: gather indices outside [0, {n}) (eager would fail too)")
            index_op = g.emit_constant_tensor(value, debug_name=f"{node.name}.indices")
        else:
            rank = len(lc.shape(index))
            index_op = lc.operand(index, identity(rank) if rank else lc.order(index))
        out = lc.emit_output(node)  # GATHER's result has the indices' shape, in PyTorch's order
        g.emit_operation(OperationCode.GATHER, [source, g.emit_int32(0), index_op], [out], debug_name=node.name)
