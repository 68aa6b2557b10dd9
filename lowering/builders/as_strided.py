"""aten.as_strided_copy that only re-views a contiguous tensor in its own element
order (same element count, contiguous strides, offset 0) -> RESHAPE.

Such nodes come from decompositions that restride a tensor without moving data
(e.g. the flatten after ConvNeXt's and Swin's global average pool). Any other
striding (overlapping windows, gaps, offsets) reads memory NNAPI does not
model and is refused.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import fake_value, tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .view import emit_reshape

aten = torch.ops.aten


def contiguous_strides_match(size: Sequence[int], stride: Sequence[int]) -> bool:
    """Whether ``stride`` is the row-major stride of ``size`` (size-1 dims ignored)."""
    expected = 1
    for s, st in zip(reversed(size), reversed(stride)):
        if s != 1 and st != expected:
            return False
        expected *= s
    return True


def as_strided_refusal(node: Node) -> str | None:
    """None if the node is a pure re-view of its contiguous input, else why not."""
    x = node.args[0]
    size, stride = list(node.args[1]), list(node.args[2])
    offset = node.args[3] if len(node.args) > 3 else node.kwargs.get("storage_offset")
    in_shape = tensor_shape(x)
    if not all(is_static(d) for d in (*in_shape, *size, *stride)):
        return "as_strided with dynamic sizes or strides"
    if offset not in (None, 0):
        return f"as_strided with storage offset {offset}"
    val = fake_value(x)
    try:
        contiguous = bool(val.is_contiguous()) and int(val.storage_offset()) == 0
    except Exception:  # undecidable symbolic strides
        contiguous = False
    if not contiguous:
        return "as_strided of a non-contiguous input (its storage order is not the logical order)"
    if math.prod(size) != math.prod(int(d) for d in in_shape):
        return f"as_strided to {math.prod(size)} elements of {math.prod(int(d) for d in in_shape)}"
    if not contiguous_strides_match(size, stride):
        return f"as_strided with non-contiguous strides {stride} for size {size} (NNAPI has no strided views)"
    return None


@register_builder
class AsStridedBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.as_strided_copy.default, FeatureLevel.ANDROID_8_1, "RESHAPE",
                  "float32, rank <= 4, contiguous input, contiguous strides, offset 0 (a pure re-view)"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        check_rank(node.args[0], MAX_RANK, what="input")
        check_rank(node, MAX_RANK, what="output")
        reason = as_strided_refusal(node)
        if reason:
            raise Refused(reason)

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_reshape(lc, node, node.args[0], lc.shape(node))
