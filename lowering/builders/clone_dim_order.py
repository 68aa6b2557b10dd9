"""dim_order_ops._clone_dim_order / _to_dim_order_copy (same dtype) / aten.clone to
the contiguous dim order / aten.alias_copy -> no operation: inside a partition a value has no
strides (its physical order is tracked separately), so a copy that only makes
PyTorch's memory contiguous is an alias of its input."""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node

import executorch.exir.passes.dim_order_ops_registry  # noqa: F401  (registers torch.ops.dim_order_ops)

from ..graph import identity
from ..lowering_context import LoweringContext
from ..node_utils import aten_op, fake_value, tensor_dtype, tensor_shape
from . import register_builder
from .common import MAX_RANK, check_float_tensors, check_rank
from .node_builder import CheckContext, NodeBuilder, Refused

aten = torch.ops.aten
dim_order_ops = torch.ops.dim_order_ops

NOOP_COPY_OPS = (
    dim_order_ops._clone_dim_order.default,
    dim_order_ops._to_dim_order_copy.default,
    aten.clone.default,
    aten.alias_copy.default,  # what to_edge makes of an alias (e.g. swin_t's last stage)
)


def noop_copy_refusal(node: Node) -> str | None:
    """None if ``node`` is a copy that changes neither dtype nor (contiguous)
    memory order, else why it is not such a no-op."""
    op = aten_op(node)
    if op not in NOOP_COPY_OPS or not node.args or not isinstance(node.args[0], Node):
        return "not a copy of a tensor"
    x = node.args[0]
    if op == dim_order_ops._to_dim_order_copy.default:
        dtype = node.kwargs.get("dtype")
        if dtype is not None and dtype != tensor_dtype(x):
            return f"dtype conversion {_name(tensor_dtype(x))} -> {_name(dtype)} (the float path delegates float32 only)"
    rank = len(tensor_shape(node))
    if op == aten.clone.default:
        fmt = node.kwargs.get("memory_format")
        if fmt not in (None, torch.contiguous_format, torch.preserve_format):
            return f"clone to {fmt} (only the contiguous memory format is a no-op)"
    else:
        dim_order = node.kwargs.get("dim_order")
        if dim_order is not None and list(dim_order) != list(identity(rank)):
            return f"non-default dim_order {list(dim_order)} (the delegate keeps contiguous tensors only)"
    if not _is_contiguous(fake_value(node)):
        return "result is not contiguous (the delegate keeps contiguous tensors only)"
    return None


def _is_contiguous(val: Any) -> bool:
    try:
        return bool(val.is_contiguous())
    except Exception:  # symbolic strides that cannot be decided: be conservative
        return False


def _name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


@register_builder
class CloneDimOrderBuilder(NodeBuilder):
    targets = NOOP_COPY_OPS

    def check(self, node: Node, ctx: CheckContext) -> None:
        reason = noop_copy_refusal(node)
        if reason:
            raise Refused(reason)
        check_float_tensors(node, node.args[0])
        # Rank 5 only inside a channel shuffle (which becomes one CHANNEL_SHUFFLE).
        if ctx.channel_shuffle(node) is None:
            check_rank(node, MAX_RANK, min_rank=0, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        # Same operand, same physical order: consumers see the input's value.
        value = lc.graph.value(lc.resolve(node.args[0]))
        lc.graph.set_value(node, value.operand, value.dim_order, lc.graph.logical_shape(lc.resolve(node.args[0])))
