"""aten.mean.dim -> MEAN over the physical axes of the input's dim order; at
API 27, which has no MEAN, a mean over H and W of a static 4-D input is one
AVERAGE_POOL_2D whose window is the whole image (squeeze-and-excite blocks)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import NHWC, permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis, remove_dims
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .pool_utils import emit_pool, nhwc_input
from .registry import register_builder

aten = torch.ops.aten

# Integer inputs averaged with dtype=float32 (int64 arrives narrowed to int32, range-checked).
INTEGER_INPUTS = (torch.int32, torch.int64)


def reduction_dims(node: Node) -> list[int]:
    rank = len(tensor_shape(node.args[0]))
    dims = node.args[1] if len(node.args) > 1 else None
    if dims is None or len(dims) == 0:
        return list(range(rank))
    return sorted({normalize_dim(d, rank) for d in dims})


def keepdim(node: Node) -> bool:
    return bool(node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False))


def emit_reduction(lc: LoweringContext, node: Node, code: OperationCode, keep_dims_operand: int,
                   source: int | None = None) -> None:
    """Shared by mean / sum / amax: reduce logical dims on the physical layout (of
    ``source`` if given: x's value converted, in x's produced order)."""
    x = node.args[0]
    dims = reduction_dims(node)
    order = lc.order(x)
    axes = [physical_axis(order, d) for d in dims]
    out_order = order if keepdim(node) else remove_dims(order, dims)
    g = lc.graph
    rank = len(order)
    if not keepdim(node) and len(dims) == rank:
        # NNAPI returns shape [1] when everything is reduced; PyTorch a 0-d tensor.
        out_order = (0,)
    out = lc.emit_output(node, out_order, shape=lc.shape(node) or [1])
    source = lc.operand(x, order) if source is None else source
    g.emit_operation(code, [source, g.emit_int32_vector(axes), keep_dims_operand], [out], debug_name=node.name)


@register_builder
class MeanBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.mean.dim, FeatureLevel.ANDROID_8_1, "MEAN (API 28); AVERAGE_POOL_2D at API 27; CAST first for integers",
                  "float32, rank <= 4; at API 27 only over H and W of a 4-D input with static H, W; int32 / "
                  "int64 input with dtype=float32: CAST + MEAN (API 29); other dtype= refused"),
    )
    layout = LayoutClass.REDUCTION

    def check(self, node: Node, ctx: CheckContext) -> None:
        dtype = node.kwargs.get("dtype")
        if dtype not in (None, torch.float32):
            raise Refused(f"mean with dtype={dtype} (the float path computes float32; a {dtype} result would "
                          "round differently from PyTorch's)".replace("torch.", ""))
        if dtype == torch.float32 and tensor_dtype(node.args[0]) in INTEGER_INPUTS:
            # PyTorch converts the integers to float32, then averages: CAST, then MEAN.
            check_rank(node.args[0], MAX_RANK, what="input")
            ctx.require(FeatureLevel.ANDROID_10, f"mean of a {tensor_dtype(node.args[0])} tensor with "
                        "dtype=float32 (CAST)".replace("torch.", ""))
            return
        check_float_tensors(node, node.args[0])
        check_rank(node.args[0], MAX_RANK, what="input")
        if not is_spatial_mean(node):
            ctx.require(FeatureLevel.ANDROID_9, "mean (MEAN)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        # Quantized, MEAN truncates the sum of codes (§7.11) where AVERAGE_POOL_2D rounds it
        # (§7.9) as convert_pt2e's float mean does: pool a spatial mean at every level.
        x = node.args[0]
        if lc.dtype(x) in INTEGER_INPUTS:
            order = lc.order(x)
            cast = lc.graph.emit_tensor(permute_shape(lc.shape(x), order), debug_name=f"{node.name}.float")
            lc.graph.emit_operation(OperationCode.CAST, [lc.operand(x, order)], [cast], debug_name=node.name)
            emit_reduction(lc, node, OperationCode.MEAN, lc.graph.emit_int32(1 if keepdim(node) else 0), cast)
            return
        quantized = lc.quant_params(node) is not None and is_spatial_mean(node)
        if lc.graph.feature_level < FeatureLevel.ANDROID_9 or quantized:
            self._define_as_pool(node, lc)
            return
        emit_reduction(lc, node, OperationCode.MEAN, lc.graph.emit_int32(1 if keepdim(node) else 0))

    @staticmethod
    def _define_as_pool(node: Node, lc: LoweringContext) -> None:
        x = node.args[0]
        g = lc.graph
        n, c, h, w = lc.shape(x)
        # [N, 1, 1, C] and [N, C] are the same bytes: without keepdim a RESHAPE drops the 1s.
        inp = nhwc_input(lc, x)
        pooled = lc.emit_output(node, NHWC) if keepdim(node) else g.emit_like(inp, [n, 1, 1, c],
                                                                               debug_name=f"{node.name}.pooled")
        emit_pool(lc, OperationCode.AVERAGE_POOL_2D, inp, pooled, [h, w], [h, w], [0, 0], [0, 0],
                  g.emit_int32(int(FuseCode.NONE)), node.name)
        if not keepdim(node):
            out = lc.emit_output(node, (0, 1))
            g.emit_operation(OperationCode.RESHAPE, [pooled, g.emit_int32_vector([n, c])], [out], debug_name=node.name)


def is_spatial_mean(node: Node) -> bool:
    """A mean over H and W of a 4-D input with static H, W (an AVERAGE_POOL_2D at API 27)."""
    shape = tensor_shape(node.args[0])
    return len(shape) == 4 and reduction_dims(node) == [2, 3] and is_static(shape[2]) and is_static(shape[3])
