"""The builders: one per ATen op (``NodeBuilder``) or multi-node unit (``UnitBuilder``).

Adding an op: write ``builders/<op>.py`` with a NodeBuilder subclass decorated
with ``@register_builder`` that declares the op's facts (``ops``, ``layout``,
docstring); every module here is imported automatically, and the support table,
``executorch-nnapi ops`` and docs/op_support.md follow from it.
"""

from __future__ import annotations

import importlib
import pkgutil

from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused, UnitBuilder
from .quantization import QuantKind, Quantization
from .registry import (BUILDERS, UNIT_BUILDERS, builders, get_builder, get_unit_builder, quantization_declarations,
                       register_builder, register_unit_builder)

_SUPPORT_MODULES = {"node_builder", "registry", "common", "quantization"}


def _import_builder_modules() -> None:
    """Imports every module of this package; builders register themselves."""
    for info in pkgutil.iter_modules(__path__):
        if info.name not in _SUPPORT_MODULES:
            importlib.import_module(f"{__name__}.{info.name}")


_import_builder_modules()

__all__ = ["BUILDERS", "UNIT_BUILDERS", "CheckContext", "LayoutClass", "NodeBuilder", "OpSupport", "QuantKind",
           "Quantization", "Refused", "UnitBuilder", "builders", "get_builder", "get_unit_builder",
           "quantization_declarations", "register_builder", "register_unit_builder"]
