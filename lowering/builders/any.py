"""aten.any (.dim / .dims / .default) -> REDUCE_ANY (API 29) over a bool tensor of rank <= 4, in
PyTorch's dim order (see bool_values.py); a float32 or int32 input is first compared with 0.

``all`` needs no builder: to_edge decomposes it into ``not any(not x)``.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, normalize_dim, tensor_shape
from .bool_values import as_bool, check_inputs, emit_result, result_dtype
from .common import MAX_RANK, check_rank
from .mean import keepdim
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def _dims(node: Node) -> list[int]:
    """The reduced dims; aten.any.default and a dims=None reduce all."""
    rank = len(tensor_shape(node.args[0]))
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    if dims is None:
        return list(range(rank))
    dims = [dims] if isinstance(dims, int) else dims
    return sorted({normalize_dim(d, max(rank, 1)) for d in dims})


@register_builder
class AnyBuilder(NodeBuilder):
    ops = tuple(OpSupport(op, FeatureLevel.ANDROID_10, "REDUCE_ANY",
                          "bool inputs (float32 / int32: x != 0), input rank 1-4, non-empty dims")
                for op in (aten.any.dim, aten.any.dims, aten.any.default))

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        check_inputs(ctx, [x], result_dtype([x]), (torch.float32, torch.int32, torch.bool))
        check_rank(x, MAX_RANK, what="input")
        if not _dims(node):
            # PyTorch then reduces nothing; NNAPI has no empty axes list.
            raise Refused(f"{aten_op(node).__name__} over an empty dim list")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        g = lc.graph
        source = as_bool(lc, node, x, result_dtype([x]))
        g.emit_operation(OperationCode.REDUCE_ANY,
                         [source, g.emit_int32_vector(_dims(node)), g.emit_bool(keepdim(node))],
                         [emit_result(lc, node)], debug_name=node.name)
