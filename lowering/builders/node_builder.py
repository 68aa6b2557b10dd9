"""Base classes of the builders, the facts each declares, and the context of their checks."""

from __future__ import annotations

import dataclasses
import enum
import functools
import sys
from typing import Any, ClassVar, Sequence

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_units import NodeUnit
from ..node_utils import QuantParams
from .quantization import Quantization


class Refused(Exception):
    """Raised by a builder's ``check``: NNAPI will not take the node, for ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LayoutClass(enum.Enum):
    """How an op's builder places its result in memory (layout_analysis.py predicts
    the NHWC values of a program from it)."""

    NHWC = "reads its main input and produces its output in NHWC"
    ORDER_PRESERVING = "works in whatever dim order its input has"
    REDUCTION = "keeps its input's order for the dims it does not reduce"
    PYTORCH = "works in PyTorch's dim order"


@dataclasses.dataclass(frozen=True)
class OpSupport:
    """One ATen op a builder emits: from feature level ``since``, as ``nnapi``, when
    ``constraints`` hold (the builder's ``check`` refuses the rest with a reason).

    ``keep`` asks to_edge not to decompose the op (only nodes the partitioner
    then takes are kept, so nothing is left without a kernel).

    ``quantized``: how the op runs on 8-bit operands (builders/quantization.py), one
    declaration or several (one per group of the exported program's ops it annotates);
    none: the op has no quantized lowering.

    ``cpu_kernel``: False when ExecuTorch's portable CPU kernels lack the op, so a node NNAPI
    refuses could run nowhere and lowering stops there, naming it (never a .pte that cannot load).
    """

    op: Any
    since: FeatureLevel
    nnapi: str
    constraints: str
    keep: bool = False
    quantized: Quantization | tuple[Quantization, ...] = ()
    cpu_kernel: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.quantized, Quantization):
            object.__setattr__(self, "quantized", (self.quantized,))


def level_refusal(what: str, needed: FeatureLevel, target: FeatureLevel) -> str | None:
    """"``what`` needs API N; the target is API M" if ``target`` is below ``needed``."""
    if target < needed:
        return f"{what} needs {FeatureLevel(needed).label}; the target is {FeatureLevel(target).label}"
    return None


class CheckContext:
    """What ``check`` may look at: the target feature level and the program."""

    def __init__(self, feature_level: FeatureLevel, exported_program: Any = None) -> None:
        self.feature_level = FeatureLevel(feature_level)
        self.exported_program = exported_program
        self._foldable: dict[Any, set[Node]] = {}  # FX graph -> nodes computable from constants
        # Set by the partitioner: why NNAPI cannot run a control-flow body (a branch of cond, the
        # condition or body of while_loop) whole, node by node as it decides a program's nodes
        # (None: it can). Arguments: a name for the body, its GraphModule and its BodyCheckContext.
        self.body_refusal: Any = None
        # Bounds of integer values (builders/integer_ranges.py): per node, memoized; and per
        # placeholder of a loop body, what the loop's condition proves about it.
        self.range_cache: dict[Node, Any] = {}
        self.placeholder_ranges: dict[Node, tuple[int, int]] = {}

    def require(self, level: FeatureLevel, what: str) -> None:
        """Refuses with "``what`` needs API N" if the target level is lower."""
        reason = level_refusal(what, level, self.feature_level)
        if reason:
            raise Refused(reason)

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

    def folded_value(self, node: Any) -> torch.Tensor | None:
        """The value of a constant or of a node computed from constants only (evaluated
        here, as lowering will), or None when it is not known (not foldable, or fake)."""
        from torch._subclasses.fake_tensor import FakeTensor

        from ..constant_folding import evaluate

        if not self.is_foldable(node):
            return None
        if self.is_constant(node):
            value = self.constant(node)
        else:
            inputs = {n: self.folded_value(n) for n in node.all_input_nodes}
            if any(v is None for v in inputs.values()):
                return None
            value = evaluate(node, inputs.__getitem__)
        return None if isinstance(value, FakeTensor) or not isinstance(value, torch.Tensor) else value

    def constant(self, node: Node) -> torch.Tensor | None:
        from executorch.backends.transforms.utils import get_param_tensor

        if not self.is_constant(node):
            return None
        return get_param_tensor(self.exported_program, node)


class BodyCheckContext(CheckContext):
    """The CheckContext of a control-flow body: its placeholders are the values the outer
    node passes (constant when those are), its get_attr nodes constants of its own module."""

    def __init__(self, outer: CheckContext, inputs: dict[Node, Any],
                 placeholder_ranges: dict[Node, tuple[int, int]] | None = None) -> None:
        """``placeholder_ranges``: bounds of integer placeholders whenever the body runs (a loop
        body: what the loop's condition proves)."""
        super().__init__(outer.feature_level, outer.exported_program)
        self.outer, self.inputs, self.body_refusal = outer, inputs, outer.body_refusal
        self.placeholder_ranges = dict(placeholder_ranges or {})

    def is_constant(self, node: Any) -> bool:
        if isinstance(node, Node) and node.op == "placeholder":
            # None: a value that changes between runs of the body (a loop's carried value).
            outer = self.inputs.get(node)
            return outer is not None and self.outer.is_foldable(outer)
        return isinstance(node, Node) and node.op == "get_attr"

    def constant(self, node: Node) -> torch.Tensor | None:
        if not self.is_constant(node):
            return None
        if node.op == "placeholder":
            return self.outer.folded_value(self.inputs[node])
        return getattr(node.graph.owning_module, node.target)


def _first_line(cls: type) -> str:
    own = cls.__doc__ if "__doc__" in vars(cls) else None
    text = own or getattr(sys.modules.get(cls.__module__), "__doc__", None) or ""
    return text.strip().splitlines()[0] if text.strip() else ""


class NodeBuilder:
    """Emits the NNAPI operations for one ATen op (one subclass per file).

    A builder states its op's facts once, here: ``ops`` (per ATen overload: the
    feature level it needs, the NNAPI operations, the constraints, and how it runs
    in 8 bits: ``quantized``), ``layout``, ``fuses_activation`` and its docstring.
    The support table, ``executorch-nnapi ops``, docs/op_support.md, the layout
    prediction, NnapiQuantizer's annotations and the quantized-op dispatch are
    derived from them.

    ``check`` says whether a node can be emitted (raising ``Refused`` with a
    specific reason) beyond the op's feature level, which the partitioner checks
    from ``ops``; ``define`` emits it. The two must agree: the partitioner only
    claims nodes whose ``check`` passed.
    """

    ops: ClassVar[Sequence[OpSupport]] = ()
    layout: ClassVar[LayoutClass] = LayoutClass.PYTORCH
    # Whether the op has a fused-activation operand (RELU/RELU1/RELU6 can fold in).
    fuses_activation: ClassVar[bool] = False
    # Whether ``define`` takes rank > 4 values, which lowering holds as rank <= 4 views of their
    # bytes (TensorValue.merged: a partition input, a 3-D pool's result), where ``check`` lets them
    # through. The partitioner refuses a node reading or producing a run-time value of rank > 4 for
    # any other builder, so that no node it claims meets a view its builder cannot read.
    reads_merged_views: ClassVar[bool] = False

    @property
    def targets(self) -> tuple[Any, ...]:
        """The ATen overloads this builder handles."""
        return tuple(row.op for row in self.ops)

    @classmethod
    def doc(cls) -> str:
        """The builder's one-line description: its docstring's, else its module's first line."""
        return _first_line(cls)

    def check(self, node: Node, ctx: CheckContext) -> None:
        """Raises Refused if the node cannot be emitted; the default accepts."""

    def check_quantized(self, node: Node, output: QuantParams, ctx: CheckContext) -> None:
        """Raises Refused if the node cannot run on 8-bit operands, its result quantized
        with ``output`` (called by the quantized-op builder after ``check``); the default accepts."""

    def define(self, node: Node, lc: LoweringContext) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class UnitBuilder:
    """Emits a multi-node unit (lowering/node_units.py) found by lowering/patterns/.

    Its facts: ``unit`` (the NodeUnit subclass it takes), ``since`` and ``what``
    (the refusal below that level: "``what`` needs API N") and its docstring.
    """

    unit: ClassVar[type[NodeUnit]]
    since: ClassVar[FeatureLevel]
    what: ClassVar[str]

    @classmethod
    def doc(cls) -> str:
        """The builder's one-line description: its docstring's, else its module's first line."""
        return _first_line(cls)

    def refusal(self, unit: NodeUnit, ctx: CheckContext) -> str | None:
        """None if the unit can be emitted at ``ctx``'s level, else why not."""
        reason = level_refusal(self.what, self.since, ctx.feature_level)
        if reason:
            return reason
        try:
            self.check(unit, ctx)
        except Refused as refused:
            return refused.reason
        return None

    def check(self, unit: NodeUnit, ctx: CheckContext) -> None:
        """Raises Refused if the unit cannot be emitted; the default accepts."""

    def define(self, unit: NodeUnit, lc: LoweringContext) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
