"""aten.index.Tensor with one integer index tensor -> GATHER (API 29) along that dim.

``x[:, :, i]`` with ``i`` of any shape of rank >= 1 is NNAPI's GATHER: the result is
``x.shape[:d] + i.shape + x.shape[d + 1:]``, exactly torch's for a single index tensor. Indexing
on several dims or with a bool mask reaches this builder only as this form
(lowering/passes/computed_gathers.py merges the indexed dims and combines their indices).
GATHER takes the indices with any shape, so run-time indices need no RESHAPE (a TENSOR_INT32
RESHAPE needs feature level 6). Indices are int32 or int64 held in int32; constant ones are
checked in bounds (eager raises outside; negative ones are wrapped by the rewrite before).
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import LoweringError, identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_dtype, tensor_shape
from ..shape_program import is_static
from .bool_values import HELD_IN_INT32, check_bool_conversion, emit_bool_gather
from .common import MAX_RANK, check_rank
from .index_select import check_runtime_indices
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

_VALUE_DTYPES = (torch.float32, *HELD_IN_INT32)


def single_index(node: Node) -> tuple[int, Node] | None:
    """(dim, index) when ``node`` indexes one dim by one integer tensor, else None."""
    indices = list(node.args[1])
    dims = [d for d, i in enumerate(indices) if i is not None]
    if len(dims) != 1 or not isinstance(indices[dims[0]], Node):
        return None
    if tensor_dtype(indices[dims[0]]) not in (torch.int64, torch.int32):
        return None
    return dims[0], indices[dims[0]]


@register_builder
class IndexTensorBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.index.Tensor, FeatureLevel.ANDROID_10, "GATHER",
                  "one int32 / int64 index tensor (several, or on dims apart: merged into one by the "
                  "computed-gathers rewrite), float32 or int32 / int64 input, or bool of static size (as 1 / 0 "
                  "floats, then NOT_EQUAL 0), input and result of rank <= 4; "
                  "constant indices checked in bounds (a static size along the indexed dim)"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        found = single_index(node)
        if found is None:
            raise Refused("indexing by several tensors or by a bool mask (one integer index tensor is one GATHER)")
        dim, index = found
        if tensor_dtype(x) == torch.bool and tensor_dtype(node) == torch.bool:
            # GATHER takes no BOOL8: the mask as 1 / 0 floats, gathered, compared with 0.
            check_bool_conversion(node, ctx, "a bool tensor indexed")
        elif tensor_dtype(x) not in _VALUE_DTYPES or tensor_dtype(node) != tensor_dtype(x):
            raise Refused(f"indexing a {tensor_dtype(x)} tensor (GATHER here takes float32, int32, int64 and bool)")
        check_rank(x, MAX_RANK, what="input")
        check_rank(node, MAX_RANK, what="output")
        if len(tensor_shape(index)) == 0:
            raise Refused("a 0-d index tensor")
        size = tensor_shape(x)[dim]
        if ctx.is_foldable(index):
            if not is_static(size):
                raise Refused("constant indices along a dim of dynamic size (they cannot be checked in bounds)")
            value = ctx.folded_value(index)
            if value is not None and value.numel() and (int(value.min()) < 0 or int(value.max()) >= int(size)):
                raise Refused(f"constant indices outside [0, {size}) (negative ones are wrapped before lowering; "
                              "eager fails outside [-{size}, {size}))")
        else:
            check_runtime_indices(index, "index")
        check_int64_result(node, ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        dim, index = single_index(node)
        g = lc.graph
        if lc.is_constant(index):
            size = int(lc.shape(x)[dim])
            value = lc.constant(index)
            if value.numel() and (int(value.min()) < 0 or int(value.max()) >= size):
                raise LoweringError(f"{node.name}: indices outside [0, {size}) (eager would fail too)")
            index_op = g.emit_constant_tensor(value.to(torch.int32), debug_name=f"{node.name}.indices")
        else:
            index_op = lc.operand(index, identity(len(lc.shape(index))))
        rank = len(lc.shape(x))
        if tensor_dtype(x) == torch.bool:   # bool values are held in PyTorch's dim order
            emit_bool_gather(lc, node, x, dim, index_op)
            return
        out = lc.emit_output(node)  # in PyTorch's order, as GATHER of an input in PyTorch's order gives
        g.emit_operation(OperationCode.GATHER, [lc.operand(x, identity(rank)), g.emit_int32(dim), index_op], [out],
                         debug_name=node.name)
