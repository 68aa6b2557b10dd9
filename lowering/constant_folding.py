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

# Largest folded result; bigger ones would bloat the .pte.
MAX_FOLDED_ELEMENTS = 1 << 24
_FOLDABLE_DTYPES = (torch.float32, torch.float16, torch.int32, torch.int64, torch.bool)


def is_foldable(node: Node, is_constant: Callable[[Node], bool], _memo: dict | None = None) -> bool:
    """True if ``node`` depends only on constants and yields a small tensor."""
    memo = _memo if _memo is not None else {}
    if node in memo:
        return memo[node]
    memo[node] = False
    if node.op != "call_function":
        return False
    op = aten_op(node)
    if isinstance(op, torch._ops.OpOverload) and torch.Tag.nondeterministic_seeded in op.tags:
        return False
    val = fake_value(node)
    values = val if isinstance(val, (tuple, list)) else [val]
    for v in values:
        if not isinstance(v, torch.Tensor) or v.dtype not in _FOLDABLE_DTYPES:
            return False
        if not all(isinstance(d, int) for d in v.shape) or v.numel() > MAX_FOLDED_ELEMENTS:
            return False
    inputs = node.all_input_nodes
    ok = all(is_constant(i) or is_foldable(i, is_constant, memo) for i in inputs)
    memo[node] = ok
    return ok


def evaluate(node: Node, constant_of: Callable[[Node], Any]) -> Any:
    """Runs ``node``'s op eagerly on the constant values of its inputs."""
    args = map_arg(node.args, constant_of)
    kwargs = map_arg(node.kwargs, constant_of)
    with torch.no_grad():
        return node.target(*args, **kwargs)
