"""aten.sum.dim_IntList -> REDUCE_SUM (API 29) over the physical axes of the input's dim order."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank
from .mean import emit_reduction, keepdim
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class SumBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.sum.dim_IntList, FeatureLevel.ANDROID_10, "REDUCE_SUM", "float32, rank <= 4"),
    )
    layout = LayoutClass.REDUCTION

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node.args[0], MAX_RANK, what="input")
        if node.kwargs.get("dtype") not in (None, torch.float32):
            raise Refused(f"sum with dtype={node.kwargs.get('dtype')}")

    def define(self, node: Node, lc: LoweringContext) -> None:
        # REDUCE_* take keep_dims as BOOL (MEAN as INT32).
        emit_reduction(lc, node, OperationCode.REDUCE_SUM, lc.graph.emit_bool(keepdim(node)))
