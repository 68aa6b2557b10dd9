"""One builder per ATen op, registered in one table (``BUILDERS``).

Adding an op: write ``builders/<op>.py`` with a NodeBuilder subclass decorated
with ``@register_builder``, import it below, and give it a row in
``partitioners/op_support.py``.
"""

from __future__ import annotations

from typing import Any

from .node_builder import CheckContext, NodeBuilder, Refused

BUILDERS: dict[Any, NodeBuilder] = {}


def register_builder(cls: type[NodeBuilder]) -> type[NodeBuilder]:
    """Class decorator: registers one instance for each of ``cls.targets``."""
    instance = cls()
    for target in cls.targets:
        if target in BUILDERS:
            raise ValueError(f"two builders for {target}")
        BUILDERS[target] = instance
    return cls


def get_builder(op: Any) -> NodeBuilder | None:
    """The builder for an ATen OpOverload (or an edge op), if any."""
    from ..node_utils import unwrap_op

    return BUILDERS.get(unwrap_op(op))


# Builder modules register themselves on import.
from . import (  # noqa: E402,F401
    batch_norm,
    binary_elementwise,
    conv2d,
    getitem,
    hardtanh,
    linear,
    mean,
    relu,
    view,
)

__all__ = ["BUILDERS", "CheckContext", "NodeBuilder", "Refused", "get_builder", "register_builder"]
