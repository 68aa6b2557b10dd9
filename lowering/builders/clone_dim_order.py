"""dim_order_ops._clone_dim_order / _to_dim_order_copy (same dtype) / aten.clone /
aten.alias_copy -> no operation: inside a partition a value has no strides (its physical
order is tracked separately), so a copy that only changes PyTorch's memory layout
(contiguous, channels-last) is an alias of its input; at the partition's edge the runtime
reads and writes each ExecuTorch tensor in its own dim order."""

from __future__ import annotations

import torch
from torch.fx import Node

import executorch.exir.passes.dim_order_ops_registry  # noqa: F401  (registers torch.ops.dim_order_ops)

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op, is_tensor_node, noop_copy_refusal, tensor_dtype
from .bool_values import (HELD_IN_INT32, as_float, check_bool_conversion, emit_result, keeps_integer_dtype, operand,
                          shape_of)
from .common import MAX_RANK, check_float_tensors, check_rank
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .quantization import rewritten, same_parameters
from .registry import register_builder

aten = torch.ops.aten


def alias_as_input(graph: torch.fx.Graph, node: Node) -> None:
    """aten.alias rewritten as its input (same storage, nothing to quantize).

    export makes a full-range slice (timm ghostnet's 32 ``out[:, :out_chs]`` after a cat) an
    ``aten.alias``: annotated nowhere, each was a float island of a DEQUANTIZE / QUANTIZE pair
    around nothing.
    """
    node.replace_all_uses_with(node.args[0])
    graph.erase_node(node)
dim_order_ops = torch.ops.dim_order_ops


# bool -> float32 (``mask.float()``), bool -> int32 / int64 (``mask.int()``, ``.long()``): SELECT.
_FROM_BOOL = (torch.float32, *HELD_IN_INT32)


def _conversion(node: Node) -> tuple[torch.dtype, torch.dtype] | None:
    """(from, to) dtypes of a _to_dim_order_copy that changes the dtype, else None."""
    x = node.args[0] if node.args else None
    to = node.kwargs.get("dtype")
    if aten_op(node) != dim_order_ops._to_dim_order_copy.default or not is_tensor_node(x) or to is None \
            or to == tensor_dtype(x):
        return None
    return tensor_dtype(x), to


def _bool_to_number(node: Node) -> bool:
    """A _to_dim_order_copy converting a bool tensor to float32, int32 or int64."""
    conversion = _conversion(node)
    return conversion is not None and conversion[0] == torch.bool and conversion[1] in _FROM_BOOL


def _number_to_bool(node: Node) -> bool:
    """A _to_dim_order_copy converting float32, int32 or int64 to bool (``mask.bool()``)."""
    conversion = _conversion(node)
    return conversion is not None and conversion[1] == torch.bool and conversion[0] in (torch.float32, *HELD_IN_INT32)


def _integer_to_float(node: Node) -> bool:
    """A _to_dim_order_copy converting int32 / int64 to float32 (positions made rotary angles)."""
    conversion = _conversion(node)
    return conversion is not None and conversion[0] in HELD_IN_INT32 and conversion[1] == torch.float32


def _between_int32_and_int64(node: Node) -> bool:
    """A _to_dim_order_copy between int32 and int64 (``.int()``, ``.long()``, ``type_as``): both
    are held in TENSOR_INT32 and every value held fits int32 (builders/integer_ranges.py), where
    PyTorch's int64 -> int32 conversion changes none; the copy is an alias of its input."""
    conversion = _conversion(node)
    return conversion is not None and set(conversion) == set(HELD_IN_INT32)


@register_builder
class CloneDimOrderBuilder(NodeBuilder):
    ops = (
        OpSupport(dim_order_ops._clone_dim_order.default, FeatureLevel.ANDROID_8_1, "(no operation: alias of the input)",
                  "float32 (or int32 / int64, held in TENSOR_INT32), rank <= 4 (5 inside a channel shuffle), any dim_order"),
        OpSupport(dim_order_ops._to_dim_order_copy.default, FeatureLevel.ANDROID_8_1, "(no operation: alias of the input)",
                  "float32, rank <= 4, same dtype, any dim_order; bool -> float32 / int32 / int64 from API 29 (SELECT), "
                  "static sizes; int32 <-> int64: no operation (both held in TENSOR_INT32); int32 / int64 -> "
                  "float32: CAST (API 29); float32 / int32 / int64 -> bool: NOT_EQUAL 0 (API 29)"),
        OpSupport(aten.clone.default, FeatureLevel.ANDROID_8_1, "(no operation: alias of the input)",
                  "float32, rank <= 4 (5 inside a channel shuffle), any memory format",
                  quantized=same_parameters(aten.clone.default, aten.contiguous.default, aten.dropout.default,
                                            aten.dropout_.default)),
        OpSupport(aten.alias_copy.default, FeatureLevel.ANDROID_8_1, "(no operation: alias of the input)", "float32, rank <= 4",
                  quantized=rewritten(alias_as_input, aten.alias.default)),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        if _bool_to_number(node):
            check_bool_conversion(node, ctx, f"bool -> {str(_conversion(node)[1]).removeprefix('torch.')} conversion")
            return
        if _between_int32_and_int64(node):
            check_rank(node, MAX_RANK, min_rank=0, what="output")
            check_int64_result(node, ctx)
            return
        if _integer_to_float(node):
            check_rank(node, MAX_RANK, min_rank=0, what="output")
            ctx.require(FeatureLevel.ANDROID_10, "int -> float32 conversion (CAST)")
            return
        if _number_to_bool(node):
            check_rank(node, MAX_RANK, min_rank=0, what="output")
            ctx.require(FeatureLevel.ANDROID_10, f"{_conversion(node)[0]} -> bool conversion (NOT_EQUAL 0)".replace("torch.", ""))
            return
        reason = noop_copy_refusal(node)
        if reason:
            raise Refused(reason)
        if keeps_integer_dtype(node):   # a copy of int32 / int64 ids (held in TENSOR_INT32): an alias
            check_rank(node, MAX_RANK, min_rank=0, what="output")
            return
        check_float_tensors(node, node.args[0])
        # (Rank 5 inside a channel shuffle is the ChannelShuffleUnit's to check.)
        check_rank(node, MAX_RANK, min_rank=0, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        if _bool_to_number(node):
            x = node.args[0]
            as_float(lc, node, operand(lc, x, torch.bool), shape_of(x), emit_result(lc, node), dtype=lc.dtype(node))
            return
        if _number_to_bool(node):
            # PyTorch's truth value: x != 0 (NaN is true, as NOT_EQUAL gives).
            x = node.args[0]
            dtype = torch.float32 if tensor_dtype(x) == torch.float32 else torch.int32
            zero = lc.graph.emit_constant_tensor(torch.zeros(1, dtype=dtype))
            lc.graph.emit_operation(OperationCode.NOT_EQUAL, [operand(lc, x, dtype), zero],
                                    [emit_result(lc, node)], debug_name=node.name)
            return
        if _integer_to_float(node):
            # int32 -> float32 rounds to nearest as PyTorch's conversion does (every value held fits int32).
            value = lc.graph.value(lc.resolve(node.args[0]))
            out = lc.emit_output(node, value.dim_order)
            lc.graph.emit_operation(OperationCode.CAST, [value.operand], [out], debug_name=node.name)
            return
        # Same operand, same physical order: consumers see the input's value.
        value = lc.graph.value(lc.resolve(node.args[0]))
        lc.graph.set_value(node, value.operand, value.dim_order, lc.graph.logical_shape(lc.resolve(node.args[0])))
