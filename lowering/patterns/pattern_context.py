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
