"""Helpers of the builders that produce or read bool tensors (comparison.py, logical.py, where.py,
any.py, and the bool forms of clone_dim_order.py and unsqueeze.py).

NNAPI's TRANSPOSE, RESHAPE and TILE take no TENSOR_BOOL8, so a bool value cannot change its dim
order once produced. Bool values are therefore always produced in PyTorch's dim order, and every
operation reading one works in that order; its other (float or int32) inputs are transposed to it
where they were produced otherwise (e.g. NHWC after a convolution). No CAST takes BOOL8 either:
a bool becomes float32 by SELECT between constant ones and zeros, and a bool is reshaped as that
float value, reshaped, compared with 0.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Iterable

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import fake_value, is_tensor_node, tensor_shape
from ..shape_program import Dim, is_static
from .common import MAX_RANK, check_rank
from .node_builder import CheckContext, Refused

# Tensor dtypes the bool operations compute in (their NNAPI tensor types exist from API 29).
COMPUTE_DTYPES = (torch.float32, torch.int32, torch.bool)
# The dtypes NNAPI holds in TENSOR_INT32 (int64 narrowed: builders/integer_ranges.py).
HELD_IN_INT32 = (torch.int32, torch.int64)
_INT32 = torch.iinfo(torch.int32)


def keeps_integer_dtype(node: Node) -> bool:
    """Whether ``node`` reads an int32 / int64 tensor (its first argument) and gives the same dtype."""
    x = node.args[0] if node.args else None
    return is_tensor_node(x) and fake_value(x).dtype in HELD_IN_INT32 and fake_value(node).dtype == fake_value(x).dtype


def dtype_name(dtype: torch.dtype | None) -> str:
    return str(dtype).replace("torch.", "") if dtype is not None else "non-tensor"


def shape_of(x: Any) -> list[Dim]:
    """Logical shape of a tensor node; [] for a Python number."""
    return tensor_shape(x) if isinstance(x, Node) else []


def result_dtype(args: Iterable[Any]) -> torch.dtype:
    """The dtype PyTorch computes an element-wise op of ``args`` in (its type promotion)."""
    values = [fake_value(a) if isinstance(a, Node) else a for a in args]
    dtype = values[0] if len(values) == 1 else torch.result_type(*values)
    return dtype.dtype if isinstance(dtype, torch.Tensor) else dtype


def check_inputs(ctx: CheckContext, args: Iterable[Any], dtype: torch.dtype, allowed=COMPUTE_DTYPES) -> None:
    """Refuses unless ``dtype`` is allowed and every input computed at run time already has it.

    Constants and Python numbers are converted at lowering time (as PyTorch converts them),
    so only they may have another dtype.
    """
    if dtype not in allowed:
        names = ", ".join(dtype_name(d) for d in allowed)
        raise Refused(f"computes in {dtype_name(dtype)} (NNAPI takes {names} here)")
    for a in args:
        if isinstance(a, Number):
            if dtype in HELD_IN_INT32 and not _INT32.min <= a <= _INT32.max:
                raise Refused(f"number {a} does not fit int32")
            continue
        if not is_tensor_node(a):
            raise Refused(f"input of type {type(a).__name__}")
        if ctx.is_foldable(a):
            value = ctx.folded_value(a) if dtype in HELD_IN_INT32 else None
            if value is not None and value.numel() and not value.is_floating_point() \
                    and not _INT32.min <= int(value.min()) <= int(value.max()) <= _INT32.max:
                raise Refused(f"constant {a.name} does not fit int32")
            continue
        # int32 and int64 values are both TENSOR_INT32 operands: no conversion between them.
        same_operand_type = dtype in HELD_IN_INT32 and fake_value(a).dtype in HELD_IN_INT32
        if fake_value(a).dtype != dtype and not same_operand_type:
            raise Refused(f"{dtype_name(fake_value(a).dtype)} input {a.name} of an op computing in "
                          f"{dtype_name(dtype)} (NNAPI has no implicit conversion)")


def operand(lc: LoweringContext, x: Any, dtype: torch.dtype) -> int:
    """``x`` (a tensor node, constant or Python number) as an operand of ``dtype`` in PyTorch's dim order.

    A 0-d value is stored as [1]; NNAPI broadcasting aligns trailing dims as PyTorch does.
    """
    if not isinstance(x, Node):
        return lc.graph.emit_constant_tensor(torch.tensor([x], dtype=dtype))
    if lc.is_constant(x) and lc.constant(x).dtype != dtype:
        return lc.graph.emit_constant_tensor(lc.constant(x).to(dtype))
    rank = len(tensor_shape(x))
    # A 0-d value has one element in whatever order it was produced.
    return lc.operand(x, identity(rank) if rank else lc.order(x))


def as_bool(lc: LoweringContext, node: Node, x: Any, dtype: torch.dtype) -> int:
    """``x`` as a bool operand: a float or int32 value becomes ``x != 0`` (PyTorch's truth value)."""
    op = operand(lc, x, dtype)
    if dtype == torch.bool:
        return op
    g = lc.graph
    out = g.emit_tensor(shape_of(x) or [1], torch.bool, debug_name=f"{node.name}.as_bool")
    zero = g.emit_constant_tensor(torch.zeros(1, dtype=dtype))
    g.emit_operation(OperationCode.NOT_EQUAL, [op, zero], [out], debug_name=node.name)
    return out


def emit_result(lc: LoweringContext, node: Node) -> int:
    """The operand of ``node``'s result, in PyTorch's dim order (a 0-d result is stored as [1])."""
    shape = lc.shape(node)
    return lc.emit_output(node, identity(max(len(shape), 1)), shape=shape or [1])


def as_float(lc: LoweringContext, node: Node, cond: int, shape: list[Dim], out: int | None = None,
             dtype: torch.dtype = torch.float32) -> int:
    """Bool operand ``cond`` (static ``shape``, PyTorch's order) as 1 / 0 of ``dtype`` (float32, or
    int32 / int64 held in TENSOR_INT32; into ``out`` when given): SELECT (API 29) between constants
    of its shape (SELECT does not broadcast)."""
    g = lc.graph
    dims = [int(d) for d in shape] or [1]
    if out is None:
        out = g.emit_tensor(dims, dtype, debug_name=f"{node.name}.as_float")
    g.emit_operation(OperationCode.SELECT, [cond, g.emit_constant_tensor(torch.ones(dims, dtype=dtype)),
                                            g.emit_constant_tensor(torch.zeros(dims, dtype=dtype))], [out],
                     debug_name=node.name)
    return out


def emit_bool_reshape(lc: LoweringContext, node: Node, x: Node) -> None:
    """``node``'s bool result as bool ``x`` reshaped to its shape (RESHAPE takes no BOOL8): as
    float32, RESHAPEd, then NOT_EQUAL 0."""
    g = lc.graph
    shape = [int(d) for d in lc.shape(node)] or [1]
    as_floats = as_float(lc, node, operand(lc, x, torch.bool), shape_of(x))
    reshaped = g.emit_tensor(shape, torch.float32, debug_name=f"{node.name}.reshaped")
    g.emit_operation(OperationCode.RESHAPE, [as_floats, g.emit_int32_vector(shape)], [reshaped], debug_name=node.name)
    g.emit_operation(OperationCode.NOT_EQUAL, [reshaped, g.emit_constant_tensor(torch.zeros(1))], [emit_result(lc, node)],
                     debug_name=node.name)


def emit_bool_gather(lc: LoweringContext, node: Node, x: Node, dim: int, index_op: int) -> None:
    """``node``'s bool result as GATHER of bool ``x`` along ``dim`` (PyTorch's order) by ``index_op``
    (GATHER takes no BOOL8): as float32 1 / 0, gathered, then NOT_EQUAL 0."""
    g = lc.graph
    values = as_float(lc, node, operand(lc, x, torch.bool), shape_of(x))
    gathered = g.emit_tensor([int(d) for d in lc.shape(node)] or [1], torch.float32, debug_name=f"{node.name}.gathered")
    g.emit_operation(OperationCode.GATHER, [values, g.emit_int32(dim), index_op], [gathered], debug_name=node.name)
    g.emit_operation(OperationCode.NOT_EQUAL, [gathered, g.emit_constant_tensor(torch.zeros(1))],
                     [emit_result(lc, node)], debug_name=node.name)


def check_bool_conversion(node: Node, ctx: CheckContext, what: str) -> None:
    """Refuses a bool form (``what``) NNAPI cannot run: it needs SELECT (API 29) and static sizes,
    rank <= 4."""
    ctx.require(FeatureLevel.ANDROID_10, f"{what} (SELECT)")
    for x in (node, node.args[0]):
        shape = tensor_shape(x)
        if not all(is_static(d) for d in shape):
            raise Refused(f"{what} of dynamic size {list(shape)} (its constants need static sizes)")
        check_rank(x, MAX_RANK, min_rank=0, what=what)

