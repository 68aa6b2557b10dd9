"""Which ATen ops NNAPI takes, from which feature level, under which constraints.

This table is the one place that answers "does NNAPI support this op?":
``NnapiPartitioner`` consults it for every node (then the op's builder checks
the node's attributes and refuses with a specific reason), ``executorch-nnapi
ops`` prints it, and tests assert that every row has a builder.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any

import torch

import executorch.exir.passes.dim_order_ops_registry  # noqa: F401  (registers torch.ops.dim_order_ops)
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel

aten = torch.ops.aten
dim_order_ops = torch.ops.dim_order_ops
L27, L28, L29, L30 = (FeatureLevel.ANDROID_8_1, FeatureLevel.ANDROID_9, FeatureLevel.ANDROID_10,
                      FeatureLevel.ANDROID_11)

_F32 = "float32"
_CMP = "float32, int32 or bool inputs of the dtype PyTorch compares in"
_LOGICAL = "bool inputs (float32 / int32: x != 0)"


@dataclasses.dataclass(frozen=True)
class OpSupport:
    """One row: ``op`` is supported from ``since`` when ``constraints`` hold.

    ``keep`` asks to_edge not to decompose the op (only nodes the partitioner
    then takes are kept, so nothing is left without a kernel).
    """

    op: Any
    since: FeatureLevel
    nnapi: str
    constraints: str
    keep: bool = False


SUPPORT_TABLE: tuple[OpSupport, ...] = (
    OpSupport(aten.convolution.default, L27, "CONV_2D / DEPTHWISE_CONV_2D / GROUPED_CONV_2D / TRANSPOSE_CONV_2D",
              f"{_F32}, 2-D, constant weight and bias, padding < kernel; dilation, groups not in {{1, Cin}} "
              "and transposed need API 29"),
    OpSupport(aten.linear.default, L27, "FULLY_CONNECTED", f"{_F32}, input rank 2-4, static in-features", keep=True),
    OpSupport(aten.addmm.default, L27, "FULLY_CONNECTED", f"{_F32}, beta = alpha = 1, bias per output"),
    OpSupport(aten.mm.default, L27, "FULLY_CONNECTED", f"{_F32}, static reduced dim"),
    OpSupport(aten.relu.default, L27, "RELU or fused activation", f"{_F32}, rank <= 4"),
    OpSupport(aten.hardtanh.default, L27, "RELU6 / RELU1 / fused; MAXIMUM+MINIMUM (API 29)",
              f"{_F32}; bounds other than (0, 6) and (-1, 1) need API 29"),
    OpSupport(aten.clamp.default, L27, "RELU / RELU6 / RELU1 / fused; MAXIMUM / MINIMUM (API 29)",
              f"{_F32}, scalar bounds; bounds other than (0, inf), (0, 6), (-1, 1) need API 29"),
    OpSupport(aten.add.Tensor, L27, "ADD", f"{_F32}, rank <= 4, broadcasting, scalar operand, alpha"),
    OpSupport(aten.sub.Tensor, L28, "SUB", f"{_F32}, rank <= 4, broadcasting, scalar operand, alpha"),
    OpSupport(aten.mul.Tensor, L27, "MUL", f"{_F32}, rank <= 4, broadcasting, scalar operand"),
    OpSupport(aten.reciprocal.default, L28, "DIV", f"{_F32}, rank <= 4 (c / x becomes c * reciprocal(x))"),
    OpSupport(aten.div.Tensor, L28, "DIV", f"{_F32}, rank <= 4, broadcasting, scalar operand"),
    OpSupport(aten.add.Scalar, L27, "ADD", f"{_F32}, rank <= 4, number operand, alpha"),
    OpSupport(aten.sub.Scalar, L27, "ADD (of the negated number)", f"{_F32}, rank <= 4, number operand, alpha"),
    OpSupport(aten.mul.Scalar, L27, "MUL", f"{_F32}, rank <= 4, number operand"),
    OpSupport(aten.div.Scalar, L28, "DIV", f"{_F32}, rank <= 4, number operand"),
    OpSupport(aten.native_layer_norm.default, L29, "MEAN, SUB, MUL, MEAN, ADD, RSQRT, MUL (+ MUL, ADD affine)",
              f"{_F32}, rank <= 4, trailing normalized dims, constant weight/bias, only output 0 used"),
    OpSupport(aten.mean.dim, L27, "MEAN (API 28); AVERAGE_POOL_2D at API 27",
              f"{_F32}, rank <= 4; at API 27 only over H and W of a 4-D input with static H, W"),
    OpSupport(aten.view_copy.default, L27, "RESHAPE; for a channel shuffle CHANNEL_SHUFFLE (API 29) or RESHAPE + TRANSPOSE (API 28)",
              f"{_F32}, rank <= 4; rank 5 only in view -> permute -> [clone] -> view channel shuffles, "
              "rank > 4 in view chains that reduce to rank 4 (API 28)"),
    OpSupport(aten._native_batch_norm_legit_no_training.default, L27, "folded into conv/linear, else MUL + ADD",
              f"{_F32}, constant statistics, only the normalized output used"),
    # --- activations and elementwise math ---
    OpSupport(aten.sigmoid.default, L27, "LOGISTIC", f"{_F32}, rank 1-4 (silu decomposes to sigmoid + mul)"),
    OpSupport(aten.tanh.default, L27, "TANH", f"{_F32}, rank 1-4"),
    OpSupport(aten.hardswish.default, L27, "HARD_SWISH (API 30); ADD + MUL below",
              f"{_F32}; rank 1-4 below API 30", keep=True),
    OpSupport(aten.hardsigmoid.default, L27, "ADD (fused RELU6) + MUL", f"{_F32}, rank 1-4", keep=True),
    OpSupport(aten.gelu.default, L27, "MUL / ADD / TANH", f"{_F32}, approximate='tanh' only, rank 1-4"),
    OpSupport(aten.elu.default, L29, "ELU (API 30); MINIMUM / EXP / RELU / ADD / MUL at API 29",
              f"{_F32}, scale = input_scale = 1; rank 1-4 below API 30"),
    OpSupport(aten.leaky_relu.default, L29, "PRELU", f"{_F32}, constant [1] alpha"),
    OpSupport(aten.prelu.default, L29, "PRELU", f"{_F32}, constant weight of 1 or C elements", keep=True),
    OpSupport(aten.abs.default, L29, "ABS", _F32),
    OpSupport(aten.neg.default, L29, "NEG", _F32),
    OpSupport(aten.exp.default, L29, "EXP", _F32),
    OpSupport(aten.sqrt.default, L29, "SQRT", _F32),
    OpSupport(aten.rsqrt.default, L29, "RSQRT", _F32),
    OpSupport(aten.pow.Tensor_Scalar, L27, "MUL (exponent 2); SQRT / POW (API 29)",
              f"{_F32}, scalar exponent; exponents other than 2 need API 29"),
    OpSupport(aten.maximum.default, L29, "MAXIMUM", f"{_F32}, broadcasting"),
    OpSupport(aten.minimum.default, L29, "MINIMUM", f"{_F32}, broadcasting"),
    OpSupport(aten._softmax.default, L27, "SOFTMAX",
              f"{_F32}, rank 1-4, half_to_float=False; rank 1/3 need API 29; at API 27 the last dim only"),
    OpSupport(aten._log_softmax.default, L29, "LOG_SOFTMAX", f"{_F32}, half_to_float=False"),
    # --- pooling, reductions, shape and data movement, resize ---
    OpSupport(aten.max_pool2d_with_indices.default, L27, "MAX_POOL_2D",
              f"{_F32}, 4-D, indices unused, no dilation; ceil_mode as extra tail padding < kernel"),
    OpSupport(aten.avg_pool2d.default, L27, "AVERAGE_POOL_2D; PAD first for count_include_pad (API 28)",
              f"{_F32}, 4-D, no divisor_override; ceil_mode as extra tail padding < kernel"),
    OpSupport(aten._adaptive_avg_pool2d.default, L27, "MEAN (1x1, API 28) / AVERAGE_POOL_2D",
              f"{_F32}, 4-D, output 1x1 or dividing the static input size"),
    OpSupport(aten.sum.dim_IntList, L29, "REDUCE_SUM", f"{_F32}, rank <= 4"),
    OpSupport(aten.amax.default, L29, "REDUCE_MAX", f"{_F32}, rank <= 4"),
    OpSupport(aten.cat.default, L27, "CONCATENATION", f"{_F32}, rank <= 4, equal ranks, no empty inputs"),
    OpSupport(aten.expand_copy.default, L27, "nothing / RESHAPE / TILE (API 29); ADD of -0.0 below",
              f"{_F32}, output rank <= 4; dynamic expanded dims need API 29"),
    OpSupport(aten.as_strided_copy.default, L27, "RESHAPE",
              f"{_F32}, rank <= 4, contiguous input, contiguous strides, offset 0 (a pure re-view)"),
    OpSupport(aten.index_select.default, L29, "GATHER", f"{_F32}, rank <= 4, indices known at lowering time"),
    OpSupport(aten.permute_copy.default, L28, "(relabels the dim order; TRANSPOSE where needed)",
              f"{_F32}, rank <= 4; rank 5 only inside a channel shuffle (API 29) or a view chain that reduces "
              "to rank 4"),
    OpSupport(dim_order_ops._clone_dim_order.default, L27, "(no operation: alias of the input)",
              f"{_F32}, rank <= 4 (5 inside a channel shuffle), contiguous dim_order"),
    OpSupport(dim_order_ops._to_dim_order_copy.default, L27, "(no operation: alias of the input)",
              f"{_F32}, rank <= 4, same dtype, contiguous dim_order"),
    OpSupport(aten.clone.default, L27, "(no operation: alias of the input)",
              f"{_F32}, rank <= 4 (5 inside a channel shuffle), contiguous memory format"),
    OpSupport(aten.alias_copy.default, L27, "(no operation: alias of the input)", f"{_F32}, rank <= 4"),
    OpSupport(aten.squeeze_copy.dims, L27, "RESHAPE (or relabel)", f"{_F32}, rank <= 4, static squeezed dims"),
    OpSupport(aten.squeeze_copy.dim, L27, "RESHAPE (or relabel)", f"{_F32}, rank <= 4, static squeezed dim"),
    OpSupport(aten.squeeze_copy.default, L27, "RESHAPE (or relabel)", f"{_F32}, rank <= 4"),
    OpSupport(aten.unsqueeze_copy.default, L27, "RESHAPE", f"{_F32}, output rank <= 4"),
    OpSupport(aten.slice_copy.Tensor, L27, "STRIDED_SLICE (API 28); whole-dim slice is a relabel",
              f"{_F32}, rank <= 4, constant bounds, non-empty"),
    OpSupport(aten.select_copy.int, L28, "STRIDED_SLICE (shrink_axis_mask)", f"{_F32}, rank <= 4, constant index"),
    OpSupport(aten.split_with_sizes_copy.default, L28, "STRIDED_SLICE per used output",
              f"{_F32}, rank <= 4, no empty piece"),
    OpSupport(aten.split_copy.Tensor, L28, "STRIDED_SLICE per used output", f"{_F32}, rank <= 4, no empty piece"),
    OpSupport(aten.constant_pad_nd.default, L28, "PAD (value 0) / PAD_V2 (other values, API 29)",
              f"{_F32}, rank <= 4, constant non-negative pads"),
    OpSupport(aten.upsample_nearest2d.vec, L29, "RESIZE_NEAREST_NEIGHBOR",
              f"{_F32}, 4-D; scale_factor only where 1/scale equals in/out"),
    OpSupport(aten.upsample_bilinear2d.vec, L30, "RESIZE_BILINEAR (half_pixel_centers / align_corners)",
              f"{_F32}, 4-D; scale_factor only where 1/scale equals in/out"),
    OpSupport(aten.bmm.default, L29, "MUL + REDUCE_SUM (BATCH_MATMUL from feature level 6)",
              f"{_F32}, B*M*K*N <= 2^24 before feature level 6"),
    # --- comparisons, bool masks, where (bool tensors stay in PyTorch's dim order) ---
    *(OpSupport(op, L29, code, f"{_CMP}, broadcasting; numbers and constants converted") for op, code in (
        (aten.eq.Tensor, "EQUAL"), (aten.ne.Tensor, "NOT_EQUAL"), (aten.gt.Tensor, "GREATER"),
        (aten.ge.Tensor, "GREATER_EQUAL"), (aten.lt.Tensor, "LESS"), (aten.le.Tensor, "LESS_EQUAL"),
        (aten.eq.Scalar, "EQUAL"), (aten.ne.Scalar, "NOT_EQUAL"), (aten.gt.Scalar, "GREATER"),
        (aten.ge.Scalar, "GREATER_EQUAL"), (aten.lt.Scalar, "LESS"), (aten.le.Scalar, "LESS_EQUAL"))),
    *(OpSupport(op, L29, code, f"{_LOGICAL}, broadcasting") for op, code in (
        (aten.logical_and.default, "LOGICAL_AND"), (aten.logical_or.default, "LOGICAL_OR"),
        (aten.logical_xor.default, "NOT_EQUAL"))),
    OpSupport(aten.logical_not.default, L29, "LOGICAL_NOT", _LOGICAL),
    *(OpSupport(op, L29, code, "bool tensors, broadcasting") for op, code in (
        (aten.bitwise_and.Tensor, "LOGICAL_AND"), (aten.bitwise_or.Tensor, "LOGICAL_OR"),
        (aten.bitwise_xor.Tensor, "NOT_EQUAL"))),
    OpSupport(aten.bitwise_not.default, L29, "LOGICAL_NOT", "bool tensors"),
    *(OpSupport(op, L29, "REDUCE_ANY", f"{_LOGICAL}, input rank 1-4, non-empty dims") for op in (
        aten.any.dim, aten.any.dims, aten.any.default)),
    OpSupport(aten.where.self, L29, "SELECT (+ EXPAND_DIMS / TILE / LOGICAL_OR to broadcast); in a masked "
              "softmax: REDUCE_MAX, MAXIMUM, SUB, EXP, REDUCE_SUM, MAXIMUM, DIV",
              "bool condition; float32 or int32 values (constants converted); broadcasting"),
    OpSupport(aten.full_like.default, L29, "(part of a masked softmax)", "only the zeros of a masked softmax"),
    OpSupport(operator.getitem, L27, "(output selection)", "output 0 of batch norm / layer norm / "
              "max_pool2d_with_indices; any output of split"),
)


def table_by_op() -> dict[Any, OpSupport]:
    return {row.op: row for row in SUPPORT_TABLE}


# Why an op is absent from the table, for ops users commonly hit.
NO_NNAPI_EQUIVALENT: dict[str, str] = {
    "aten.cumsum.default": "NNAPI has no cumulative-sum operation",
    "aten.erf.default": "NNAPI has no erf operation",
    "aten.embedding.default": "int64 indices (NNAPI has no 64-bit integers)",
    "aten.argmax.default": "int64 output (NNAPI's ARGMAX returns int32)",
    "aten.sym_size.int": "shape arithmetic stays on the CPU (the delegate recomputes sizes itself)",
}
