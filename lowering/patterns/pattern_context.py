"""What the matchers may ask about the program besides its FX graph."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable


@dataclasses.dataclass(frozen=True)
class PatternContext:
    """``is_known``: whether a node's value is known at lowering time (a constant, or
    computed from constants only). ``fuses_activation``: whether the builder of an
    ATen op has a fused-activation operand; ``has_8bit_form``: whether NNAPI runs the op on
    8-bit operands at all (builder facts, passed in by the caller so that patterns import no
    builder)."""

    is_known: Callable[[Any], bool]
    fuses_activation: Callable[[Any], bool]
    has_8bit_form: Callable[[Any], bool]


def unclaimed_matches(graph: Any, claimed: set, match: Callable[[Any], Any]) -> list:
    """The units ``match`` finds at the nodes of ``graph``, in graph order, sharing no node with
    ``claimed`` (what earlier matchers took)."""
    found = []
    for node in graph.nodes:
        unit = match(node) if node not in claimed else None
        if unit is not None and not claimed.intersection(unit.nodes):
            found.append(unit)
    return found

