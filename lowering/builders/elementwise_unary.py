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
from .quantization import SYMMETRIC_UNIT, UNIT_INTERVAL, fixed_output, same_parameters
from .registry import register_builder

aten = torch.ops.aten

_RANK_1_4 = (1, MAX_RANK)
_RANK_1_ANY = (1, 1 << 30)  # no upper limit in NNAPI's spec

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
               quantized=fixed_output(UNIT_INTERVAL, aten.sigmoid.default)),
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

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_float_tensors(node, node.args[0])
        ranks = _RANKS[aten_op(node)]
        if ranks is not None:
            check_rank(node, max_rank=ranks[1], min_rank=ranks[0])

    def define(self, node: Node, lc: LoweringContext) -> None:
        emit_unary(lc, node, _CODES[aten_op(node)])
