"""aten.full (also torch.zeros / new_zeros / new_full after to_edge) of a size computed at
run time -> FILL (API 30); a static ``full`` is a constant (folded, no operation).

Also the helpers of the ops that write one value, or a broadcast value, into a tensor of
another tensor's shape (``full_like``, ``copy``: builders/full_like.py, builders/copy.py).
"""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank, is_scalar
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten


def require_fill(node: Node, ctx: CheckContext, what: str) -> None:
    """Refuses below API 30 when ``node``'s shape is symbolic (FILL is needed to make it)."""
    if not all(is_static(d) for d in tensor_shape(node)):
        ctx.require(FeatureLevel.ANDROID_11, f"{what} of a size computed at run time (FILL)")


def uniform_value(value: Any) -> float | None:
    """The one value every element of ``value`` (a number or a tensor) holds, else None."""
    if is_scalar(value):
        return float(value)
    if isinstance(value, torch.Tensor) and value.numel() >= 1:
        flat = value.reshape(-1)
        if bool((flat == flat[0]).all()):
            return float(flat[0])
    return None


def emit_filled(lc: LoweringContext, node: Node, value: float) -> None:
    """``node``'s value: every element ``value``; a constant when its shape is static, else
    FILL with the shape the shape program computes."""
    shape = lc.shape(node)
    if all(is_static(d) for d in shape):
        lc.graph.set_constant(node, torch.full([int(d) for d in shape], value, dtype=torch.float32))
        return
    g = lc.graph
    out = lc.emit_output(node, identity(len(shape)))
    g.emit_operation(OperationCode.FILL, [g.emit_int32_vector(shape), g.emit_float32(value)], [out],
                     debug_name=node.name)


def emit_broadcast(lc: LoweringContext, node: Node, src: Node) -> None:
    """``node``'s value: ``src`` broadcast to ``node``'s shape, as zeros (constant or FILL)
    + ``src`` (ADD broadcasts like PyTorch, trailing dims aligned)."""
    shape = lc.shape(node)
    g = lc.graph
    zeros = torch.zeros([int(d) for d in shape]) if all(is_static(d) for d in shape) else None
    if zeros is not None:
        base = g.emit_constant_tensor(zeros)
    else:
        base = g.emit_tensor(shape, torch.float32, debug_name=f"{node.name}.zeros")
        g.emit_operation(OperationCode.FILL, [g.emit_int32_vector(shape), g.emit_float32(0.0)], [base],
                         debug_name=f"{node.name} (zeros)")
    out = lc.emit_output(node, identity(len(shape)))
    src_operand = lc.operand(src, identity(max(len(lc.shape(src)), 1)))
    g.emit_operation(OperationCode.ADD, [base, src_operand, g.emit_int32(int(FuseCode.NONE))], [out],
                     debug_name=node.name)


@register_builder
class FullBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.full.default, FeatureLevel.ANDROID_8_1, "static: a constant; symbolic size: FILL (API 30)",
                  "float32, rank 1..4, constant fill value"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node)
        check_rank(node, MAX_RANK, what="output")
        value = node.args[1] if len(node.args) > 1 else node.kwargs.get("fill_value")
        if not is_scalar(value) and not isinstance(value, bool):
            raise Refused(f"full with a fill value computed at run time ({value})")
        require_fill(node, ctx, "full")

    def define(self, node: Node, lc: LoweringContext) -> None:
        value = node.args[1] if len(node.args) > 1 else node.kwargs["fill_value"]
        emit_filled(lc, node, float(value))
