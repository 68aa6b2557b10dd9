"""State shared by the builders while one partition is lowered."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Sequence

import torch
from torch.fx import Node

from .graph import SCALAR_ORDER, NnapiGraph, QuantizedCodes, identity, merged_shape, permute_shape
from .nnapi_codes import FuseCode, OperandCode
from .node_units import ChannelShuffleUnit, FusedActivationUnit, NodeUnit, QuantizedOpUnit
from .node_utils import QuantParams, is_per_channel, is_quantize, quant_params, tensor_dtype, tensor_shape

QUANTIZED_TYPES = {torch.uint8: OperandCode.TENSOR_QUANT8_ASYMM, torch.int8: OperandCode.TENSOR_QUANT8_ASYMM_SIGNED}
from .shape_program import Dim


@dataclasses.dataclass(frozen=True)
class BodyInput:
    """What one placeholder of a control-flow body receives: an operand of the outer model
    (passed to IF / WHILE), or a value known at lowering time (emitted inside the body)."""

    operand: int | None = None
    constant: torch.Tensor | None = None


class LoweringContext:
    """The NNAPI graph under construction plus the partition's node units.

    A FusedActivationUnit makes its batch norm, getitem and activation aliases
    of its producer, whose builder reads the unit (``unit_of``, ``fuse_code``).
    A QuantizedOpUnit makes its dequantized activation inputs aliases of their
    quantized sources and its activation and quantize node aliases of its
    value, which ``emit_output`` creates with the quantize node's parameters:
    the op's own builder then emits the quantized operation unchanged.
    """

    def __init__(self, graph: NnapiGraph, exported_program: Any, units: Iterable[NodeUnit] = ()) -> None:
        self.graph = graph
        self.exported_program = exported_program
        # member node -> the unit it belongs to
        self._unit_of: dict[Node, NodeUnit] = {}
        # node -> node whose value it shares (folded batch norm, fused activation)
        self.aliases: dict[Node, Node] = {}
        # node -> the quantize node whose parameters its result has
        self._quantized_as: dict[Node, Node] = {}
        # Set by the backend: emits a control-flow body (GraphModule, one BodyInput per placeholder,
        # a name) as a new referenced model with the same builders; returns its subgraph index.
        self.lower_body: Callable[[torch.fx.GraphModule, Sequence[BodyInput], str], int] | None = None
        for unit in units:
            for node in unit.nodes:
                self._unit_of[node] = unit
            if isinstance(unit, FusedActivationUnit):
                for node in unit.nodes[1:]:
                    self.aliases[node] = unit.producer
            elif isinstance(unit, QuantizedOpUnit):
                self._add_quantized(unit)
            elif isinstance(unit, ChannelShuffleUnit) and unit.quantize is not None:
                # The shuffle reads its input's codes and its result has the quantize's parameters.
                self.aliases[unit.input] = unit.input.args[0]
                self.aliases[unit.quantize] = unit.merge
                self._quantized_as[unit.merge] = unit.quantize

    def _add_quantized(self, unit: QuantizedOpUnit) -> None:
        for dq in unit.dequants:
            if not self.graph.is_constant(dq):
                self.aliases[dq] = dq.args[0]
            else:
                self._emit_as_codes(dq)
        for node in (unit.activation, unit.output):
            if node is not None:
                self.aliases[node] = unit.value
        self._quantized_as[unit.value] = unit.output
        self._quantized_as[unit.op] = unit.output

    def _emit_as_codes(self, dq: Node) -> None:
        """A dequantized 8-bit constant (a layer scale, a class token, an addend) is emitted as its
        codes with the dequantize's parameters, as the operation reading it expects. Weights,
        biases and PRELU's alpha are read by their builders from the codes (quantized_weights.py)."""
        if is_per_channel(dq) or not self.graph.is_constant(dq.args[0]):
            return
        p = quant_params(dq)
        if p.dtype not in QUANTIZED_TYPES:  # an int32 bias
            return
        codes = self.graph.constant(dq.args[0])
        self.graph.set_constant_codes(dq, QuantizedCodes(codes, QUANTIZED_TYPES[p.dtype], p.scale, p.zero_point))

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
        if isinstance(unit, QuantizedOpUnit) and node in (unit.op, unit.value):
            return unit.fuse_code
        return FuseCode.NONE

    def quant_params(self, node: Node) -> QuantParams | None:
        """The 8-bit parameters ``node``'s result is emitted with (None: not quantized)."""
        q = self._quantized_as.get(node, node if is_quantize(node) else None)
        return quant_params(q) if q is not None else None

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

    def merged_operand(self, node: Node, merged: Sequence[int]) -> int:
        """Operand holding ``node``'s rank > 4 value as its view ``merged`` (RESHAPE if needed)."""
        return self.graph.merged_operand(self.resolve(node), merged)

    def emit_merged_output(self, node: Node, merged: Sequence[int]) -> int:
        """Creates the operand for ``node``'s rank > 4 result as its view ``merged`` and records it."""
        logical = self.shape(node)
        dtype = self.dtype(node) or torch.float32
        operand = self.graph.emit_tensor(merged_shape(logical, merged), dtype, debug_name=node.name)
        self.graph.set_merged_value(node, operand, merged, logical)
        return operand

    def emit_output(self, node: Node, dim_order: Sequence[int] | None = None,
                    shape: Sequence[Dim] | None = None) -> int:
        """Creates the operand for ``node``'s result in ``dim_order`` and records it."""
        logical = list(shape) if shape is not None else self.shape(node)
        order = tuple(dim_order) if dim_order is not None else identity(len(logical))
        if not logical:  # NNAPI has no rank-0 tensors: a 0-d result is stored as [1]
            logical, order = [1], SCALAR_ORDER
        params = self.quant_params(node)
        if params is not None:
            operand = self.graph.emit_operand(QUANTIZED_TYPES[params.dtype], permute_shape(logical, order),
                                              scale=params.scale, zero_point=params.zero_point,
                                              debug_name=node.name)
        else:
            dtype = self.dtype(node) or torch.float32
            operand = self.graph.emit_tensor(permute_shape(logical, order), dtype, debug_name=node.name)
        self.graph.set_value(node, operand, order, logical)
        return operand
