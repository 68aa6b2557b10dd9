"""The one pattern analysis of a program, as the partitioner and the backend run it:
the matchers of lowering/patterns/ with the builders' facts they need."""

from __future__ import annotations

from typing import Any, Callable

from torch.fx import Graph

from .builders import get_builder
from .patterns import PatternAnalysis, PatternContext, analyze_patterns


def _fuses_activation(op: Any) -> bool:
    builder = get_builder(op)
    return builder is not None and builder.fuses_activation


def analyze_program(graph: Graph, is_known: Callable[[Any], bool]) -> PatternAnalysis:
    """The node units of ``graph``; ``is_known`` tells which values are known at lowering time."""
    return analyze_patterns(graph, PatternContext(is_known=is_known, fuses_activation=_fuses_activation))
