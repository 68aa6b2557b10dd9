"""The one pattern analysis of a program, as the partitioner and the backend run it:
the matchers of lowering/patterns/ with the builders' facts they need."""

from __future__ import annotations

from typing import Any, Callable

from torch.fx import Graph

from .builders import QuantKind, get_builder
from .builders.quantized_op import quantization_of
from .patterns import PatternAnalysis, PatternContext, analyze_patterns


def _fuses_activation(op: Any) -> bool:
    builder = get_builder(op)
    return builder is not None and builder.fuses_activation


def _has_8bit_form(op: Any) -> bool:
    """Whether the op's builder declares an 8-bit form (builders/quantization.py): without one, a
    dq -> op -> q group is no quantized unit, and its nodes are decided one by one (DEQUANTIZE,
    the float op, QUANTIZE: a float island inside the partition)."""
    declared = quantization_of(op)
    return declared is not None and declared.kind is not QuantKind.FLOAT


def analyze_program(graph: Graph, is_known: Callable[[Any], bool]) -> PatternAnalysis:
    """The node units of ``graph``; ``is_known`` tells which values are known at lowering time."""
    return analyze_patterns(graph, PatternContext(is_known=is_known, fuses_activation=_fuses_activation,
                                                       has_8bit_form=_has_8bit_form))
