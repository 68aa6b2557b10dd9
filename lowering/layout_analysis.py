"""Which values lowering will hold in NHWC order (and which it wants in NHWC),
predicted from the FX graph.

Spatial operations (convolution, pooling, resize) take and produce NHWC
values; element-wise operations keep their input's order. The partitioner uses
the prediction to refuse, at API 27 (no TRANSPOSE), nodes that would mix
layouts; lowering uses it to declare a partition input NHWC when its readers
work in NHWC, since the runtime permutes inputs for free while copying them in.
"""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from .builders import BUILDERS, LayoutClass
from .graph import NHWC, identity
from .node_utils import aten_op, fake_value


def _ops_of_layout(layout: LayoutClass) -> frozenset:
    """The ATen ops whose builder declares ``layout``."""
    return frozenset(op for op, builder in BUILDERS.items() if builder.layout is layout)


# Derived from the builders' ``layout``: ops that read their main input (args[0])
# and produce their output in NHWC; ops that work in whatever order their input
# has (their output keeps it); reductions.
NHWC_OPS = _ops_of_layout(LayoutClass.NHWC)
ORDER_PRESERVING = _ops_of_layout(LayoutClass.ORDER_PRESERVING)
REDUCTIONS = _ops_of_layout(LayoutClass.REDUCTION)


def is_channels_last_rank(node) -> bool:
    """A 3-D or 4-D tensor value (for a multi-output node such as batch norm: its first
    output): the ranks a spatial op holds channels-last (a 1-D convolution's [N, C, L]
    as [N, L, C], a 2-D one's [N, C, H, W] as NHWC)."""
    val = fake_value(node) if isinstance(node, Node) else None
    if isinstance(val, (tuple, list)) and val:
        val = val[0]
    return isinstance(val, torch.Tensor) and val.dim() in (3, 4)


def channels_last(rank: int) -> tuple[int, ...]:
    """The channels-last dim order of a rank-3 or rank-4 value."""
    return NHWC if rank == 4 else (0, 2, 1)


def is_unit_spatial(node: Node) -> bool:
    """[N, C, 1, 1]: the same bytes in NHWC and in PyTorch's order."""
    shape = fake_value(node).shape
    return all(isinstance(d, int) and d == 1 for d in shape[2:])


def nhwc_values(graph: torch.fx.Graph) -> set[Node]:
    """Nodes whose value lowering will hold in NHWC order (approximation)."""
    nhwc: set[Node] = set()
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        op = aten_op(node)
        inputs = [i for i in node.all_input_nodes if i in nhwc]
        if op in NHWC_OPS and is_channels_last_rank(node):
            nhwc.add(node)
        elif op in ORDER_PRESERVING and inputs and (is_channels_last_rank(node) or op is operator.getitem):
            nhwc.add(node)
        elif op in REDUCTIONS and inputs and is_channels_last_rank(node) and not is_unit_spatial(node):
            nhwc.add(node)
    return nhwc


def nhwc_wanted(graph: torch.fx.Graph, nhwc: set[Node]) -> set[Node]:
    """4-D values whose readers work in NHWC: a spatial op, or (through any chain of
    order-preserving ops) one whose result is NHWC anyway. Backward from the outputs."""
    wanted: set[Node] = set()
    for node in reversed(graph.nodes):
        if not is_channels_last_rank(node):
            continue
        for user in node.users:
            op = aten_op(user) if user.op == "call_function" else None
            if (op in NHWC_OPS and user.args[0] is node) or (op in ORDER_PRESERVING and (user in nhwc or user in wanted)):
                wanted.add(node)
                break
    return wanted


def preferred_input_order(node: Node, rank: int, wanted: set[Node]) -> tuple[int, ...]:
    """Channels-last (NHWC; (0, 2, 1) at rank 3) for a partition input whose readers
    work in it (see nhwc_wanted); else PyTorch's order."""
    return channels_last(rank) if rank in (3, 4) and node in wanted else identity(rank)
