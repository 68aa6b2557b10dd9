"""aten.amax / amin -> REDUCE_MAX / REDUCE_MIN (API 29) over the physical axes of the input's dim order."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op
from .common import MAX_RANK, check_float_tensors, check_rank
from .mean import emit_reduction, keepdim
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class AmaxBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.amax.default, FeatureLevel.ANDROID_10, "REDUCE_MAX", "float32, rank <= 4"),
        OpSupport(aten.amin.default, FeatureLevel.ANDROID_10, "REDUCE_MIN", "float32, rank <= 4"),
    )
    layout = LayoutClass.REDUCTION

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node.args[0], MAX_RANK, what="input")

    def define(self, node: Node, lc: LoweringContext) -> None:
        code = OperationCode.REDUCE_MIN if aten_op(node) is aten.amin.default else OperationCode.REDUCE_MAX
        emit_reduction(lc, node, code, lc.graph.emit_bool(keepdim(node)))
