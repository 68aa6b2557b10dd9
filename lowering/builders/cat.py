"""aten.cat -> CONCATENATION on the physical axis, all inputs in one dim order. CONCATENATION takes
no BOOL8 or TENSOR_INT32: bool tensors are concatenated as 1 / 0 floats then compared with 0, and
int32 / int64 tensors whose values provably lie within +-2^24 are CAST to float32 and back (each
step exact), in PyTorch's dim order (API 29)."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_dtype, tensor_shape
from .bool_values import HELD_IN_INT32, as_float, emit_result, operand, shape_of
from .common import MAX_RANK, check_float_tensors, check_rank, physical_axis
from .integer_ranges import exact_in_float32
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import same_parameters
from .registry import register_builder

aten = torch.ops.aten


def cat_dim(node: Node) -> int:
    """The non-negative logical concatenation dim (NNAPI rejects negative axes)."""
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    return normalize_dim(dim, len(tensor_shape(node)))


@register_builder
class CatBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.cat.default, FeatureLevel.ANDROID_8_1, "CONCATENATION",
                  "float32, rank <= 4, equal ranks, no empty inputs; bool (as 1 / 0 floats) and int32 / int64 of values "
                  "provably within +-2^24 (CAST to float32 and back) of static sizes from API 29",
                  quantized=same_parameters(aten.cat.default)),
    )
    layout = LayoutClass.ORDER_PRESERVING

    def check(self, node: Node, ctx: CheckContext) -> None:
        tensors = list(node.args[0])
        dtype = tensor_dtype(node)
        if dtype == torch.bool and all(isinstance(t, Node) and tensor_dtype(t) == torch.bool for t in tensors):
            ctx.require(FeatureLevel.ANDROID_10, "cat of bool tensors (SELECT)")
            if not all(isinstance(d, int) for x in (node, *tensors) for d in tensor_shape(x)):
                raise Refused("cat of bool tensors of dynamic size (their 1 / 0 constants need static sizes)")
        elif dtype in HELD_IN_INT32 and all(isinstance(t, Node) and tensor_dtype(t) in HELD_IN_INT32 for t in tensors):
            if not all(exact_in_float32(t, ctx) for t in tensors) or not all(
                    isinstance(d, int) for d in tensor_shape(node)):
                raise Refused(f"cat of {str(dtype).removeprefix('torch.')} tensors whose values are not provably "
                              "within +-2^24 (CONCATENATION takes no TENSOR_INT32; float32 holds those exactly)")
            ctx.require(FeatureLevel.ANDROID_10, "cat of integer tensors (CAST)")
        else:
            check_float_tensors(node, *tensors)
        check_rank(node, MAX_RANK, what="output")
        rank = len(tensor_shape(node))
        for t in tensors:
            if not isinstance(t, Node):
                raise Refused(f"cat of a non-tensor value {t!r}")
            shape = tensor_shape(t)
            if len(shape) != rank:
                # torch.cat skips legacy empty 1-D tensors; NNAPI has no empty tensors.
                raise Refused(f"cat of inputs of different ranks ({len(shape)} and {rank})")
            if any(d == 0 for d in shape):
                raise Refused(f"cat with an empty input {t.name} (NNAPI has no zero-sized tensors)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        if tensor_dtype(node) == torch.bool or tensor_dtype(node) in HELD_IN_INT32:
            _cat_through_float32(node, lc)
            return
        tensors = list(node.args[0])
        rank = len(lc.shape(node))
        # Use the layout of the first computed input, so that a cat of NHWC conv outputs
        # concatenates channels in place without any TRANSPOSE.
        order = next((lc.order(t) for t in tensors if not lc.is_constant(t)), identity(rank))
        inputs = [lc.operand(t, order) for t in tensors]
        g = lc.graph
        out = lc.emit_output(node, order)
        g.emit_operation(OperationCode.CONCATENATION,
                         [*inputs, g.emit_int32(physical_axis(order, cat_dim(node)))], [out], debug_name=node.name)


def _cat_through_float32(node: Node, lc: LoweringContext) -> None:
    """A bool or small-integer cat (check): each input as float32 in PyTorch's dim order (SELECT of
    1 / 0, or CAST), CONCATENATION, then NOT_EQUAL 0 or CAST back into the result."""
    g = lc.graph
    is_bool = tensor_dtype(node) == torch.bool
    parts = []
    for t in node.args[0]:
        dims = [int(d) for d in shape_of(t)] or [1]
        if is_bool:
            parts.append(as_float(lc, node, operand(lc, t, torch.bool), dims))
            continue
        floats = g.emit_tensor(dims, torch.float32, debug_name=f"{node.name}.as_float")
        g.emit_operation(OperationCode.CAST, [operand(lc, t, torch.int32)], [floats], debug_name=node.name)
        parts.append(floats)
    joined = g.emit_tensor([int(d) for d in lc.shape(node)], torch.float32, debug_name=f"{node.name}.joined")
    g.emit_operation(OperationCode.CONCATENATION, [*parts, g.emit_int32(cat_dim(node))], [joined], debug_name=node.name)
    if is_bool:
        g.emit_operation(OperationCode.NOT_EQUAL, [joined, g.emit_constant_tensor(torch.zeros(1))],
                         [emit_result(lc, node)], debug_name=node.name)
    else:
        g.emit_operation(OperationCode.CAST, [joined], [emit_result(lc, node)], debug_name=node.name)
