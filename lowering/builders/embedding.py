"""aten.embedding -> GATHER (API 29) of the weight's rows (axis 0).

The indices are int64 in PyTorch; NNAPI has no 64-bit integers, so they are a
TENSOR_INT32 operand: constant indices are narrowed at lowering time (LoweringError
if one does not fit int32), run-time ones by the runtime while it copies the
partition input in (the execute fails, naming the input, if one does not fit).
NNAPI requires them in bounds; eager raises IndexError, a device's behaviour is
undefined and the host driver fails the execute. ``padding_idx`` only matters for
gradients.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank
from .index_select import check_runtime_indices
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class EmbeddingBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.embedding.default, FeatureLevel.ANDROID_10, "GATHER",
                  "float32 2-D weight, output rank <= 4; int64 indices narrowed to int32 (constant: at lowering "
                  "time; run time: by the runtime, execute fails outside int32)"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        weight, indices = node.args[:2]
        check_float_tensors(node, weight)
        check_rank(weight, 2, min_rank=2, what="weight")
        check_rank(node, MAX_RANK, what="output")
        if len(node.args) > 4 and node.args[4]:
            raise Refused("embedding with sparse=True")
        if len(tensor_shape(indices)) == 0:
            raise Refused("embedding with 0-d indices (GATHER keeps the indices' dim: [1, D], not [D])")
        if not ctx.is_foldable(indices):
            check_runtime_indices(indices, "embedding")
            return
        value = ctx.folded_value(indices)
        rows = tensor_shape(weight)[0]
        if value is not None and is_static(rows):
            if value.numel() and (int(value.min()) < 0 or int(value.max()) >= int(rows)):
                raise Refused(f"embedding with constant indices outside [0, {rows}) (eager fails too)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        weight, indices = node.args[:2]
        g = lc.graph
        if lc.is_constant(indices):
            rows = int(tensor_shape(weight)[0])
            value = lc.constant(indices)
            if value.numel() and (int(value.min()) < 0 or int(value.max()) >= rows):
                raise LoweringError(f"{node.name}: embedding indices outside [0, {rows}) (eager would fail too)")
            index_op = g.emit_constant_tensor(value, debug_name=f"{node.name}.indices")
        else:
            index_op = lc.operand(indices)
        out = lc.emit_output(node)
        g.emit_operation(OperationCode.GATHER, [lc.operand(weight, (0, 1)), g.emit_int32(0), index_op], [out],
                         debug_name=node.name)
