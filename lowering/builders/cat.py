"""aten.cat -> CONCATENATION on the physical axis, all inputs in one dim order."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .registry import register_builder

aten = torch.ops.aten


def cat_dim(node: Node) -> int:
    """The non-negative logical concatenation dim (NNAPI rejects negative axes)."""
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    return normalize_dim(dim, len(tensor_shape(node)))


@register_builder
class CatBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.cat.default, FeatureLevel.ANDROID_8_1, "CONCATENATION", "float32, rank <= 4, equal ranks, no empty inputs",
                  quantized=same_parameters(aten.cat.default)),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        tensors = list(node.args[0])
        check_float_tensors(node, *tensors)
        check_rank(node, MAX_RANK, what="output")
        rank = len(tensor_shape(node))
        for t in tensors:
            if not isinstance(t, Node):
                raise Refused(f"cat of a non-tensor value {t!r}")
            shape = tensor_shape(t)
            if len(shape) != rank:
                # torch.cat skips legacy empty 1-D tensors; NNAPI has no empty tensors.
                raise Refused(f"cat of inputs of different ranks ({len(shape)} and {rank})")
            if any(d == 0 for d in shape):
                raise Refused(f"cat with an empty input {t.name} (NNAPI has no zero-sized tensors)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        tensors = list(node.args[0])
        rank = len(lc.shape(node))
        # Use the layout of the first computed input, so that a cat of NHWC conv outputs
        # concatenates channels in place without any TRANSPOSE.
        order = next((lc.order(t) for t in tensors if not lc.is_constant(t)), identity(rank))
        inputs = [lc.operand(t, order) for t in tensors]
        g = lc.graph
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.CONCATENATION,
                         [*inputs, g.emit_int32(physical_axis(order, cat_dim(node)))], [out], debug_name=node.name)
