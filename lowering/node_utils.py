"""Small helpers over FX nodes of an edge-dialect program."""

from __future__ import annotations

import dataclasses
import operator
from typing import Any

import torch
from torch.fx import Node

import executorch.exir.passes.dim_order_ops_registry  # noqa: F401  (registers torch.ops.dim_order_ops)
from executorch.exir.dialects.edge._ops import EdgeOpOverload

from .nnapi_codes import FuseCode
from .shape_program import Dim, as_dim

aten = torch.ops.aten
dim_order_ops = torch.ops.dim_order_ops


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


# ------------------------------------------------- predicates builders and patterns share
NOOP_COPY_OPS = (
    dim_order_ops._clone_dim_order.default,
    dim_order_ops._to_dim_order_copy.default,
    aten.clone.default,
    aten.alias_copy.default,  # what to_edge makes of an alias (e.g. swin_t's last stage)
)


def noop_copy_refusal(node: Node) -> str | None:
    """None if ``node`` is a copy that changes no value (only, at most, the memory
    layout: contiguous, channels-last or another dim order), else why it changes one.

    Inside a partition values have no strides (their physical order is tracked
    separately), so such a copy is an alias of its input; where the result leaves
    the partition, the runtime writes it in the dim order of the ExecuTorch tensor.
    """
    op = aten_op(node)
    if op not in NOOP_COPY_OPS or not node.args or not isinstance(node.args[0], Node):
        return "not a copy of a tensor"
    x = node.args[0]
    if op == dim_order_ops._to_dim_order_copy.default:
        dtype = node.kwargs.get("dtype")
        if dtype is not None and dtype != tensor_dtype(x):
            return f"dtype conversion {_dtype_name(tensor_dtype(x))} -> {_dtype_name(dtype)} (the float path delegates float32 only)"
    return None


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def clamp_fuse_code(node: Node) -> FuseCode | None:
    """The NNAPI fused activation equal to ``node`` if it is relu, relu6 or a clamp to
    (0, inf), (0, 6) or (-1, 1); else None."""
    op = aten_op(node)
    if op == aten.relu.default:
        return FuseCode.RELU
    bounds = None
    if op == aten.hardtanh.default:
        bounds = (node.args[1] if len(node.args) > 1 else -1.0, node.args[2] if len(node.args) > 2 else 1.0)
    elif op == aten.clamp.default:
        bounds = (node.args[1] if len(node.args) > 1 else None, node.args[2] if len(node.args) > 2 else None)
    if bounds is None:
        return None
    lo, hi = bounds
    if lo == 0 and hi == 6:
        return FuseCode.RELU6
    if lo == -1 and hi == 1:
        return FuseCode.RELU1
    if lo == 0 and hi is None:
        return FuseCode.RELU
    return None


def batch_norm_output(bn: Node) -> Node | None:
    """The getitem(bn, 0) user, if it is the only one that reads the batch norm."""
    users = list(bn.users)
    if len(users) == 1 and users[0].target is operator.getitem and users[0].args[1] == 0:
        return users[0]
    return None


# ------------------------------------------------------------ quantization
QUANTIZE_OPS = ("quantized_decomposed.quantize_per_tensor.default",)
DEQUANTIZE_OPS = ("quantized_decomposed.dequantize_per_tensor.default",
                  "quantized_decomposed.dequantize_per_channel.default")


def is_quantize(node: Any) -> bool:
    """Whether ``node`` is convert_pt2e's per-tensor quantize (float -> 8-bit codes)."""
    return isinstance(node, Node) and node.op == "call_function" and str(aten_op(node)) in QUANTIZE_OPS


def is_dequantize(node: Any) -> bool:
    """Whether ``node`` is convert_pt2e's per-tensor or per-channel dequantize."""
    return isinstance(node, Node) and node.op == "call_function" and str(aten_op(node)) in DEQUANTIZE_OPS


def is_per_channel(node: Node) -> bool:
    return str(aten_op(node)) == DEQUANTIZE_OPS[1]


@dataclasses.dataclass(frozen=True)
class QuantParams:
    """Per-tensor parameters of a quantize / dequantize node: real = (q - zero_point) * scale."""

    scale: float
    zero_point: int
    quant_min: int
    quant_max: int
    dtype: torch.dtype


def quant_params(node: Node) -> QuantParams:
    """The parameters of a per-tensor ``quantize`` / ``dequantize`` node (literal arguments)."""
    _, scale, zero_point, quant_min, quant_max, dtype = node.args[:6]
    return QuantParams(float(scale), int(zero_point), int(quant_min), int(quant_max), dtype)
