"""aten.topk -> TOPK_V2 (API 29): the k largest values along the last dimension, in decreasing order,
and their indices.

NNAPI's indices are TENSOR_INT32; PyTorch's are int64. Inside the partition they stay int32 (GATHER
and the index ops take them); a partition output is widened to int64 by the runtime, as for argmax.
Equal values: TOPK_V2 puts the larger index first (Android's reference, docs/nnapi_facts.md); the
order torch.topk gives equal values is unspecified.
"""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import is_static
from .getitem import PROVIDED_OUTPUTS as GETITEM_OUTPUTS
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten
# Both outputs are defined here (builders/getitem.py reads this table).
GETITEM_OUTPUTS[aten.topk.default] = None


def _args(node: Node) -> tuple[Node, int, int, bool]:
    x, k = node.args[0], node.args[1]
    dim = node.args[2] if len(node.args) > 2 else node.kwargs.get("dim", -1)
    largest = node.args[3] if len(node.args) > 3 else node.kwargs.get("largest", True)
    return x, k, normalize_dim(dim, len(tensor_shape(x))), bool(largest)


@register_builder
class TopkBuilder(NodeBuilder):
    """topk over the last dimension -> TOPK_V2 (in PyTorch's dim order)."""

    ops = (
        OpSupport(aten.topk.default, FeatureLevel.ANDROID_10, "TOPK_V2",
                  "float32 or int32 input, the last dimension, largest=True, a static k; int64 indices "
                  "widened from int32 by the runtime"),
    )
    layout = LayoutClass.PYTORCH

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, k, dim, largest = _args(node)
        shape = tensor_shape(x)
        if tensor_dtype(x) not in (torch.float32, torch.int32):
            raise Refused(f"topk of a {str(tensor_dtype(x)).replace('torch.', '')} tensor (lowered for float32 "
                          "and int32)")
        if not shape:
            raise Refused("topk of a 0-d tensor (TOPK_V2 takes rank >= 1)")
        if dim != len(shape) - 1:
            raise Refused(f"topk over dimension {dim} of a rank-{len(shape)} tensor (TOPK_V2 works on the last "
                          "dimension)")
        if not largest:
            raise Refused("topk with largest=False (TOPK_V2 finds the largest values)")
        if not isinstance(k, int) or k < 1:
            raise Refused(f"topk with k = {k} (TOPK_V2 takes a static k >= 1)")
        if not is_static(shape[-1]):
            raise Refused("topk over a dynamic dimension (TOPK_V2 needs k <= that size, checked when lowering)")
        for user in node.users:
            if user.target is not operator.getitem:
                raise Refused(f"topk result tuple used directly by {user.name}")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, k, _, _ = _args(node)
        g = lc.graph
        rank = len(lc.shape(x))
        shape = [*lc.shape(x)[:-1], k]
        operands: list[int | None] = [None, None]
        for user in node.users:
            index = user.args[1]
            if operands[index] is None:
                operands[index] = lc.emit_output(user, identity(rank))
            else:  # a second getitem of the same result shares its operand
                g.set_value(user, operands[index], identity(rank), shape)
        for index, dtype in ((0, tensor_dtype(x)), (1, torch.int32)):
            if operands[index] is None:
                operands[index] = g.emit_tensor(shape, dtype, debug_name=f"{node.name}.unused{index}")
        g.emit_operation(OperationCode.TOPK_V2, [lc.operand(x, identity(rank)), g.emit_int32(k)], operands,
                         debug_name=node.name)
