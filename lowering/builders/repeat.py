"""aten.repeat (``x.repeat(*counts)``: tile each dim, new leading dims first) -> TILE (API 29),
after a RESHAPE adding the new leading size-1 dims; all counts 1 is a relabel.

Like expand (whose ``at_output_rank`` it shares), it works in the input's physical dim order:
new leading dims go first physically, which keeps the element order, so no TRANSPOSE is needed.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_dtype, tensor_shape
from .common import MAX_RANK, check_float_tensors, check_rank
from .expand import at_output_rank
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


@register_builder
class RepeatBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.repeat.default, FeatureLevel.ANDROID_10, "TILE (a RESHAPE first for new leading dims)",
                  "float32 (int32 / int64: TILE moves them; new leading dims need feature level 6), output rank <= 4, constant counts"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, counts = node.args[0], node.args[1]
        if tensor_dtype(node) in (torch.int32, torch.int64) and tensor_dtype(x) == tensor_dtype(node):
            # TILE takes TENSOR_INT32 (int64 is held in it; tiling only moves values), but the
            # RESHAPE adding leading dims would not before feature level 6.
            if len(counts) != len(tensor_shape(x)):
                ctx.require(FeatureLevel.FEATURE_LEVEL_6, "repeat of an integer tensor adding leading dims "
                            "(TENSOR_INT32 RESHAPE)")
            check_int64_result(node, ctx)
        else:
            check_float_tensors(node, x)
        check_rank(node, MAX_RANK, what="output")
        if not all(isinstance(c, int) for c in counts):
            raise Refused(f"repeat with counts computed at run time ({list(counts)})")
        if any(c == 0 for c in counts):
            raise Refused("repeat with a count of 0 (NNAPI has no zero-sized tensors)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, counts = node.args[0], [int(c) for c in node.args[1]]
        g = lc.graph
        in_shape = list(tensor_shape(x))
        source, order = at_output_rank(lc, node, x, [1] * (len(counts) - len(in_shape)) + in_shape)
        if all(c == 1 for c in counts):
            g.set_value(node, source, order, lc.shape(node))
            return
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.TILE, [source, g.emit_int32_vector(permute_shape(counts, order))], [out],
                         debug_name=node.name)
