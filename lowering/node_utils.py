"""Small helpers over FX nodes of an edge-dialect program."""

from __future__ import annotations

import operator
from typing import Any

import torch
from torch.fx import Node

from executorch.exir.dialects.edge._ops import EdgeOpOverload

from .shape_program import Dim, as_dim


def unwrap_op(target: Any) -> Any:
    """The ATen OpOverload behind an edge-dialect op (other targets unchanged)."""
    return target._op if isinstance(target, EdgeOpOverload) else target


def aten_op(node: Node) -> Any:
    """The ATen OpOverload a node calls (edge ops unwrapped)."""
    return unwrap_op(node.target)


def op_name(target: Any) -> str:
    """``aten.convolution.default`` style name of an op or node target."""
    target = unwrap_op(target)
    if target is operator.getitem:
        return "getitem"
    if isinstance(target, torch._ops.OpOverload):
        return f"aten.{target.__name__}" if target.namespace == "aten" else str(target)
    return getattr(target, "__name__", str(target))


def fake_value(node: Node) -> Any:
    return node.meta.get("val")


def tensor_shape(node: Node) -> list[Dim]:
    """Logical (PyTorch) shape of ``node``'s tensor value; dims may be symbolic."""
    val = fake_value(node)
    if not isinstance(val, torch.Tensor):
        raise TypeError(f"{node.name} does not produce a tensor")
    return [as_dim(d) for d in val.shape]


def tensor_dtype(node: Node) -> torch.dtype | None:
    val = fake_value(node)
    return val.dtype if isinstance(val, torch.Tensor) else None


def is_tensor_node(node: Any) -> bool:
    return isinstance(node, Node) and isinstance(fake_value(node), torch.Tensor)


def normalize_dim(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


def source_location(node: Node) -> str:
    """Last frame of the node's stack trace (``file:line in function``), if recorded."""
    trace = node.meta.get("stack_trace") or ""
    lines = [line.strip() for line in trace.strip().splitlines() if line.strip().startswith("File ")]
    return lines[-1] if lines else ""
