"""One builder per ATen op, registered in one table (``BUILDERS``).

Adding an op: write ``builders/<op>.py`` with a NodeBuilder subclass decorated
with ``@register_builder`` (every module here is imported automatically) and
give the op a row in ``partitioners/op_support.py``.
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


def _import_builder_modules() -> None:
    """Imports every module of this package; builders register themselves."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        if info.name not in ("node_builder", "common"):
            importlib.import_module(f"{__name__}.{info.name}")


_import_builder_modules()

__all__ = ["BUILDERS", "CheckContext", "NodeBuilder", "Refused", "get_builder", "register_builder"]
