"""aten.index_put (accumulate=False) in its SCATTER-free forms -> SELECT (API 29).

* ``x[mask] = v`` with a bool mask of x's shape and one value (0-d or one element):
  SELECT(mask, v broadcast, x).
* ``x[..., idx, ...] = v`` with indices known at lowering time on one dim (the others
  ``None``/full slices) and a value that is the same for every index (its size on that
  dim is 1): SELECT(constant mask of the indexed positions, v broadcast, x).

Other forms write per-position values to data-dependent or per-index places (values
matched in order to a mask's True elements, several index tensors, accumulate=True with
repeated indices): that is a scatter, and NNAPI has no SCATTER at any feature level.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import is_static
from .bool_values import HELD_IN_INT32, emit_result, operand
from .common import MAX_RANK, check_rank
from .integer_ranges import check_int64_result
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .where import broadcast_value

aten = torch.ops.aten

NO_SCATTER = "NNAPI has no SCATTER at any feature level"


def _indexed(node: Node) -> list[tuple[int, Node]]:
    """(dim, index tensor) of every non-None entry of index_put's indices."""
    return [(d, i) for d, i in enumerate(node.args[1]) if i is not None]


@register_builder
class IndexPutBuilder(NodeBuilder):
    ops = (
        OpSupport(aten.index_put.default, FeatureLevel.ANDROID_10, "SELECT (+ EXPAND_DIMS / TILE to broadcast)",
                  "float32 / int32 / int64 (held in int32), rank <= 4, accumulate=False; a bool mask of the input's shape with one value, "
                  "or constant indices on one dim with a value the same for every index; other forms need "
                  "SCATTER (absent from NNAPI)"),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        x, _, values = node.args[:3]
        if len(node.args) > 3 and node.args[3]:
            raise Refused(f"index_put with accumulate=True (adds at possibly repeated indices: {NO_SCATTER})")
        if tensor_dtype(x) not in (torch.float32, *HELD_IN_INT32) or tensor_dtype(values) != tensor_dtype(x):
            raise Refused(f"index_put of {tensor_dtype(values)} values into {tensor_dtype(x)} (float32, int32 or "
                          "int64 held in int32, one dtype)".replace("torch.", ""))
        check_int64_result(node, ctx)
        check_rank(x, MAX_RANK, what="input")
        indexed = _indexed(node)
        if len(indexed) != 1:
            raise Refused(f"index_put with {len(indexed)} index tensors (positions combined across dims: "
                          f"{NO_SCATTER})")
        dim, index = indexed[0]
        shape = tensor_shape(x)
        if tensor_dtype(index) == torch.bool:
            self._check_mask(index, values, shape, dim)
        else:
            self._check_constant_index(ctx, index, values, shape, dim)

    @staticmethod
    def _check_mask(mask: Node, values: Node, shape: list, dim: int) -> None:
        if dim != 0 or tensor_shape(mask) != shape:
            raise Refused("index_put with a bool mask of another shape than the input (SELECT needs the "
                          f"input's shape; a partial mask selects slices: {NO_SCATTER})")
        if not all(is_static(s) and int(s) == 1 for s in tensor_shape(values)):
            raise Refused("index_put with a mask and several values (matched in order to the True positions, "
                          f"a data-dependent scatter: {NO_SCATTER})")

    @staticmethod
    def _check_constant_index(ctx: CheckContext, index: Node, values: Node, shape: list, dim: int) -> None:
        if not ctx.is_foldable(index):
            raise Refused(f"index_put with indices computed at run time ({NO_SCATTER})")
        if len(tensor_shape(index)) != 1 or not all(is_static(s) for s in shape):
            raise Refused("index_put with constant indices that are not one 1-D tensor on a static shape")
        value = ctx.folded_value(index)  # None while constants are fake: define checks them
        size = int(shape[dim])
        if value is not None and (value.numel() == 0 or int(value.min()) < -size or int(value.max()) >= size):
            raise Refused(f"index_put with indices outside [-{size}, {size}) or empty (eager fails too)")
        v_shape = list(tensor_shape(values))
        at = len(v_shape) - (len(shape) - dim)  # the values' dim aligned with the indexed one
        if 0 <= at < len(v_shape) and int(v_shape[at]) != 1:
            raise Refused(f"index_put with a value per index (each written at its own index: {NO_SCATTER})")

    def define(self, node: Node, lc: LoweringContext) -> None:
        x, _, values = node.args[:3]
        g = lc.graph
        dtype = lc.dtype(x)
        out_shape = lc.shape(node)
        dim, index = _indexed(node)[0]
        if lc.dtype(index) == torch.bool:
            mask = operand(lc, index, torch.bool)
        else:
            positions = torch.zeros([int(s) for s in out_shape], dtype=torch.bool)
            size = int(out_shape[dim])
            chosen = lc.constant(index).to(torch.int64)
            if chosen.numel() == 0 or int(chosen.min()) < -size or int(chosen.max()) >= size:
                raise LoweringError(f"{node.name}: index_put indices outside [-{size}, {size}) (eager fails too)")
            chosen = chosen % size
            positions.index_fill_(normalize_dim(dim, len(out_shape)), chosen, True)
            mask = g.emit_constant_tensor(positions, debug_name=f"{node.name}.positions")
        written = broadcast_value(lc, node, values, dtype, out_shape)
        g.emit_operation(OperationCode.SELECT, [mask, written, operand(lc, x, dtype)], [emit_result(lc, node)],
                         debug_name=node.name)
