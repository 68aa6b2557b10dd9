"""aten.elu -> ELU (API 30), or RELU(x) + α·(EXP(MINIMUM(x, 0)) − 1) at API 29."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from .common import MAX_RANK, check_float_tensors, check_rank, emit_unary
from .elementwise_chain import ElementwiseChain
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def _elu_args(node: Node) -> tuple[float, float, float]:
    """(alpha, scale, input_scale) with the schema defaults."""
    names = ("alpha", "scale", "input_scale")
    values = [node.args[i + 1] if len(node.args) > i + 1 else node.kwargs.get(n, 1.0)
              for i, n in enumerate(names)]
    return tuple(float(v) for v in values)


@register_builder
class EluBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.elu.default, FeatureLevel.ANDROID_10, "ELU (API 30); MINIMUM / EXP / RELU / ADD / MUL at API 29",
                  "float32, scale = input_scale = 1; rank 1-4 below API 30"),
    )
    layout = LayoutClass.ORDER_PRESERVING
    reads_merged_views = True  # emit_unary computes on a merged view as on any dim order

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        alpha, scale, input_scale = _elu_args(node)
        if scale != 1.0 or input_scale != 1.0:
            # selu / celu style scaling: ELU has only alpha.
            raise Refused(f"elu with scale={scale}, input_scale={input_scale} (NNAPI's ELU has alpha only)")
        if ctx.feature_level >= FeatureLevel.ANDROID_11:
            check_rank(node, max_rank=1 << 30)  # ELU has no upper rank limit
        else:
            check_rank(node, MAX_RANK, what="elu input below API 30")  # RELU / ADD / MUL

    def define(self, node: Node, lc: LoweringContext) -> None:
        alpha = _elu_args(node)[0]
        g = lc.graph
        if g.feature_level >= FeatureLevel.ANDROID_11:
            emit_unary(lc, node, OperationCode.ELU, [g.emit_float32(alpha)])
            return
        c = ElementwiseChain(lc, node)
        # MINIMUM first so EXP never overflows on large positive inputs.
        negative = c.op(OperationCode.MINIMUM, [c.x, c.const(0.0)])
        e = c.op(OperationCode.EXP, [negative])
        e = c.op(OperationCode.ADD, [e, c.const(-1.0)])
        if alpha != 1.0:
            e = c.op(OperationCode.MUL, [e, c.const(alpha)])
        positive = c.op(OperationCode.RELU, [c.x])
        c.op(OperationCode.ADD, [positive, e], last=True)
