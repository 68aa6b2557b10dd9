"""What a program needs for the nodes NNAPI leaves on the CPU: stops lowering at a refused node
ExecuTorch has no CPU kernel for, and makes the quantize / dequantize nodes of a quantized program
that stay on the CPU emittable.

``to_executorch()`` replaces every CPU node by its out variant, looked up in ``torch.ops``. ATen's
are always there; ``quantized_decomposed::quantize_per_tensor.out`` and the other quantize /
dequantize out variants exist only once ExecuTorch's export-time quantized library is loaded
(``import executorch.kernels.quantized``, which loads ``libquantized_ops_aot_lib``; the same load
also registers their runtime CPU kernels in this process). The partitioner loads it when a
quantized node stays on the CPU, so a user of the documented flow imports nothing else.
"""

from __future__ import annotations

import importlib.util
from typing import Iterable

from torch.fx import Node

from executorch_nnapi.lowering.node_utils import aten_op, op_name, source_location

__all__ = ["NoCpuKernelError", "load_quantized_out_variants", "stop_at_nodes_without_cpu_kernel"]

QUANTIZED_NAMESPACE = "quantized_decomposed"
_QUANTIZED_PACKAGE = "executorch.kernels.quantized"


class NoCpuKernelError(RuntimeError):
    """A node NNAPI leaves on the CPU that this ExecuTorch has no CPU kernel for (an op the
    portable kernels lack, or a quantize / dequantize without ExecuTorch's quantized kernels): the
    program could run nowhere, so lowering stops at it (one line: the node, its op and source line,
    and what to install or import)."""


def stop_at_nodes_without_cpu_kernel(support) -> None:
    """Raises :class:`NoCpuKernelError` for the first node ``support`` refused whose op declares
    ``cpu_kernel=False`` on its builder's row, or that is a library's op (e.g. ``torchvision.nms``)
    without an out variant."""
    for node, decision in support.decisions.items():
        row = support.table.get(aten_op(node))
        if decision.supported:
            continue
        if row is None:
            _stop_at_library_op_without_out_variant(node, decision)
            continue
        if row.cpu_kernel:
            continue
        where = source_location(node) or "no source line recorded"
        raise NoCpuKernelError(
            f"{node.name} ({decision.op}, {where}): NNAPI cannot take it ({decision.reason}) and ExecuTorch's "
            f"portable CPU kernels have no {decision.op}, so the program could not run; NNAPI takes: "
            f"{row.constraints}")


# Namespaces whose ops ExecuTorch emits with kernels of its own (the quantized ones are loaded
# on demand by load_quantized_out_variants).
_EXECUTORCH_NAMESPACES = {"aten", "dim_order_ops", "executorch_prim", QUANTIZED_NAMESPACE}


def _stop_at_library_op_without_out_variant(node: Node, decision) -> None:
    """A refused op of another library (torchvision::nms...) that to_executorch() could not emit."""
    namespace = getattr(node.target, "namespace", None)
    if namespace is None or namespace in _EXECUTORCH_NAMESPACES or not hasattr(node.target, "to_out_variant"):
        return
    try:
        node.target.to_out_variant()
    except RuntimeError:
        where = source_location(node) or "no source line recorded"
        raise NoCpuKernelError(
            f"{node.name} ({decision.op}, {where}): NNAPI cannot take it ({decision.reason}) and this ExecuTorch "
            f"has no CPU kernel (out variant) of {decision.op}, so the program could not run") from None


def _is_quantized_op(node: Node) -> bool:
    return node.op == "call_function" and getattr(node.target, "namespace", None) == QUANTIZED_NAMESPACE


def _where(node: Node) -> str:
    """The node's source line, else that of the op it quantizes for or dequantizes for
    (convert_pt2e's quantize / dequantize nodes carry none of their own)."""
    own = source_location(node)
    if own:
        return own
    for other in [*node.users, *node.all_input_nodes]:
        if other.op == "call_function" and source_location(other):
            return f"next to {op_name(other.target)} at {source_location(other)}"
    return "no source line recorded"


def load_quantized_out_variants(cpu_nodes: Iterable[Node]) -> None:
    """Makes the out variant of every quantize / dequantize node in ``cpu_nodes`` (the nodes left
    on the CPU) known to ``to_executorch()``, loading ExecuTorch's quantized library if one is there.

    Raises:
        NoCpuKernelError: this ExecuTorch install has no out variant for one of them (says which
            node and what to install).
    """
    quantized = [n for n in cpu_nodes if _is_quantized_op(n)]
    if not quantized:
        return
    if importlib.util.find_spec(_QUANTIZED_PACKAGE) is not None:
        # ExecuTorch's loader of libquantized_ops_aot_lib; it logs rather than raises on failure,
        # so each out variant is checked below.
        importlib.import_module(_QUANTIZED_PACKAGE)
    for node in quantized:
        try:
            node.target.to_out_variant()
        except RuntimeError:
            raise NoCpuKernelError(
                f"{node.name} ({node.target.name()}, {_where(node)}) stays on the CPU, and this ExecuTorch has no "
                f"out variant (CPU kernel) of {node.target.name()}: install an executorch build that ships "
                f"{_QUANTIZED_PACKAGE} (libquantized_ops_aot_lib), or load your build of that library with "
                "torch.ops.load_library(...) before to_executorch()") from None
