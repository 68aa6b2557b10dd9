"""One-input elementwise ops that are one NNAPI operation each (RELU, TANH, LOGISTIC, ABS,
NEG, EXP, LOG, SIN, SQRT, RSQRT): one table row each, stating the ATen op, the NNAPI
operation, its feature level, the ranks it takes and how it runs on 8-bit operands.

Adding such an op is one row of ``_ROWS``.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import aten_op
from .common import MAX_RANK, check_float_tensors, check_rank, emit_unary
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport
from .quantization import SYMMETRIC_UNIT, UNIT_INTERVAL, fixed_output, input_rank_1_to_4, rewritten, same_parameters
from .registry import register_builder

aten = torch.ops.aten

_RANK_1_4 = (1, MAX_RANK)
_RANK_1_ANY = (1, 1 << 30)  # no upper limit in NNAPI's spec
# What a node made by a rewrite copies from the node it replaces (its value for the annotation's
# dtype checks, its source for the delegation report and debug handles).
_SOURCE_META = ("val", "nn_module_stack", "stack_trace", "source_fn_stack", "from_node")


def silu_as_sigmoid_mul(graph: torch.fx.Graph, node: Node) -> None:
    """aten.silu rewritten as x * sigmoid(x) (LOGISTIC, fixed 1/256 output, and MUL).

    NNAPI has no SiLU: left whole, each one is a float island (DEQUANTIZE, LOGISTIC, MUL, QUANTIZE;
    timm efficientnet_b0 has 49). The 8-bit gate cost efficientnet_b0 0.14 dB of SQNR (12.66 ->
    12.52 dB, 64 held-out inputs, random batch-norm statistics), XNNPACK int8 (float SiLU) 12.58 dB.
    """
    x = node.args[0]
    with graph.inserting_after(node):
        gate = graph.call_function(aten.sigmoid.default, (x,))
    with graph.inserting_after(gate):
        product = graph.call_function(aten.mul.Tensor, (x, gate))
    for new in (gate, product):
        new.meta.update({k: v for k, v in node.meta.items() if k in _SOURCE_META})
    node.replace_all_uses_with(product)
    if node.target is aten.silu_.default:
        # In place, silu_ also changed x for the nodes after it: they read the product now.
        later, n = set(), product.next
        while n.op != "root":
            later.add(n)
            n = n.next
        for user in [u for u in x.users if u in later]:
            user.replace_input_with(x, product)
    graph.erase_node(node)


# (the op's row, its NNAPI operation, the (min, max) rank it takes, or None: no rank check)
_ROWS = (
    (OpSupport(aten.relu.default, FeatureLevel.ANDROID_8_1, "RELU or fused activation", "float32, rank <= 4",
               quantized=same_parameters(aten.relu.default, aten.relu_.default, activation=True)),
     OperationCode.RELU, _RANK_1_4),
    (OpSupport(aten.tanh.default, FeatureLevel.ANDROID_8_1, "TANH", "float32, rank 1-4",
               # TANH takes TENSOR_QUANT8_ASYMM only from API 29 (float from 27).
               quantized=fixed_output(SYMMETRIC_UNIT, aten.tanh.default, since=FeatureLevel.ANDROID_10)),
     OperationCode.TANH, _RANK_1_4),
    (OpSupport(aten.sigmoid.default, FeatureLevel.ANDROID_8_1, "LOGISTIC",
               "float32, rank 1-4 (silu decomposes to sigmoid + mul)",
               quantized=(fixed_output(UNIT_INTERVAL, aten.sigmoid.default),
                          rewritten(silu_as_sigmoid_mul, aten.silu.default, aten.silu_.default,
                                    check=input_rank_1_to_4))),
     OperationCode.LOGISTIC, _RANK_1_4),
    (OpSupport(aten.abs.default, FeatureLevel.ANDROID_10, "ABS", "float32"), OperationCode.ABS, _RANK_1_ANY),
    (OpSupport(aten.neg.default, FeatureLevel.ANDROID_10, "NEG", "float32"), OperationCode.NEG, _RANK_1_ANY),
    (OpSupport(aten.exp.default, FeatureLevel.ANDROID_10, "EXP", "float32"), OperationCode.EXP, _RANK_1_ANY),
    (OpSupport(aten.log.default, FeatureLevel.ANDROID_10, "LOG", "float32"), OperationCode.LOG, None),
    (OpSupport(aten.sin.default, FeatureLevel.ANDROID_10, "SIN", "float32"), OperationCode.SIN, _RANK_1_ANY),
    (OpSupport(aten.sqrt.default, FeatureLevel.ANDROID_10, "SQRT", "float32"), OperationCode.SQRT, _RANK_1_ANY),
    (OpSupport(aten.rsqrt.default, FeatureLevel.ANDROID_10, "RSQRT", "float32"), OperationCode.RSQRT, _RANK_1_ANY),
)

_CODES = {row.op: code for row, code, _ in _ROWS}
_RANKS = {row.op: ranks for row, _, ranks in _ROWS}


@register_builder
class ElementwiseUnaryBuilder(NodeBuilder):
    """One-input elementwise ops, one NNAPI operation each (one table row per op)."""

    ops = tuple(row for row, _, _ in _ROWS)
    layout = LayoutClass.ORDER_PRESERVING
    reads_merged_views = True  # emit_unary computes on a merged view as on any dim order

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        ranks = _RANKS[aten_op(node)]
        if ranks is not None:
            check_rank(node, max_rank=ranks[1], min_rank=ranks[0])

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_unary(lc, node, _CODES[aten_op(node)])
