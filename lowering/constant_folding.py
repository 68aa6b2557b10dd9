"""Nodes computable at lowering time (all inputs are parameters, buffers or
other such nodes): their value is stored as a constant operand and no NNAPI
operation is emitted for them (e.g. ``permute_copy`` of a linear weight, the
``_to_dim_order_copy`` of a lifted scalar)."""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch.fx import Node
from torch.fx.node import map_arg

from .node_utils import aten_op, fake_value

# Largest folded result; bigger ones would bloat the .pte (a view of a constant, below, is never bigger).
MAX_FOLDED_ELEMENTS = 1 << 24
# uint8 / int8: the codes of a quantize of a constant (convert_pt2e's q -> dq around a view of a
# buffer, swin's relative position bias). Left unfolded, the quantize would be an alias of a
# folded float value, and a DEQUANTIZE reading it a float operand NNAPI refuses at load time.
_FOLDABLE_DTYPES = (torch.float32, torch.float16, torch.int32, torch.int64, torch.bool, torch.uint8, torch.int8,
                    torch.float64)


aten = torch.ops.aten

# Edge ops that copy what a view would show: folded as the view, so that the folded value of a
# weight's permute (a linear's) shares the weight's memory instead of holding a second copy of it
# for the whole lowering (at Llama-3.2-1B's size, gigabytes).
_VIEW_OF = {
    aten.permute_copy.default: aten.permute.default, aten.t_copy.default: aten.t.default,
    aten.transpose_copy.int: aten.transpose.int, aten.view_copy.default: aten.reshape.default,
    aten.unsqueeze_copy.default: aten.unsqueeze.default, aten.squeeze_copy.dims: aten.squeeze.dims,
    aten.squeeze_copy.dim: aten.squeeze.dim, aten.squeeze_copy.default: aten.squeeze.default,
    aten.alias_copy.default: aten.alias.default, aten.slice_copy.Tensor: aten.slice.Tensor,
    aten.select_copy.int: aten.select.int,
}


# Ops whose result depends on their first input's shape and dtype only, never its values: with a
# static shape they fold whatever computes that input (transformers' token_type_ids =
# zeros_like(embeddings)[..., 0], the masks built from it).
_SHAPE_ONLY = {aten.full_like.default, aten.zeros_like.default, aten.ones_like.default, aten.new_full.default,
               aten.new_zeros.default, aten.new_ones.default}


def inputs_known(node: Node, known: Callable[[Node], bool]) -> bool:
    """Whether every input whose value ``node``'s result depends on is ``known`` (a shape-only op's
    first input is not read: only its static shape)."""
    shape_only = aten_op(node) in _SHAPE_ONLY and node.args and isinstance(node.args[0], Node)
    return all(known(i) or (shape_only and i is node.args[0] and _static(i)) for i in node.all_input_nodes)


def _static(node: Node) -> bool:
    val = fake_value(node)
    return isinstance(val, torch.Tensor) and all(isinstance(d, int) for d in val.shape)


def _foldable_op(node: Node) -> bool:
    """The node's own conditions: a deterministic op yielding small static tensors."""
    if node.op != "call_function" or isinstance(node.target, torch._ops.HigherOrderOperator):
        return False  # control flow runs its bodies on NNAPI (or the CPU), never at lowering time
    op = aten_op(node)
    if isinstance(op, torch._ops.OpOverload) and torch.Tag.nondeterministic_seeded in op.tags:
        return False
    val = fake_value(node)
    values = val if isinstance(val, (tuple, list)) else [val]
    for v in values:
        if not isinstance(v, torch.Tensor) or v.dtype not in _FOLDABLE_DTYPES:
            return False
        if not all(isinstance(d, int) for d in v.shape):
            return False
        if v.numel() > MAX_FOLDED_ELEMENTS and op not in _VIEW_OF:
            return False
    return True


def foldable_nodes(graph: torch.fx.Graph, is_constant: Callable[[Node], bool]) -> set[Node]:
    """Every node of ``graph`` that depends only on constants (passes in topological order, so
    deep graphs cost no recursion).

    A float64 value (NNAPI has no float64 operand) is folded only inside a constant computation:
    every user folded too, as in a sin / cos position table computed in float64 from ``arange`` and
    converted to float32 at its end. One read by anything else stays unfolded, and so does what
    depends on it."""
    unfolded: set[Node] = set()
    while True:
        foldable: set[Node] = set()
        for node in graph.nodes:
            if (node not in unfolded and _foldable_op(node)
                    and inputs_known(node, lambda i: is_constant(i) or i in foldable)):
                foldable.add(node)
        escaping = {n for n in foldable if _is_float64(n) and any(u not in foldable for u in n.users)}
        if not escaping:
            return foldable
        unfolded |= escaping


def _is_float64(node: Node) -> bool:
    val = fake_value(node)
    return any(isinstance(v, torch.Tensor) and v.dtype == torch.float64
               for v in (val if isinstance(val, (tuple, list)) else [val]))


def evaluate(node: Node, constant_of: Callable[[Node], Any]) -> Any:
    """Runs ``node``'s op eagerly on the constant values of its inputs (a copying view op as the
    view: constants are never written to; a shape-only op on zeros of its input's shape)."""
    if aten_op(node) in _SHAPE_ONLY and isinstance(node.args[0], Node):
        first = fake_value(node.args[0])
        args = (torch.zeros(tuple(first.shape), dtype=first.dtype), *map_arg(node.args[1:], constant_of))
    else:
        args = map_arg(node.args, constant_of)
    kwargs = map_arg(node.kwargs, constant_of)
    with torch.no_grad():
        return _VIEW_OF.get(aten_op(node), node.target)(*args, **kwargs)
