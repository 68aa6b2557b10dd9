"""aten.mean.dim (and mean.default, x.mean(): every dim) -> MEAN over the physical
axes of the input's dim order; at API 27, which has no MEAN, a mean over H and W of
a static 4-D input is one AVERAGE_POOL_2D whose window is the whole image
(squeeze-and-excite blocks), and a mean over other consecutive dims of a static input
one AVERAGE_POOL_2D of a [before, reduced, 1, after] view. A 5-D input (adaptive_avg_pool3d to 1x1x1) is reduced
on a <= 4-D view of its bytes that keeps the reduced dims apart from the others
(pool3d_utils.py). A 0-d result (every dim reduced, no keepdim) is stored as [1]."""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from ..graph import NHWC, merged_shape, permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import QuantParams, normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import is_static
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis, remove_dims
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .pool3d_utils import DEPTH_VIEW
from .pool_utils import emit_pool, nhwc_input
from .registry import register_builder

aten = torch.ops.aten

# Integer inputs averaged with dtype=float32 (int64 arrives narrowed to int32, range-checked).
INTEGER_INPUTS = (torch.int32, torch.int64)


def reduction_dims(node: Node) -> list[int]:
    """The reduced dims, sorted (every dim for mean.default, or an empty / None dim list)."""
    rank = len(tensor_shape(node.args[0]))
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
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
                  "float32, rank <= 4; at API 27 over H and W of a 4-D input with static H, W, or over "
                  "consecutive dims of a static input (AVERAGE_POOL_2D of a view); int32 / "
                  "int64 input with dtype=float32: CAST + MEAN (API 29); other dtype= refused; rank 5 when the "
                  "reduced dims fit a 4-D view (at API 27: D, H, W, static)",
                  quantized=same_parameters(aten.mean.dim)),
        OpSupport(aten.mean.default, FeatureLevel.ANDROID_8_1, "MEAN over every dim (x.mean()); CAST first for "
                  "integers; AVERAGE_POOL_2D of a view at API 27",
                  "as aten.mean.dim over every dim without keepdim: a 0-d result (stored as [1]), rank <= 5"),
    )
    layout = LayoutClass.REDUCTION
    reads_merged_views = True  # a rank-5 mean over D, H, W reads its input's merged view

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
        if len(tensor_shape(node.args[0])) == 5:
            self._check_rank5(node, ctx)
            return
        check_rank(node.args[0], MAX_RANK, what="input")
        if not is_spatial_mean(node) and not is_run_mean(node):
            ctx.require(FeatureLevel.ANDROID_9, "mean (MEAN)")

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        if len(tensor_shape(node.args[0])) == 5:
            raise Refused("quantized mean of a 5-D input (its 4-D view lowering is float32 only)")

    @staticmethod
    def _check_rank5(node: Node, ctx: CheckContext) -> None:
        if is_volume_mean(node):
            return
        dims = reduction_dims(node)
        if reduction_view(5, dims) is None:
            raise Refused(f"mean over dims {dims} of a 5-D input (the reduced dims do not fit a 4-D view of it)")
        ctx.require(FeatureLevel.ANDROID_9, "mean of a 5-D input other than over static D, H, W (MEAN)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        if len(lc.shape(node.args[0])) == 5:
            self._define_rank5(node, lc)
            return
        # Quantized, MEAN truncates the sum of codes (docs/nnapi_facts.md §9.10) where AVERAGE_POOL_2D rounds it
        # (docs/nnapi_facts.md §9.8) as convert_pt2e's float mean does: pool a spatial mean at every level.
        x = node.args[0]
        if lc.dtype(x) in INTEGER_INPUTS:
            order = lc.order(x)
            cast = lc.graph.emit_tensor(permute_shape(lc.shape(x), order), debug_name=f"{node.name}.float")
            lc.graph.emit_operation(OperationCode.CAST, [lc.operand(x, order)], [cast], debug_name=node.name)
            emit_reduction(lc, node, OperationCode.MEAN, lc.graph.emit_int32(1 if keepdim(node) else 0), cast)
            return
        quantized = lc.quant_params(node) is not None and is_spatial_mean(node)
        if (lc.graph.feature_level < FeatureLevel.ANDROID_9 and is_spatial_mean(node)) or quantized:
            self._define_as_pool(node, lc)
            return
        if lc.graph.feature_level < FeatureLevel.ANDROID_9:
            self._define_as_run_pool(node, lc)
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


    @staticmethod
    def _define_as_run_pool(node: Node, lc: LoweringContext) -> None:
        """API 27, a run of consecutive reduced dims (a rank > 4 mean rewritten on a view):
        the bytes seen as [before, reduced, 1, after], one AVERAGE_POOL_2D over the reduced
        span, the result relabelled to the output's shape by RESHAPE."""
        x, g = node.args[0], lc.graph
        order, dims = lc.order(x), reduction_dims(node)
        axes = sorted(physical_axis(order, d) for d in dims)
        if axes != list(range(axes[0], axes[-1] + 1)):  # held in another order: PyTorch's
            order = tuple(range(len(order)))
            axes = dims
        physical = permute_shape(lc.shape(x), order)
        before, span = math.prod(physical[:axes[0]]), math.prod(physical[axes[0]:axes[-1] + 1])
        after = math.prod(physical[axes[-1] + 1:])
        source = g.emit_like(lc.operand(x, order), [before, span, 1, after], debug_name=f"{node.name}.view")
        g.emit_operation(OperationCode.RESHAPE, [lc.operand(x, order), g.emit_int32_vector([before, span, 1, after])],
                         [source], debug_name=f"{node.name} (view)")
        pooled = g.emit_like(source, [before, 1, 1, after], debug_name=f"{node.name}.pooled")
        emit_pool(lc, OperationCode.AVERAGE_POOL_2D, source, pooled, [span, 1], [span, 1], [0, 0], [0, 0],
                  g.emit_int32(int(FuseCode.NONE)), node.name)
        out_order = order if keepdim(node) else (remove_dims(order, dims) if len(dims) < len(order) else (0,))
        out = lc.emit_output(node, out_order, shape=lc.shape(node) or [1])
        g.emit_operation(OperationCode.RESHAPE, [pooled, g.emit_int32_vector(g.operands[out].dims)], [out],
                         debug_name=f"{node.name} (drop reduced dims)")

    @staticmethod
    def _define_rank5(node: Node, lc: LoweringContext) -> None:
        """Reduces the view that keeps reduced dims apart: MEAN (API 28) or, at API 27,
        AVERAGE_POOL_2D over D and H*W of the [N*C, D, H*W, 1] view."""
        x, g = node.args[0], lc.graph
        shape, out_shape = lc.shape(x), lc.shape(node)
        if g.feature_level < FeatureLevel.ANDROID_9:
            view, (n, c, d, h, w) = DEPTH_VIEW, shape
            reduced = g.emit_tensor([n * c, 1, 1, 1], debug_name=f"{node.name}.pooled")
            emit_pool(lc, OperationCode.AVERAGE_POOL_2D, lc.merged_operand(x, view), reduced, [d, h * w], [d, h * w],
                      [0, 0], [0, 0], g.emit_int32(int(FuseCode.NONE)), node.name)
        else:
            dims = reduction_dims(node)
            view = reduction_view(5, dims)
            produced = lc.graph.value(lc.resolve(x)).merged
            if produced is not None and all(len({d in dims for d in group}) <= 1 for group in view_groups(produced)):
                view = produced  # Already separates reduced and kept dims: no RESHAPE.
            axes = [i for i, group in enumerate(view_groups(view)) if group and group[0] in dims]
            reduced = g.emit_tensor(merged_shape(out_shape if keepdim(node) else keepdim_shape(shape, node), view),
                                    debug_name=f"{node.name}.reduced")
            g.emit_operation(OperationCode.MEAN, [lc.merged_operand(x, view), g.emit_int32_vector(axes),
                                                  g.emit_int32(1)], [reduced], debug_name=node.name)
        if keepdim(node):
            g.set_merged_value(node, reduced, view, out_shape)
            return
        out = lc.emit_output(node, shape=out_shape or [1])  # a 0-d result is stored as [1]
        g.emit_operation(OperationCode.RESHAPE, [reduced, g.emit_int32_vector(out_shape or [1])], [out],
                         debug_name=f"{node.name} (drop reduced dims)")


def keepdim_shape(shape: list, node: Node) -> list:
    """``shape`` with the reduced dims of ``node`` set to 1."""
    dims = reduction_dims(node)
    return [1 if i in dims else s for i, s in enumerate(shape)]


def view_groups(view: tuple[int, ...]) -> list[list[int]]:
    """The dims each operand dim of a merged view spans."""
    groups, start = [], 0
    for span in view:
        groups.append(list(range(start, start + span)))
        start += span
    return groups


def reduction_view(rank: int, dims: list[int]) -> tuple[int, ...] | None:
    """A view of a rank-``rank`` value of at most 4 dims in which each dim is wholly
    reduced or kept: consecutive reduced dims merged, as are consecutive kept ones."""
    runs: list[int] = []
    for i in range(rank):
        if i and (i in dims) == (i - 1 in dims):
            runs[-1] += 1
        else:
            runs.append(1)
    return tuple(runs) if len(runs) <= MAX_RANK else None


def is_volume_mean(node: Node) -> bool:
    """A mean over D, H and W of a 5-D input with static D, H, W (AVERAGE_POOL_2D at API 27)."""
    shape = tensor_shape(node.args[0])
    return len(shape) == 5 and reduction_dims(node) == [2, 3, 4] and all(is_static(d) for d in shape[2:])


def is_run_mean(node: Node) -> bool:
    """A float mean over consecutive dims of a static input of rank <= 4 (AVERAGE_POOL_2D on a
    [before, reduced, 1, after] view at API 27). Consecutive in the logical order: the builder
    checks the physical order at lowering, where a transposed input would need TRANSPOSE (API 28)."""
    shape = tensor_shape(node.args[0])
    dims = reduction_dims(node)
    return (all(is_static(d) for d in shape) and bool(dims) and dims == list(range(dims[0], dims[-1] + 1))
            and tensor_dtype(node.args[0]) == torch.float32)


def is_spatial_mean(node: Node) -> bool:
    """A mean over H and W of a 4-D input with static H, W (an AVERAGE_POOL_2D at API 27)."""
    shape = tensor_shape(node.args[0])
    return len(shape) == 4 and reduction_dims(node) == [2, 3] and is_static(shape[2]) and is_static(shape[3])
