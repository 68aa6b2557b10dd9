"""aten.index_select -> GATHER (API 29) on the physical axis of the input's dim order.

Indices known at lowering time (int64 in PyTorch, e.g. the ``(arange + shift) % n``
that ``torch.roll`` decomposes into in Swin's shifted windows) are folded, checked
in bounds and stored as an int32 constant. Indices computed at run time (an int64
or int32 tensor) are a TENSOR_INT32 operand: NNAPI has no 64-bit integers, so the
runtime narrows an int64 partition input while copying it in and fails the execute,
naming the input, if a value does not fit int32. NNAPI requires run-time indices to
be in bounds (eager raises IndexError): an out-of-range index is undefined on a
device; the host driver fails the execute.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import is_static
from .bool_values import check_bool_conversion, emit_bool_gather
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

INDEX_DTYPES = (torch.int64, torch.int32)


def check_runtime_indices(index: Node, what: str) -> None:
    """Refuses run-time indices NNAPI cannot take as a TENSOR_INT32 operand."""
    if tensor_dtype(index) not in INDEX_DTYPES:
        raise Refused(f"{what} indices of dtype {tensor_dtype(index)} (GATHER takes int32; int64 is narrowed)")


@register_builder
class IndexSelectBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.index_select.default, FeatureLevel.ANDROID_10, "GATHER",
                  "float32 (bool of static size as 1 / 0 floats, then NOT_EQUAL 0), rank <= 4; constant indices checked in bounds and stored as int32; run-time int64 "
                  "indices narrowed to int32 by the runtime (execute fails outside int32)"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, dim, index = node.args[:3]
        if tensor_dtype(x) == torch.bool and tensor_dtype(node) == torch.bool:
            # GATHER takes no BOOL8: the mask as 1 / 0 floats, gathered, compared with 0.
            check_bool_conversion(node, ctx, "index_select of a bool tensor")
        else:
            check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        if not ctx.is_foldable(index):
            check_runtime_indices(index, "index_select")
            return
        shape = tensor_shape(x)
        size = shape[normalize_dim(dim, len(shape))]
        if not is_static(size):
            raise Refused("index_select with constant indices along a dynamic dim (they cannot be checked "
                          "in bounds at lowering time)")
        value = ctx.folded_value(index)
        if value is not None:
            if value.numel() == 0 or value.min() < 0 or value.max() >= size:
                raise Refused(f"index_select with indices outside [0, {size}) or empty")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, dim, index = node.args[:3]
        g = lc.graph
        order = lc.order(x)
        shape = lc.shape(x)
        dim = normalize_dim(dim, len(shape))
        if lc.is_constant(index):
            indices = lc.constant(index).reshape(-1)
            if indices.numel() == 0 or indices.min() < 0 or indices.max() >= int(shape[dim]):
                raise LoweringError(f"{node.name}: index_select indices outside [0, {shape[dim]}) "
                                    "(eager would fail too)")
            index_op = g.emit_constant_tensor(indices.to(torch.int32))
        else:
            index_op = lc.operand(index)
        if tensor_dtype(x) == torch.bool:   # bool values are held in PyTorch's dim order
            emit_bool_gather(lc, node, x, dim, index_op)
            return
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.GATHER, [lc.operand(x, order), g.emit_int32(physical_axis(order, dim)), index_op],
                         [out], debug_name=node.name)
