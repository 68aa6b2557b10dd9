"""A weight-only int8 embedding (WeightOnlyEmbeddingUnit, torchao's ``Int8WeightOnlyConfig`` on
an ``nn.Embedding``) -> GATHER of the int8 rows, DEQUANTIZE, GATHER of their scales, MUL.

GATHER does not take NNAPI's per-channel int8 type, so the table is stored as
TENSOR_QUANT8_ASYMM codes with scale 1 and zero point 128 (the int8 code + 128): GATHER picks
the rows looked up (its output keeps the input's parameters), DEQUANTIZE gives each code as a
float, and MUL by the rows' scales gives ``code * scale``, torchao's value exactly (one float32
multiply). Only the rows looked up are converted, not the whole table. API 29 (GATHER,
DEQUANTIZE). Zero points other than 0 keep the table in float32 (a warning says so).
"""

from __future__ import annotations

import logging

import torch

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperandCode, OperationCode
from ..node_units import WeightOnlyEmbeddingUnit
from ..node_utils import tensor_shape
from .common import MAX_RANK, check_rank
from .index_select import check_runtime_indices
from .node_builder import CheckContext, Refused, UnitBuilder
from .registry import register_unit_builder

logger = logging.getLogger(__name__)


@register_unit_builder
class WeightOnlyEmbeddingBuilder(UnitBuilder):
    """embedding(dequantize_affine(int8 table), ids) -> GATHER of 8-bit rows + DEQUANTIZE + MUL by their scales."""

    unit = WeightOnlyEmbeddingUnit
    since = FeatureLevel.ANDROID_10
    what = "a weight-only int8 embedding (GATHER of int8 rows, DEQUANTIZE)"

    def check(self, unit: WeightOnlyEmbeddingUnit, ctx: CheckContext) -> None:
        ids = unit.output.args[1]
        check_rank(unit.output, MAX_RANK, what="output")
        if len(tensor_shape(ids)) == 0:
            raise Refused("embedding with 0-d indices (GATHER keeps the indices' dim: [1, D], not [D])")
        if not ctx.is_foldable(ids):
            check_runtime_indices(ids, "embedding")

    def define(self, unit: WeightOnlyEmbeddingUnit, lc: LoweringContext) -> None:
        """The looked-up rows in float32, as ``unit.output``'s value."""
        g = lc.graph
        name = unit.output.name
        ids = unit.output.args[1]
        index = (g.emit_constant_tensor(lc.constant(ids), debug_name=f"{name}.indices") if lc.is_constant(ids)
                 else lc.operand(ids))
        codes = lc.constant(unit.codes)
        scales = lc.constant(unit.scale).to(torch.float32).reshape(-1, 1)
        zeros = lc.constant(unit.zero_point) if unit.zero_point is not None else None
        out = lc.emit_output(unit.output)
        axis = g.emit_int32(0)
        if zeros is not None and bool((zeros != 0).any()):
            logger.warning("%s: int8 table with non-zero zero points; stored in float32", name)
            table = (codes.to(torch.float32) - zeros.to(torch.float32).reshape(-1, 1)) * scales
            g.emit_operation(OperationCode.GATHER, [g.emit_constant_tensor(table), axis, index], [out],
                             debug_name=name)
            return
        table = g.emit_quantized_constant((codes.to(torch.int16) + 128).to(torch.uint8),
                                          OperandCode.TENSOR_QUANT8_ASYMM, scale=1.0, zero_point=128,
                                          debug_name=f"{name}.codes")
        rows_shape = list(lc.shape(unit.output))
        rows = g.emit_operand(OperandCode.TENSOR_QUANT8_ASYMM, rows_shape, scale=1.0, zero_point=128,
                              debug_name=f"{name}.rows")
        g.emit_operation(OperationCode.GATHER, [table, axis, index], [rows], debug_name=f"{name} (rows)")
        values = g.emit_tensor(rows_shape, debug_name=f"{name}.codes_f32")
        g.emit_operation(OperationCode.DEQUANTIZE, [rows], [values], debug_name=f"{name} (codes)")
        row_scales = g.emit_tensor([*rows_shape[:-1], 1], debug_name=f"{name}.scales")
        g.emit_operation(OperationCode.GATHER, [g.emit_constant_tensor(scales, debug_name=f"{name}.scale_table"),
                                                axis, index], [row_scales], debug_name=f"{name} (scales)")
        g.emit_operation(OperationCode.MUL, [values, row_scales, g.emit_int32(0)], [out], debug_name=name)
