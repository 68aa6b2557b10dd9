"""Helpers shared by several builders (operand plumbing, checks)."""

from __future__ import annotations

from numbers import Number
from typing import Any, Sequence

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import is_tensor_node, tensor_dtype, tensor_shape
from ..shape_program import Dim, is_static
from .node_builder import CheckContext, Refused

MAX_RANK = 4


def check_float_tensors(node: Node, *args: Any) -> None:
    """Refuses unless every tensor among ``args`` (and the node's output) is float32."""
    for a in (node, *args):
        if is_tensor_node(a) and tensor_dtype(a) != torch.float32:
            what = "output" if a is node else f"input {a.name}"
            raise Refused(f"{_dtype_name(tensor_dtype(a))} {what} (NNAPI float path takes float32 only)")


def _dtype_name(dtype: torch.dtype | None) -> str:
    return str(dtype).replace("torch.", "") if dtype is not None else "non-tensor"


def check_rank(node: Node, max_rank: int = MAX_RANK, min_rank: int = 1, what: str = "") -> None:
    rank = len(tensor_shape(node))
    if rank > max_rank:
        raise Refused(f"{what or 'tensor'} of rank {rank} (NNAPI allows at most {max_rank})")
    if rank < min_rank:
        raise Refused(f"{what or 'tensor'} of rank {rank} (needs at least {min_rank})")


def check_static(dims: Sequence[Dim], what: str) -> None:
    if not all(is_static(d) for d in dims):
        raise Refused(f"dynamic dim in {what}")


def is_scalar(value: Any) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool)


def scalar_or_constant(ctx: CheckContext, value: Any) -> bool:
    return is_scalar(value) or ctx.is_constant(value)


def constant_operand(lc: LoweringContext, value: Any, rank: int, dim_order: Sequence[int],
                     dtype: torch.dtype = torch.float32) -> int:
    """A Python scalar, tensor or constant node as an operand of ``dtype`` (float32, or int32 for
    integer arithmetic) broadcastable against a rank-``rank`` tensor stored in ``dim_order``
    (permuted at lowering time); a constant a quantized operation reads is its 8-bit codes."""
    if is_scalar(value):
        tensor = torch.tensor([value], dtype=dtype)
        return lc.graph.emit_constant_tensor(tensor)
    node = lc.resolve(value) if isinstance(value, Node) else None
    codes = lc.graph.constant_codes(node)  # an 8-bit constant of a quantized operation
    if codes is not None:
        tensor = codes.codes
    else:
        tensor = (value if isinstance(value, torch.Tensor) else lc.constant(value)).to(dtype)
    if tensor.dim() == 0 or tensor.numel() == 1:
        return lc.graph.emit_constant_of(node, tensor.reshape(1))
    tensor = tensor.reshape([1] * (rank - tensor.dim()) + list(tensor.shape))
    return lc.graph.emit_constant_of(node, tensor.permute(tuple(dim_order)).contiguous())


def common_order(lc: LoweringContext, node: Node, inputs: Sequence[Any]) -> tuple[int, ...]:
    """Dim order for an elementwise op: that of its first non-constant full-rank
    input, so no transpose is needed for it; identity if ranks differ."""
    rank = len(lc.shape(node))
    for x in inputs:
        if isinstance(x, Node) and not lc.is_constant(x):
            if len(lc.shape(x)) != rank:
                return identity(rank)
    for x in inputs:
        if isinstance(x, Node) and not lc.is_constant(x):
            return lc.order(x)
    return identity(rank)


def elementwise_operands(lc: LoweringContext, node: Node, inputs: Sequence[Any]) -> tuple[list[int], tuple[int, ...]]:
    """Operands of an elementwise op's inputs, all in one dim order."""
    order = common_order(lc, node, inputs)
    rank = len(order)
    # Integer arithmetic (int32 ADD / SUB / MUL, API 30; int64 held in int32) takes int32 constants.
    dtype = torch.int32 if lc.dtype(node) in (torch.int32, torch.int64) else torch.float32
    operands = []
    for x in inputs:
        if isinstance(x, Node) and not lc.is_constant(x):
            xr = len(lc.shape(x))
            operands.append(lc.operand(x, order if xr == rank else identity(xr)))
        else:
            operands.append(constant_operand(lc, x, rank, order, dtype))
    return operands, order


def emit_unary(lc: LoweringContext, node: Node, code: OperationCode, extra_inputs: Sequence[int] = ()) -> int:
    """Emits a same-shape unary op keeping the input's dim order. A rank > 4 input held as a
    merged view (e.g. a partition input of rank 5) is computed on that view: an elementwise op
    sees the same bytes whatever the dims, so its result is the same merged view of the output."""
    x = node.args[0]
    merged = None if lc.is_constant(x) else lc.graph.value(lc.resolve(x)).merged
    if merged is not None:
        out = lc.emit_merged_output(node, merged)
        lc.graph.emit_operation(code, [lc.merged_operand(x, merged), *extra_inputs], [out], debug_name=node.name)
        return out
    order = lc.order(x)
    out = lc.emit_output(node, order)
    lc.graph.emit_operation(code, [lc.operand(x, order), *extra_inputs], [out], debug_name=node.name)
    return out


def fuse_operand(lc: LoweringContext, node: Node) -> int:
    return lc.graph.emit_int32(int(lc.fuse_code(node)))


def physical_axis(order: Sequence[int], logical_dim: int) -> int:
    """Where logical dimension ``logical_dim`` sits in a tensor stored in ``order``."""
    return list(order).index(logical_dim)


def remove_dims(order: Sequence[int], removed: Sequence[int]) -> tuple[int, ...]:
    """Dim order after dropping logical dims ``removed`` (remaining dims renumbered)."""
    removed = set(removed)
    kept = [d for d in order if d not in removed]
    rank = sorted(kept)
    return tuple(rank.index(d) for d in kept)


def require_level(lc: LoweringContext, level: FeatureLevel) -> None:
    lc.graph.require_feature_level(level)


__all__ = [
    "FuseCode", "MAX_RANK", "check_float_tensors", "check_rank", "check_static", "common_order",
    "constant_operand", "elementwise_operands", "emit_unary", "fuse_operand", "is_scalar",
    "physical_axis", "remove_dims", "require_level", "scalar_or_constant",
]
