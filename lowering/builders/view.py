"""aten.view_copy (view / reshape / flatten) -> RESHAPE, without a transpose when
the input's physical order already lists its non-unit dims in PyTorch order.
(Views of a channel shuffle or a rank > 4 view chain are their unit's to emit; a
5-D value held as a merged view, such as a 3-D pool's result, is its bytes in
PyTorch's order, so any view of it reshapes to a <= 4-D output.)"""

from __future__ import annotations

from typing import Sequence

import torch
from torch.fx import Node

from ..graph import LoweringError, identity, same_memory_order
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_dtype, tensor_shape
from ..shape_program import Dim
from .bool_values import check_bool_conversion, emit_bool_reshape
from .common import MAX_RANK, check_float_tensors, check_rank
from .integer_ranges import exact_in_float32
from .node_builder import CheckContext, NodeBuilder, OpSupport
from .quantization import same_parameters
from .registry import register_builder

aten = torch.ops.aten


def emit_reshape(lc: LoweringContext, node: Node, source: Node, out_shape: Sequence[Dim],
                 out_order: Sequence[int] | None = None) -> None:
    """RESHAPE ``source`` to logical ``out_shape`` (result stored in ``out_order``,
    default identity; the caller guarantees that order keeps memory order)."""
    in_order = lc.order(source)
    if not same_memory_order(lc.shape(source), in_order, identity(len(in_order))):
        in_order = identity(len(in_order))
    out_order = tuple(out_order) if out_order is not None else identity(len(out_shape))
    g = lc.graph
    physical_shape = [out_shape[d] for d in out_order] or [1]
    out = lc.emit_output(node, out_order, shape=list(out_shape))
    g.emit_operation(OperationCode.RESHAPE, [lc.operand(source, in_order), g.emit_int32_vector(physical_shape)],
                     [out], debug_name=node.name)


@register_builder
class ViewBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.view_copy.default, FeatureLevel.ANDROID_8_1, "RESHAPE; for a channel shuffle CHANNEL_SHUFFLE (API 29) or RESHAPE + TRANSPOSE (API 28)",
                  "float32 (int32 / int64 from feature level 6, or any level when the shape is unchanged, or from API 29 when "
                  "their values provably lie within +-2^24: CAST to float32, RESHAPE, CAST back; bool of static size as 1 / 0 floats, API 29), rank <= 4; rank 5 only in view -> permute -> [clone] -> view channel shuffles, "
                  "rank > 4 in view chains that reduce to rank 4 (API 28); a 5-D input to a <= 4-D output",
                  quantized=same_parameters(aten.view.default, aten.reshape.default, aten.flatten.using_ints)),
    )

    reads_merged_views = True  # a view of a rank-5 value reshapes its merged view

    def check(self, node: Node, ctx: CheckContext) -> None:
        same_shape = list(tensor_shape(node)) == list(tensor_shape(node.args[0]))
        if same_shape and tensor_dtype(node) in (torch.int32, torch.int64, torch.bool):
            pass  # the input relabeled, no operation (GPT-2's input_ids.view(-1, n) of [1, n] ids)
        elif tensor_dtype(node) in (torch.int32, torch.int64) and tensor_dtype(node.args[0]) == tensor_dtype(node):
            check_integer_reshape(node, ctx, "view")
        elif tensor_dtype(node) == torch.bool and tensor_dtype(node.args[0]) == torch.bool:
            # RESHAPE takes no BOOL8: as 1 / 0 floats, reshaped, compared with 0 (a padding mask's view).
            check_bool_conversion(node, ctx, "view of a bool tensor")
        else:
            check_float_tensors(node, node.args[0])
        if not (len(tensor_shape(node.args[0])) == 5 and len(tensor_shape(node)) <= MAX_RANK):
            check_rank(node.args[0], MAX_RANK, what="input")
        check_rank(node, MAX_RANK, what="output")

    def define(self, node: Node, lc: LoweringContext) -> None:
        value = lc.graph.value(lc.resolve(node.args[0]))
        merged = value.merged
        if merged is None and list(lc.shape(node)) == list(lc.shape(node.args[0])):
            lc.graph.set_value(node, value.operand, value.dim_order, lc.shape(node))
            return
        if tensor_dtype(node) == torch.bool:
            emit_bool_reshape(lc, node, node.args[0])
            return
        if merged is not None and len(lc.shape(node)) <= MAX_RANK:
            out = lc.emit_output(node)
            lc.graph.emit_operation(OperationCode.RESHAPE, [lc.merged_operand(node.args[0], merged),
                                                            lc.graph.emit_int32_vector(lc.shape(node) or [1])],
                                    [out], debug_name=node.name)
            return
        if max(len(lc.shape(node)), len(lc.shape(node.args[0]))) > MAX_RANK:
            # Rank > 4 views exist only inside a channel shuffle or a view chain, whose unit
            # builders emit them; reaching here means the unit was split (partitioner bug).
            raise LoweringError(f"{node.name}: rank > 4 view outside a complete channel shuffle or view region "
                                "(partitioner bug)")
        if tensor_dtype(node) in (torch.int32, torch.int64):
            emit_integer_reshape(lc, node)
            return
        emit_reshape(lc, node, node.args[0], lc.shape(node))


def check_integer_reshape(node: Node, ctx: CheckContext, what: str) -> None:
    """An int32 / int64 ``node`` reshaping its first argument (a view, a squeeze): RESHAPE takes
    TENSOR_INT32 (int64 is held in it) from feature level 6; below, values float32 holds exactly
    go through it (`emit_integer_reshape`)."""
    dtype = str(tensor_dtype(node)).removeprefix("torch.")
    if ctx.feature_level < FeatureLevel.FEATURE_LEVEL_6 and exact_in_float32(node.args[0], ctx):
        ctx.require(FeatureLevel.ANDROID_10, f"{what} of an {dtype} tensor of small values (CAST)")
    else:
        ctx.require(FeatureLevel.FEATURE_LEVEL_6, f"{what} of an {dtype} tensor (TENSOR_INT32 RESHAPE; "
                    "below it only values provably within +-2^24, which these are not)")


def emit_integer_reshape(lc: LoweringContext, node: Node) -> None:
    """The RESHAPE `check_integer_reshape` accepted, to ``node``'s shape in identity order."""
    if lc.graph.feature_level < FeatureLevel.FEATURE_LEVEL_6:
        _emit_reshape_through_float32(lc, node)
    else:
        emit_reshape(lc, node, node.args[0], lc.shape(node))


def _emit_reshape_through_float32(lc: LoweringContext, node: Node) -> None:
    """An int32 view below feature level 6 (check proved every value within +-2^24): CAST to float32,
    RESHAPE, CAST back; each step exact."""
    g, x = lc.graph, node.args[0]
    shape = [int(d) for d in lc.shape(node)] or [1]
    in_shape = [int(d) for d in lc.shape(x)] or [1]
    floats = g.emit_tensor(in_shape, torch.float32, debug_name=f"{node.name}.as_float")
    g.emit_operation(OperationCode.CAST, [lc.operand(x, identity(len(lc.shape(x))))], [floats], debug_name=node.name)
    reshaped = g.emit_tensor(shape, torch.float32, debug_name=f"{node.name}.reshaped")
    g.emit_operation(OperationCode.RESHAPE, [floats, g.emit_int32_vector(shape)], [reshaped], debug_name=node.name)
    g.emit_operation(OperationCode.CAST, [reshaped], [lc.emit_output(node, identity(len(lc.shape(node))),
                                                                     shape=list(lc.shape(node)))],
                     debug_name=node.name)
