"""aten.index_select with indices known at lowering time -> GATHER (API 29) on the
physical axis of the input's dim order.

The indices (int64 in PyTorch, e.g. the ``(arange + shift) % n`` that
``torch.roll`` decomposes into in Swin's shifted windows) are folded and stored
as an int32 constant; NNAPI has no 64-bit integers, so indices computed at run
time are refused.
"""

from __future__ import annotations

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.fx import Node

from ..graph import LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class IndexSelectBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.index_select.default, FeatureLevel.ANDROID_10, "GATHER", "float32, rank <= 4, indices known at lowering time"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, dim, index = node.args[:3]
        check_float_tensors(node, x)
        check_rank(x, MAX_RANK, what="input")
        if not ctx.is_foldable(index):
            raise Refused("index_select with indices computed at run time (int64; NNAPI has no 64-bit integers)")
        shape = tensor_shape(x)
        size = shape[normalize_dim(dim, len(shape))]
        if not is_static(size):
            raise Refused("index_select along a dynamic dim (GATHER needs indices checked in bounds)")
        value = ctx.constant(index) if ctx.is_constant(index) else None
        if isinstance(value, torch.Tensor) and not isinstance(value, FakeTensor):  # fake before to_edge
            if value.numel() == 0 or value.min() < 0 or value.max() >= size:
                raise Refused(f"index_select with indices outside [0, {size}) or empty")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, dim, index = node.args[:3]
        g = lc.graph
        order = lc.order(x)
        shape = lc.shape(x)
        dim = normalize_dim(dim, len(shape))
        indices = lc.constant(index).reshape(-1)
        if indices.numel() == 0 or indices.min() < 0 or indices.max() >= int(shape[dim]):
            raise LoweringError(f"{node.name}: index_select indices outside [0, {shape[dim]}) (eager would fail too)")
        index_op = g.emit_constant_tensor(indices.to(torch.int32))
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.GATHER, [lc.operand(x, order), g.emit_int32(physical_axis(order, dim)), index_op],
                         [out], debug_name=node.name)
