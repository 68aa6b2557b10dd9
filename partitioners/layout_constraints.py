"""Layout limits of API 27 (Android 8.1), which has no TRANSPOSE operation.

Spatial operations produce NHWC values. At API 28+ lowering converts a value
to another dim order with TRANSPOSE where a consumer needs one; at API 27 only
the runtime can permute, and only at a partition's edge. So at API 27 a node
that would need an NHWC value in PyTorch order inside the partition is refused
here, before lowering could fail on it.
"""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from executorch_nnapi.lowering.node_utils import aten_op, fake_value

aten = torch.ops.aten

NHWC_PRODUCERS = frozenset({
    aten.convolution.default, aten.max_pool2d_with_indices.default, aten.avg_pool2d.default,
    aten._adaptive_avg_pool2d.default, aten.upsample_nearest2d.vec, aten.upsample_bilinear2d.vec,
})
# Ops that work in whatever order their input has (their output keeps it).
ORDER_PRESERVING = frozenset({
    aten.relu.default, aten.hardtanh.default, aten.clamp.default, aten.add.Tensor, aten.sub.Tensor,
    aten.mul.Tensor, aten.div.Tensor, aten.sigmoid.default, aten.tanh.default, aten.hardswish.default,
    aten.hardsigmoid.default, aten.gelu.default, aten.elu.default, aten.leaky_relu.default, aten.prelu.default,
    aten.abs.default, aten.neg.default, aten.exp.default, aten.sqrt.default, aten.rsqrt.default,
    aten.pow.Tensor_Scalar, aten.maximum.default, aten.minimum.default, aten.constant_pad_nd.default,
    aten.cat.default, aten._native_batch_norm_legit_no_training.default, operator.getitem,
})
REDUCTIONS = frozenset({aten.mean.dim, aten.sum.dim_IntList, aten.amax.default})


def _rank4(node) -> bool:
    val = fake_value(node) if isinstance(node, Node) else None
    return isinstance(val, torch.Tensor) and val.dim() == 4


def _unit_spatial(node: Node) -> bool:
    shape = fake_value(node).shape
    return all(isinstance(d, int) and d == 1 for d in shape[2:])


def nhwc_values(graph: torch.fx.Graph) -> set[Node]:
    """Nodes whose value lowering will hold in NHWC order (approximation)."""
    nhwc: set[Node] = set()
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        op = aten_op(node)
        inputs = [i for i in node.all_input_nodes if i in nhwc]
        if op in NHWC_PRODUCERS and _rank4(node):
            nhwc.add(node)
        elif op in ORDER_PRESERVING and inputs and (_rank4(node) or op is operator.getitem):
            nhwc.add(node)
        elif op in REDUCTIONS and inputs and _rank4(node) and not _unit_spatial(node):
            nhwc.add(node)
    return nhwc


def api27_layout_refusal(node: Node, nhwc: set[Node], is_constant) -> str | None:
    """Why ``node`` cannot be lowered at API 27 for layout reasons, if it cannot."""
    op = aten_op(node)
    tensor_inputs = [i for i in node.all_input_nodes if isinstance(fake_value(i), torch.Tensor)
                     and not is_constant(i)]
    nhwc_inputs = [i for i in tensor_inputs if i in nhwc]
    if not nhwc_inputs or op in NHWC_PRODUCERS or op in REDUCTIONS:
        return None
    if op in ORDER_PRESERVING:
        # Mixed layouts among full-rank inputs would need a TRANSPOSE.
        if any(_rank4(i) and i not in nhwc for i in tensor_inputs):
            return "mixing NHWC and NCHW activations needs TRANSPOSE (API 28); the target is API 27"
        return None
    if op == aten.view_copy.default and all(_unit_spatial(i) for i in nhwc_inputs):
        return None  # [N, C, 1, 1] has the same memory order in NHWC
    return (f"reading an NHWC activation in PyTorch's order ({getattr(op, '__name__', op)}) needs "
            "TRANSPOSE (API 28); the target is API 27")
