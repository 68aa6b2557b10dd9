"""State shared by the builders while one partition is lowered."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import torch
from torch.fx import Node

from .graph import NnapiGraph, identity, permute_shape
from .nnapi_codes import FuseCode
from .node_units import FusedActivationUnit, NodeUnit
from .node_utils import tensor_dtype, tensor_shape
from .shape_program import Dim


class LoweringContext:
    """The NNAPI graph under construction plus the partition's node units.

    A FusedActivationUnit makes its batch norm, getitem and activation aliases
    of its producer, whose builder reads the unit (``unit_of``, ``fuse_code``).
    """

    def __init__(self, graph: NnapiGraph, exported_program: Any, units: Iterable[NodeUnit] = ()) -> None:
        self.graph = graph
        self.exported_program = exported_program
        # member node -> the unit it belongs to
        self._unit_of: dict[Node, NodeUnit] = {}
        # node -> node whose value it shares (folded batch norm, fused activation)
        self.aliases: dict[Node, Node] = {}
        for unit in units:
            for node in unit.nodes:
                self._unit_of[node] = unit
            if isinstance(unit, FusedActivationUnit):
                for node in unit.nodes[1:]:
                    self.aliases[node] = unit.producer

    # ----------------------------------------------------------------- queries
    def resolve(self, node: Node) -> Node:
        while node in self.aliases:
            node = self.aliases[node]
        return node

    def shape(self, node: Node) -> list[Dim]:
        """Logical (PyTorch) shape of a tensor node."""
        return tensor_shape(node)

    def dtype(self, node: Node) -> torch.dtype | None:
        return tensor_dtype(node)

    def unit_of(self, node: Node) -> NodeUnit | None:
        """The unit ``node`` belongs to, if any."""
        return self._unit_of.get(node)

    def fuse_code(self, node: Node) -> FuseCode:
        """The activation fused into ``node``'s operation (NONE if none)."""
        unit = self._unit_of.get(node)
        if isinstance(unit, FusedActivationUnit) and unit.producer is node:
            return unit.fuse_code
        return FuseCode.NONE

    def is_constant(self, node: Any) -> bool:
        return isinstance(node, Node) and self.graph.is_constant(self.resolve(node))

    def constant(self, node: Node) -> torch.Tensor:
        return self.graph.constant(self.resolve(node))

    def order(self, node: Node) -> tuple[int, ...]:
        """Physical dim order in which ``node``'s value was produced."""
        return self.graph.produced_order(self.resolve(node))

    # ----------------------------------------------------------------- operands
    def operand(self, node: Node, dim_order: Sequence[int] | None = None) -> int:
        """Operand holding ``node``'s value in ``dim_order`` (TRANSPOSE emitted if needed)."""
        return self.graph.operand_of(self.resolve(node), dim_order)

    def emit_output(self, node: Node, dim_order: Sequence[int] | None = None,
                    shape: Sequence[Dim] | None = None) -> int:
        """Creates the operand for ``node``'s result in ``dim_order`` and records it."""
        logical = list(shape) if shape is not None else self.shape(node)
        order = tuple(dim_order) if dim_order is not None else identity(len(logical))
        dtype = self.dtype(node) or torch.float32
        operand = self.graph.emit_tensor(permute_shape(logical, order), dtype, debug_name=node.name)
        self.graph.set_value(node, operand, order, logical)
        return operand
