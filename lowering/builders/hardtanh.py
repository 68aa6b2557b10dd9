"""aten.hardtanh / aten.clamp -> RELU6, RELU1, RELU, or MAXIMUM + MINIMUM for other bounds; an
int32 / int64 clamp (held in TENSOR_INT32) MAXIMUM + MINIMUM (API 29) with integer bounds."""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperationCode
from ..node_utils import QuantParams, aten_op, clamp_fuse_code
from .bool_values import keeps_integer_dtype
from .common import MAX_RANK, check_float_tensors, check_rank, emit_unary
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .quantization import fusable_clamp, same_parameters
from .registry import register_builder

aten = torch.ops.aten

_SINGLE_OP = {FuseCode.RELU: OperationCode.RELU, FuseCode.RELU1: OperationCode.RELU1,
              FuseCode.RELU6: OperationCode.RELU6}


def _bounds(node: Node):
    if aten_op(node) == aten.hardtanh.default:
        return (node.args[1] if len(node.args) > 1 else -1.0), (node.args[2] if len(node.args) > 2 else 1.0)
    lo = node.args[1] if len(node.args) > 1 else node.kwargs.get("min")
    hi = node.args[2] if len(node.args) > 2 else node.kwargs.get("max")
    return lo, hi


@register_builder
class ClampBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.hardtanh.default, FeatureLevel.ANDROID_8_1, "RELU6 / RELU1 / fused; MAXIMUM+MINIMUM (API 29)",
                  "float32; bounds other than (0, 6) and (-1, 1) need API 29",
                  quantized=same_parameters(aten.hardtanh.default, aten.hardtanh_.default, check=fusable_clamp,
                                            activation=True)),
        OpSupport(aten.clamp.default, FeatureLevel.ANDROID_8_1, "RELU / RELU6 / RELU1 / fused; MAXIMUM / MINIMUM (API 29)",
                  "float32, scalar bounds; bounds other than (0, inf), (0, 6), (-1, 1) need API 29; "
                  "int32 / int64 (held in int32) with integer bounds from API 29"),
    )
    layout = LayoutClass.ORDER_PRESERVING
    reads_merged_views = True  # emit_unary computes on a merged view as on any dim order

    def check(self, node: Node, ctx: CheckContext) -> None:
        lo, hi = _bounds(node)
        if keeps_integer_dtype(node):
            check_rank(node, MAX_RANK, min_rank=0)
            if not all(b is None or (isinstance(b, int) and not isinstance(b, bool)) for b in (lo, hi)):
                raise Refused(f"integer clamp to ({lo}, {hi}): bounds other than integer numbers")
            ctx.require(FeatureLevel.ANDROID_10, "clamp of an integer tensor (MAXIMUM / MINIMUM)")
            check_int64_result(node, ctx)
            return
        check_float_tensors(node, node.args[0])
        check_rank(node, MAX_RANK)
        if lo is None and hi is None:
            raise Refused("clamp without bounds")
        if clamp_fuse_code(node) is None:
            ctx.require(FeatureLevel.ANDROID_10, f"clamp to ({lo}, {hi}) (MAXIMUM/MINIMUM)")

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        if clamp_fuse_code(node) is None:
            raise Refused("quantized hardtanh with bounds other than (0, 6), (-1, 1) (RELU6 / RELU1)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        code = clamp_fuse_code(node) if not keeps_integer_dtype(node) else None
        if code is not None:
            emit_unary(lc, node, _SINGLE_OP[code])
            return
        g = lc.graph
        x = node.args[0]
        lo, hi = _bounds(node)
        order = lc.order(x)
        current = lc.operand(x, order)
        dtype = torch.int32 if keeps_integer_dtype(node) else torch.float32
        steps = [(OperationCode.MAXIMUM, lo), (OperationCode.MINIMUM, hi)]
        steps = [(c, v) for c, v in steps if v is not None]
        for i, (op_code, bound) in enumerate(steps):
            last = i == len(steps) - 1
            out = lc.emit_output(node, order) if last else g.emit_like(current, g.operands[current].dims,
                                                                       debug_name=f"{node.name}.lower")
            bound_op = g.emit_constant_tensor(torch.tensor([bound], dtype=dtype))
            g.emit_operation(op_code, [current, bound_op], [out], debug_name=node.name)
            current = out
