"""aten.argmax / argmin -> ARGMAX / ARGMIN (API 29) on the physical axis of the input's dim order.

NNAPI's result is TENSOR_INT32 (NNAPI has no 64-bit integers); PyTorch's is int64.
Inside the partition the indices stay int32; a partition output is widened to
int64 by the runtime while it copies the output out (the blob's argument records
the program's int64 dtype). ``keepdim`` adds the reduced axis back with
EXPAND_DIMS (RESHAPE takes no TENSOR_INT32); ``dim=None`` flattens the input
with a RESHAPE first (ARGMAX of a rank-1 tensor gives shape [1], PyTorch's 0-d
result travels as [1]).
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, normalize_dim, tensor_dtype
from ..shape_program import Dim
from .common import check_rank, physical_axis, remove_dims
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

ARGMAX_RANK = 4  # the host driver and AOSP's reference take ranks 1..4


def _dim_and_keepdim(node: Node) -> tuple[int | None, bool]:
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    keep = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    return dim, bool(keep)


@register_builder
class ArgmaxBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.argmax.default, FeatureLevel.ANDROID_10, "ARGMAX (+ RESHAPE for dim=None, EXPAND_DIMS "
                  "for keepdim)", "float32 input, rank 1..4; int64 result widened from int32 by the runtime"),
        OpSupport(aten.argmin.default, FeatureLevel.ANDROID_10, "ARGMIN (+ RESHAPE for dim=None, EXPAND_DIMS "
                  "for keepdim)", "float32 input, rank 1..4; int64 result widened from int32 by the runtime"),
    )
    layout = LayoutClass.REDUCTION

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        if tensor_dtype(x) != torch.float32:
            raise Refused(f"{tensor_dtype(x)} input (lowered for float32 inputs only)".replace("torch.", ""))
        check_rank(x, ARGMAX_RANK, what="input")
        if node.meta["val"].dtype != torch.int64:
            raise Refused(f"{aten_op(node)} with a {node.meta['val'].dtype} result")
        if any(int(d) == 0 for d in x.meta["val"].shape if isinstance(d, int)):
            raise Refused("argmax/argmin of an empty tensor (eager fails too)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        code = OperationCode.ARGMIN if aten_op(node) is aten.argmin.default else OperationCode.ARGMAX
        dim, keep = _dim_and_keepdim(node)
        x = node.args[0]
        g = lc.graph
        shape = lc.shape(x)
        if dim is None:
            source, order, axis = self._flattened(lc, node, x, keep), None, len(shape) - 1 if keep else 0
            reduced_shape: list[Dim] = [1] * (len(shape) - 1) if keep else []
            out_order = tuple(range(len(reduced_shape))) or (0,)
        else:
            dim = normalize_dim(dim, len(shape))
            order = lc.order(x)
            source, axis = lc.operand(x, order), physical_axis(order, dim)
            reduced_shape = [s for i, s in enumerate(shape) if i != dim]
            out_order = remove_dims(order, [dim]) or (0,)
        reduced_physical = [reduced_shape[d] for d in out_order] if reduced_shape else [1]
        if keep and len(shape) > 1:
            indices = g.emit_tensor(reduced_physical, torch.int32, debug_name=f"{node.name}.reduced")
            g.emit_operation(code, [source, g.emit_int32(axis)], [indices], debug_name=node.name)
            full_order = order if order is not None else tuple(range(len(shape)))
            out = lc.emit_output(node, full_order)
            g.emit_operation(OperationCode.EXPAND_DIMS, [indices, g.emit_int32(axis)], [out], debug_name=node.name)
            return
        out = lc.emit_output(node, out_order, shape=lc.shape(node) or [1])
        g.emit_operation(code, [source, g.emit_int32(axis)], [out], debug_name=node.name)

    @staticmethod
    def _flattened(lc: LoweringContext, node: Node, x: Node, keep: bool) -> int:
        """``x`` as [numel] (or [1, ..., 1, numel] with keepdim): RESHAPE in PyTorch's order."""
        g = lc.graph
        rank = len(lc.shape(x))
        source = lc.operand(x, tuple(range(rank)))
        lead: list[Dim] = [1] * (rank - 1) if keep else []
        numel: Dim = 1
        for s in lc.shape(x):
            numel = numel * s
        flat = g.emit_like(source, [*lead, numel], debug_name=f"{node.name}.flat")
        g.emit_operation(OperationCode.RESHAPE, [source, g.emit_int32_vector([*lead, -1])], [flat],
                         debug_name=node.name)
        return flat
