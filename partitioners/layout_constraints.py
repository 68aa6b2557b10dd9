"""Layout limits of API 27 (Android 8.1), which has no TRANSPOSE operation.

Spatial operations produce NHWC values. At API 28+ lowering converts a value
to another dim order with TRANSPOSE where a consumer needs one; at API 27 only
the runtime can permute, and only at a partition's edge. So at API 27 a node
that would need an NHWC value in PyTorch order inside the partition is refused
here, before lowering could fail on it.
"""

from __future__ import annotations


import torch
from torch.fx import Node

from executorch_nnapi.lowering.layout_analysis import (NHWC_OPS, ORDER_PRESERVING, REDUCTIONS, is_channels_last_rank,
                                                      is_unit_spatial)
from executorch_nnapi.lowering.node_utils import aten_op, fake_value

aten = torch.ops.aten


def api27_layout_refusal(node: Node, nhwc: set[Node], is_constant) -> str | None:
    """Why ``node`` cannot be lowered at API 27 for layout reasons, if it cannot."""
    op = aten_op(node)
    tensor_inputs = [i for i in node.all_input_nodes if isinstance(fake_value(i), torch.Tensor)
                     and not is_constant(i)]
    nhwc_inputs = [i for i in tensor_inputs if i in nhwc]
    if not nhwc_inputs or op in NHWC_OPS or op in REDUCTIONS:
        return None
    if op in ORDER_PRESERVING:
        # Mixed layouts among full-rank inputs would need a TRANSPOSE.
        # ([N, C, 1, 1] values have the same bytes in both orders: a RESHAPE converts them.)
        if any(is_channels_last_rank(i) and i not in nhwc and not is_unit_spatial(i) for i in tensor_inputs):
            return "mixing NHWC and NCHW activations needs TRANSPOSE (API 28); the target is API 27"
        return None
    if op == aten.view_copy.default and all(is_unit_spatial(i) for i in nhwc_inputs):
        return None  # [N, C, 1, 1] has the same memory order in NHWC
    return (f"reading an NHWC activation in PyTorch's order ({getattr(op, '__name__', op)}) needs "
            "TRANSPOSE (API 28); the target is API 27")
