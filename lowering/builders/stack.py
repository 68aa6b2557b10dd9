"""aten.stack -> PACK (feature level 6), kept whole by to_edge where NNAPI takes it; below
feature level 6 to_edge decomposes it into unsqueezes and a cat (RESHAPE + CONCATENATION)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from .cat import cat_dim
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class StackBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.stack.default, FeatureLevel.FEATURE_LEVEL_6, "PACK",
                  "float32, output rank <= 4, inputs of one shape", keep=True,
                  # PACK wants one scale and zero point for every input and the output, as cat's.
                  quantized=same_parameters(aten.stack.default, since=FeatureLevel.FEATURE_LEVEL_6)),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        tensors = list(node.args[0])
        check_float_tensors(node, *tensors)
        check_rank(node, MAX_RANK, what="output")
        shapes = set()
        for t in tensors:
            if not isinstance(t, Node):
                raise Refused(f"stack of a non-tensor value {t!r}")
            shapes.add(tuple(str(d) for d in tensor_shape(t)))
        if len(shapes) > 1:
            raise Refused("stack of inputs of different shapes")

    def define(self, node: Node, lc: LoweringContext) -> None:
        tensors = list(node.args[0])
        g = lc.graph
        rank = len(lc.shape(tensors[0]))
        inputs = [lc.operand(t, identity(rank)) for t in tensors]
        out = lc.emit_output(node, identity(rank + 1))
        # PACK's axis is a dim of the result, as cat's dim is.
        g.emit_operation(OperationCode.PACK, [g.emit_int32(cat_dim(node)), *inputs], [out], debug_name=node.name)
