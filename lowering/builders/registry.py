"""The builder tables: ATen op -> NodeBuilder, NodeUnit type -> UnitBuilder."""

from __future__ import annotations

from typing import Any

from ..node_units import NodeUnit
from ..node_utils import unwrap_op
from .node_builder import NodeBuilder, UnitBuilder
from .quantization import Quantization

BUILDERS: dict[Any, NodeBuilder] = {}
UNIT_BUILDERS: dict[type[NodeUnit], UnitBuilder] = {}


def register_builder(cls: type[NodeBuilder]) -> type[NodeBuilder]:
    """Class decorator: registers one instance for each op of ``cls.ops``."""
    instance = cls()
    for target in instance.targets:
        if target in BUILDERS:
            raise ValueError(f"two builders for {target}")
        BUILDERS[target] = instance
    return cls


def register_unit_builder(cls: type[UnitBuilder]) -> type[UnitBuilder]:
    """Class decorator: registers the builder of the unit type ``cls.unit``."""
    if cls.unit in UNIT_BUILDERS:
        raise ValueError(f"two builders for {cls.unit.__name__}")
    UNIT_BUILDERS[cls.unit] = cls()
    return cls


def get_builder(op: Any) -> NodeBuilder | None:
    """The builder for an ATen OpOverload (or an edge op), if any."""
    return BUILDERS.get(unwrap_op(op))


def get_unit_builder(unit: NodeUnit) -> UnitBuilder:
    """The builder of ``unit`` (every unit type a matcher produces has one)."""
    return UNIT_BUILDERS[type(unit)]


def builders() -> list[NodeBuilder]:
    """Every registered NodeBuilder once, in registration order."""
    return list({id(b): b for b in BUILDERS.values()}.values())


def quantization_declarations() -> dict[Any, Quantization]:
    """Each op of an exported program that NnapiQuantizer annotates -> the declaration, on a
    builder's OpSupport row, that says how it runs in 8 bits."""
    found: dict[Any, Quantization] = {}
    for builder in builders():
        for row in builder.ops:
            for declared in row.quantized:
                for op in declared.annotates:
                    if op in found:
                        raise ValueError(f"two quantization declarations annotate {op}")
                    found[op] = declared
    return found
