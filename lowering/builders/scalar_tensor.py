"""aten.scalar_tensor of an integer size (``torch.tensor(n)`` of a token count, as Hugging Face's
StaticCache advances its position by it) -> a one-element TENSOR_INT32 operand holding the size's
expression, computed by the runtime (per compiled model; at every execution when it reads a
number from a tensor). A number is a constant, folded at lowering time."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import fake_value, tensor_dtype
from ..shape_program import as_dim, describe_unsupported
from .bool_values import HELD_IN_INT32
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class ScalarTensorBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.scalar_tensor.default, FeatureLevel.ANDROID_8_1, "(an operand the runtime computes)",
                  "an integer size as int32 / int64 (held in int32)"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        size = fake_value(node.args[0]) if isinstance(node.args[0], Node) else node.args[0]
        if not isinstance(size, torch.SymInt) or tensor_dtype(node) not in HELD_IN_INT32:
            raise Refused(f"scalar_tensor of {size!r} as {tensor_dtype(node)} (an integer size as int32 / int64 only)")
        reason = describe_unsupported([as_dim(size)])
        if reason:
            raise Refused(f"scalar_tensor: {reason}")
        check_int64_result(node, ctx)

    def define(self, node: Node, lc: LoweringContext) -> None:
        size = as_dim(fake_value(node.args[0]))
        # A 0-d tensor is a [1] operand (NNAPI has no rank 0).
        lc.graph.set_value(node, lc.graph.emit_per_execution_vector([size]), (0,), [])
