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

from executorch_nnapi.lowering.nnapi_codes import FeatureLevel

aten = torch.ops.aten
L27, L28, L29, L30 = (FeatureLevel.ANDROID_8_1, FeatureLevel.ANDROID_9, FeatureLevel.ANDROID_10,
                      FeatureLevel.ANDROID_11)

_F32 = "float32"


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
    OpSupport(aten.div.Tensor, L28, "DIV", f"{_F32}, rank <= 4, broadcasting, scalar operand"),
    OpSupport(aten.mean.dim, L28, "MEAN", f"{_F32}, rank <= 4"),
    OpSupport(aten.view_copy.default, L27, "RESHAPE", f"{_F32}, rank <= 4"),
    OpSupport(aten._native_batch_norm_legit_no_training.default, L27, "folded into conv/linear, else MUL + ADD",
              f"{_F32}, constant statistics, only the normalized output used"),
    # --- activations and elementwise math ---
    # --- pooling, reductions, shape and data movement, resize ---
    OpSupport(operator.getitem, L27, "(output selection)", "output 0 of batch norm / max_pool2d_with_indices; "
              "any output of split"),
)


def table_by_op() -> dict[Any, OpSupport]:
    return {row.op: row for row in SUPPORT_TABLE}


# Why an op is absent from the table, for ops users commonly hit.
NO_NNAPI_EQUIVALENT: dict[str, str] = {
    "aten.cumsum.default": "NNAPI has no cumulative-sum operation",
    "aten.erf.default": "NNAPI has no erf operation",
    "aten.native_layer_norm.default": "NNAPI has no layer-norm operation",
    "aten.embedding.default": "int64 indices (NNAPI has no 64-bit integers)",
    "aten.argmax.default": "int64 output (NNAPI's ARGMAX returns int32)",
    "aten.where.self": "boolean condition tensors are not delegated on the float path",
    "aten.sym_size.int": "shape arithmetic stays on the CPU (the delegate recomputes sizes itself)",
}
