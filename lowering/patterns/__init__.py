"""Patterns: multi-node units found once per program, before any builder runs.

One fixed, ordered list of matchers (``MATCHERS``) runs over a program's FX
graph; a node claimed by an earlier matcher is not offered to a later one. The
partitioner runs it on the whole program (to decide units as a whole and keep
indivisible ones in one partition), the backend on each partition (to hand each
unit to its builder). Matchers only read the graph: the node names the
partitioner reported stay valid, and this layer imports no builder.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from torch.fx import Graph, Node

from ..node_units import NodeUnit
from .channel_shuffle import find_channel_shuffles, find_quantized_channel_shuffles
from .fused_activation import find_fused_activations
from .local_response_norm import find_local_response_norms
from .masked_softmax import find_masked_softmaxes
from .pattern_context import PatternContext
from .quantized_op import find_quantized_ops
from .view_chain import find_view_chains
from .weight_only_embedding import find_weight_only_embeddings
from .weight_only_linear import find_weight_only_linears

Matcher = Callable[[Graph, PatternContext, set[Node]], list[NodeUnit]]

# Order matters: a local response norm's square, view and pad, quantized, are no quantized ops
# (the view and pad have rank-5 sides), nor are a quantized channel shuffle's views; a quantized
# op's nodes are no float unit's (so it comes next), nor are a weight-only linear's; a channel
# shuffle is also a rank-5 view chain; a fused activation's producer must not be a node another
# unit emits.
MATCHERS: tuple[Matcher, ...] = (
    find_local_response_norms,
    find_quantized_channel_shuffles,
    find_quantized_ops,
    find_weight_only_linears,
    find_weight_only_embeddings,
    find_channel_shuffles,
    find_view_chains,
    find_masked_softmaxes,
    find_fused_activations,
)


@dataclasses.dataclass
class PatternAnalysis:
    """The units of one program and, for each member node, its unit."""

    units: list[NodeUnit] = dataclasses.field(default_factory=list)
    unit_of: dict[Node, NodeUnit] = dataclasses.field(default_factory=dict)

    def covering(self, node: Node) -> NodeUnit | None:
        """The unit whose builder decides and emits ``node``, if any."""
        unit = self.unit_of.get(node)
        return unit if unit is not None and node in unit.covered else None

    def indivisible_groups(self) -> list[tuple[Node, ...]]:
        """The nodes of each unit that must share one partition."""
        return [u.nodes for u in self.units if u.indivisible]


def analyze_patterns(graph: Graph, ctx: PatternContext) -> PatternAnalysis:
    """Runs every matcher of ``MATCHERS`` once over ``graph``, in order."""
    analysis = PatternAnalysis()
    for matcher in MATCHERS:
        for unit in matcher(graph, ctx, set(analysis.unit_of)):
            analysis.units.append(unit)
            for node in unit.nodes:
                analysis.unit_of[node] = unit
    return analysis


__all__ = ["MATCHERS", "PatternAnalysis", "PatternContext", "analyze_patterns"]
