"""State shared by the passes and builders while one partition is lowered."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import torch
from torch.fx import Node

from .graph import NnapiGraph, identity, permute_shape
from .nnapi_codes import FuseCode
from .node_utils import tensor_dtype, tensor_shape
from .shape_program import Dim

if TYPE_CHECKING:
    from .passes.channel_shuffle import ChannelShuffleMatch


class LoweringContext:
    """The NNAPI graph under construction plus what the passes decided.

    Passes record their decisions here (folded batch norms, fused activations,
    aliases) and builders read them, so a builder never re-derives what a pass
    already proved.
    """

    def __init__(self, graph: NnapiGraph, exported_program: Any) -> None:
        self.graph = graph
        self.exported_program = exported_program
        # producer node -> FuseCode of an activation folded into it
        self.fused_activation: dict[Node, FuseCode] = {}
        # node -> node whose value it shares (folded BN, fused activation, no-op)
        self.aliases: dict[Node, Node] = {}
        # conv/linear node -> (weight, bias) after batch-norm folding
        self.folded_parameters: dict[Node, tuple[torch.Tensor, torch.Tensor]] = {}
        # first view of a channel shuffle -> the pattern it emits as one CHANNEL_SHUFFLE
        self.channel_shuffles: dict[Node, "ChannelShuffleMatch"] = {}
        # node -> function emitting it in place of its builder (rank > 4 view regions)
        self.emitters: dict[Node, Callable[[Node, "LoweringContext"], None]] = {}

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

    def fuse_code(self, node: Node) -> FuseCode:
        """The activation a pass folded into ``node`` (NONE if none)."""
        return self.fused_activation.get(node, FuseCode.NONE)

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
