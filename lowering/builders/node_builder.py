"""Base class of the per-op builders and the context they work in."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

import torch
from torch.fx import Node

from ..nnapi_codes import FeatureLevel

if TYPE_CHECKING:
    from ..lowering_context import LoweringContext
    from ..passes.channel_shuffle import ChannelShuffleMatch
    from ..passes.high_rank_views import ViewRegions
    from ..passes.safe_softmax import SafeSoftmaxMatch


class Refused(Exception):
    """Raised by ``NodeBuilder.check``: NNAPI will not take the node, for ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class CheckContext:
    """What ``check`` may look at: the target feature level and the program."""

    def __init__(self, feature_level: FeatureLevel, exported_program: Any = None) -> None:
        self.feature_level = FeatureLevel(feature_level)
        self.exported_program = exported_program
        # FX graph -> its channel-shuffle matches, found once per graph
        self._channel_shuffles: dict[Any, dict[Node, "ChannelShuffleMatch"]] = {}
        # FX graph -> nodes computable from constants / rank > 4 view regions, found once per graph
        self._foldable: dict[Any, set[Node]] = {}
        self._view_regions: dict[Any, "ViewRegions"] = {}
        self._safe_softmaxes: dict[Any, dict[Node, "SafeSoftmaxMatch"]] = {}

    def require(self, level: FeatureLevel, what: str) -> None:
        """Refuses with "``what`` needs API N" if the target level is lower."""
        if self.feature_level < level:
            raise Refused(f"{what} needs {FeatureLevel(level).label}; the target is {self.feature_level.label}")

    def channel_shuffle(self, node: Node) -> "ChannelShuffleMatch | None":
        """The complete channel-shuffle pattern ``node`` belongs to, or None.

        Its rank-5 nodes are delegable only as part of such a match; refuses
        below API 28 (CHANNEL_SHUFFLE from API 29, RESHAPE + TRANSPOSE at 28).
        """
        from ..passes.channel_shuffle import find_channel_shuffles

        matches = self._channel_shuffles.get(node.graph)
        if matches is None:
            matches = self._channel_shuffles[node.graph] = find_channel_shuffles(node.graph)
        match = matches.get(node)
        if match is not None:
            self.require(FeatureLevel.ANDROID_9, "channel shuffle")
        return match

    def is_foldable(self, node: Any) -> bool:
        """Whether ``node`` is a constant or computed from constants only (folded at lowering time)."""
        if self.is_constant(node):
            return True
        if not isinstance(node, Node):
            return False
        from ..constant_folding import foldable_nodes

        found = self._foldable.get(node.graph)
        if found is None:
            found = self._foldable[node.graph] = foldable_nodes(node.graph, self.is_constant)
        return node in found

    def view_regions(self, graph: Any) -> "ViewRegions":
        """The rank > 4 view regions of ``graph`` (passes/high_rank_views.py)."""
        from ..passes.high_rank_views import find_view_regions

        regions = self._view_regions.get(graph)
        if regions is None:
            regions = self._view_regions[graph] = find_view_regions(graph, self.is_foldable)
        return regions

    def safe_softmaxes(self, graph: Any) -> dict[Node, "SafeSoftmaxMatch"]:
        """Node -> the masked softmax it belongs to, in ``graph`` (passes/safe_softmax.py)."""
        from ..passes.safe_softmax import find_safe_softmaxes

        found = self._safe_softmaxes.get(graph)
        if found is None:
            found = self._safe_softmaxes[graph] = find_safe_softmaxes(graph)
        return found

    def is_constant(self, node: Any) -> bool:
        """Whether ``node`` is a parameter, buffer or lifted constant (known at lowering time)."""
        if not isinstance(node, Node):
            return False
        if node.op == "placeholder":
            return node.name in self._constant_placeholders
        return node.op == "get_attr"

    @functools.cached_property
    def _constant_placeholders(self) -> frozenset[str]:
        # Computed once: torch's is_param/is_buffer rebuild their lookups on every call.
        sig = getattr(self.exported_program, "graph_signature", None)
        if sig is None:
            return frozenset()
        return frozenset(sig.inputs_to_parameters) | frozenset(sig.inputs_to_buffers) | frozenset(
            sig.inputs_to_lifted_tensor_constants)

    def constant(self, node: Node) -> torch.Tensor | None:
        from executorch.backends.transforms.utils import get_param_tensor

        if not self.is_constant(node):
            return None
        return get_param_tensor(self.exported_program, node)


class NodeBuilder:
    """Emits the NNAPI operations for one ATen op (one subclass per file).

    ``check`` says whether a node can be emitted at the target feature level
    (raising ``Refused`` with a specific reason); ``define`` emits it. The two
    must agree: the partitioner only claims nodes whose ``check`` passed.
    """

    # ATen overloads (torch.ops.aten.*) this builder handles.
    targets: ClassVar[Sequence[Any]] = ()
    # Whether the op has a fused-activation operand (RELU/RELU1/RELU6 can fold in).
    fuses_activation: ClassVar[bool] = False

    def check(self, node: Node, ctx: CheckContext) -> None:
        """Raises Refused if the node cannot be emitted; the default accepts."""

    def define(self, node: Node, lc: "LoweringContext") -> None:  # pragma: no cover - abstract
        raise NotImplementedError
