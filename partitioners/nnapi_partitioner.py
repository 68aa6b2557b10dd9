"""NnapiPartitioner: tags the nodes NNAPI can run, records why it refuses the rest."""

from __future__ import annotations

import dataclasses
import functools
import logging
from typing import Any, Callable, Optional

import torch
from torch.export import ExportedProgram
from torch.fx import Node
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from executorch.exir.backend.backend_details import BackendDetails  # noqa: F401  (import order)
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
# The table to_edge_transform_and_lower decomposes with (private: the same one, not a copy).
from executorch.exir.tracer import _default_decomposition_table as _build_default_decomposition_table

from executorch_nnapi.lowering import constant_folding
from executorch_nnapi.lowering.builders import UNIT_BUILDERS, CheckContext, Refused, get_builder, get_unit_builder
from executorch_nnapi.lowering.builders.node_builder import level_refusal
from executorch_nnapi.lowering.compile_specs import (NnapiCompileOptions, ranges_from_compile_specs, symbol_ranges,
                                                    symbol_ranges_spec)
from executorch_nnapi.lowering.layout_analysis import nhwc_values
from executorch_nnapi.lowering.nnapi_backend import NnapiBackend
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from executorch_nnapi.lowering.passes import run_pre_partition_passes
from executorch_nnapi.lowering.node_utils import aten_op, fake_value, op_name
from executorch_nnapi.lowering.node_units import NodeUnit
from executorch_nnapi.lowering.program_analysis import analyze_program
from executorch_nnapi.lowering.shape_program import as_dim, describe_unsupported
from executorch_nnapi.lowering.size_nodes import is_size_node, size_node_refusal

from .cpu_kernels import load_quantized_out_variants, stop_at_nodes_without_cpu_kernel
from .layout_constraints import api27_layout_refusal
from .lowering_dry_run import lowering_failures, stop_at_a_kept_op, tag_partition
from .mutable_buffers import tag_mutated_buffers
from .node_groups import keep_groups_whole
from .partition_symbols import partition_refusal
from .op_support import (NO_NNAPI_EQUIVALENT, READ_AS_SIZE, SIZE_ARITHMETIC, edge_form, empty_size_refusal,
                         merged_view_refusal, operand_size_refusal, table_by_op)
from .size_partition import without_sizes_left_to_executorch

logger = logging.getLogger(__name__)

REASON_META_KEY = "nnapi_refusal"

_READ_SCALAR = torch.ops.aten._local_scalar_dense.default  # .item() in the edge program


def _read_as_size(node: Node) -> bool:
    """Whether ``node`` is an integer tensor read only by ``.item()`` (a position used as a size)."""
    value = fake_value(node)
    return (isinstance(value, torch.Tensor) and not value.is_floating_point() and value.dtype != torch.bool
            and bool(node.users) and all(aten_op(u) == _READ_SCALAR for u in node.users))


@dataclasses.dataclass(frozen=True)
class NodeDecision:
    """The partitioner's verdict on one node."""

    node: str
    op: str
    supported: bool
    reason: str = ""


class NnapiOperatorSupport(OperatorSupportBase):
    """Answers "can NNAPI at ``feature_level`` run this node?" with a reason when not."""

    def __init__(self, exported_program: ExportedProgram, feature_level: FeatureLevel, *,
                 body: Optional[torch.fx.GraphModule] = None, ctx: Optional[CheckContext] = None) -> None:
        """``body`` / ``ctx``: decide the nodes of a control-flow body (with its BodyCheckContext)
        instead of the program's."""
        super().__init__()
        self.ctx = ctx if ctx is not None else CheckContext(feature_level, exported_program)
        # A control-flow node's builder asks, through its context, whether its bodies run whole.
        self.ctx.body_refusal = self._body_refusal
        graph = body.graph if body is not None else exported_program.graph
        self.table = table_by_op()
        self.decisions: dict[Node, NodeDecision] = {}
        # Per control-flow body decided: its name and the ops it holds (the delegation report lists them).
        self.bodies: dict[str, list[str]] = {}
        self.foldable = constant_folding.foldable_nodes(graph, self.ctx.is_constant)
        self.patterns = analyze_program(graph, self.ctx.is_foldable)
        self._unit_refusals: dict[int, Optional[str]] = {}
        # API 27 has no TRANSPOSE: find the values that will be NHWC to refuse readers needing another order.
        self.nhwc = nhwc_values(graph) if feature_level < FeatureLevel.ANDROID_9 else None
        if self.nhwc is not None:
            self._dissolve_misplaced_units()
        # The program inputs a delegate may read sizes and numbers of (none inside a body).
        self.user_inputs = set(exported_program.graph_signature.user_inputs) if body is None else set()

    def _dissolve_misplaced_units(self) -> None:
        """At API 27 a unit whose builder cannot take its input's layout (its ``api27_layout_refusal``)
        is no unit: its nodes are decided one by one, as without the pattern. (Refused whole, a local
        response norm would leave avg_pool3d, which ExecuTorch's CPU kernels lack, on the CPU.)"""
        for unit in list(self.patterns.units):
            builder = UNIT_BUILDERS.get(type(unit))  # a fused activation's producer emits it: no unit builder
            own_layout_check = getattr(builder, "api27_layout_refusal", None)
            if own_layout_check is not None and own_layout_check(unit, self.nhwc):
                self.patterns.units.remove(unit)
                for node in unit.nodes:
                    self.patterns.unit_of.pop(node, None)

    def _body_refusal(self, name: str, body: torch.fx.GraphModule, ctx: CheckContext) -> Optional[str]:
        """Why NNAPI cannot run a control-flow body whole: its first node refused, decided as the
        program's nodes are (the same table, patterns and builders), else None."""
        support = NnapiOperatorSupport(self.ctx.exported_program, self.ctx.feature_level, body=body, ctx=ctx)
        for node in body.graph.nodes:
            if node.op == "call_function" and not support.is_node_supported({}, node):
                d = support.decisions[node]
                return f"{d.node} ({d.op}): {d.reason}"
        ops = [d.op for d in support.decisions.values() if d.op != "getitem"]
        self.bodies[name] = ops
        self.bodies.update(support.bodies)
        return None

    def refusal(self, node: Node, *, folded: bool = True) -> Optional[str]:
        """None if NNAPI takes ``node``, else the reason it does not. ``folded=False``: as an
        NNAPI operation, even if it is a constant computation (one lowering cannot fold where its
        partition does not hold its constant inputs).

        A check that fails with anything but a refusal (a builder's bug, a node form it did not
        foresee) refuses the node with the exception named: it stays on the CPU, lowering goes on."""
        try:
            return self._refusal(node, folded)
        except Exception as error:  # noqa: BLE001  (any failure of a check means "not NNAPI")
            reason = f"NNAPI's check of this node failed ({type(error).__name__}: {error})"
            logger.warning("%s (%s) stays on the CPU: %s", node.name, op_name(node.target), reason)
            return reason

    def _refusal(self, node: Node, folded: bool) -> Optional[str]:
        op = edge_form(aten_op(node))
        if folded and node in self.foldable:
            return None  # computed at lowering time, no NNAPI operation needed
        # A unit's nodes are taken or refused as a whole, by the unit's builder (which
        # knows the level its form needs: a quantize inside a quantized op is no QUANTIZE).
        unit = self.patterns.covering(node)
        row = self.table.get(op)
        if unit is None and is_size_node(node):
            # The shape program does its work, when the delegate receives what it reads.
            reason = size_node_refusal(node, self.user_inputs)
            return None if reason is None else f"{SIZE_ARITHMETIC}: {reason}"
        if unit is None and _read_as_size(node):
            return READ_AS_SIZE
        if row is None and unit is None:
            if isinstance(fake_value(node), (torch.SymInt, torch.SymBool)):
                return SIZE_ARITHMETIC
            name = op_name(op)
            return NO_NNAPI_EQUIVALENT.get(name, f"{name} has no NNAPI lowering")
        reason = level_refusal(op_name(op), row.since, self.ctx.feature_level) if unit is None else None
        if reason:
            return reason
        val = fake_value(node)
        values = val if isinstance(val, (tuple, list)) else [val]
        for v in values:
            if isinstance(v, torch.Tensor):
                reason = describe_unsupported([as_dim(d) for d in v.shape]) or operand_size_refusal(v, "its result")
                if reason:
                    return reason
        for arg in node.all_input_nodes:
            reason = operand_size_refusal(fake_value(arg), f"its input {arg.name}")
            if reason:
                return reason
        if unit is not None:
            return self.unit_refusal(unit) or empty_size_refusal(node)
        builder = get_builder(op)
        try:
            builder.check(node, self.ctx)
        except Refused as refused:
            return refused.reason
        # After the builder's own reasons, which say more.
        reason = merged_view_refusal(node, builder, self.ctx.is_foldable) or empty_size_refusal(node)
        if reason:
            return reason
        if self.nhwc is not None:
            return api27_layout_refusal(node, self.nhwc, self.ctx.is_constant)
        return None

    def unit_refusal(self, unit: NodeUnit) -> Optional[str]:
        """None if the unit's builder takes ``unit`` at the target level, else why not (once per unit)."""
        if id(unit) not in self._unit_refusals:
            builder = get_unit_builder(unit)
            reason = builder.refusal(unit, self.ctx)
            # A builder judging its unit's layout itself (its inner nodes read values in other orders
            # than their ops alone would) was asked in _dissolve_misplaced_units.
            if reason is None and self.nhwc is not None and not hasattr(builder, "api27_layout_refusal"):
                reason = next(filter(None, (api27_layout_refusal(n, self.nhwc, self.ctx.is_constant)
                                            for n in unit.covered)), None)
            self._unit_refusals[id(unit)] = reason
        return self._unit_refusals[id(unit)]

    def refuse(self, node: Node, reason: str) -> None:
        """Records that NNAPI does not take ``node`` (nor the unit holding it), for ``reason``."""
        self.decisions[node] = NodeDecision(node.name, op_name(node.target), False, reason)
        node.meta[REASON_META_KEY] = reason
        unit = self.patterns.covering(node)
        if unit is not None:
            self._unit_refusals[id(unit)] = reason

    def is_node_supported(self, submodules: Any, node: Node) -> bool:
        if node.op != "call_function":
            return False
        if node not in self.decisions:
            reason = self.refusal(node)
            self.decisions[node] = NodeDecision(node.name, op_name(node.target), reason is None, reason or "")
            if reason:
                node.meta[REASON_META_KEY] = reason
        return self.decisions[node].supported


def _decomposed_refusals(ep: ExportedProgram, ops: set, reasons: dict[Node, str]) -> list[NodeDecision]:
    """A decision per node of ``ops`` (kept-whole candidates left to the decomposition): its own
    refusal, or the refused node of the same op that makes every node of it decompose."""
    decisions = []
    for node in ep.graph.nodes:
        if node.op != "call_function" or aten_op(node) not in ops:
            continue
        reason = reasons.get(node)
        if reason is None:
            culprit = next((n for n in reasons if aten_op(n) == aten_op(node)), None)
            if culprit is None:
                continue  # the op decomposes for a constant computation (see _ops_kept_whole)
            reason = f"decomposed with {culprit.name}, which NNAPI refuses ({reasons[culprit]})"
        decisions.append(NodeDecision(node.name, op_name(node.target), False, f"{reason}; left to torch's decomposition"))
    return decisions


@functools.cache
def _default_decomposition_table() -> dict:
    """torch's default decomposition table as to_edge uses it. Building it takes ~0.1 s and
    ExecuTorch asks the partitioner four times per lowering; the passes only read it."""
    return _build_default_decomposition_table()


CONSTANT_ONLY_REASON = "computed from constants only and read by no NNAPI operation (stays on the CPU)"


def needed_nodes(nodes: Any, foldable: set[Node]) -> set[Node]:
    """The nodes of a proposed partition minus the constant computations no
    other node of it reads.

    CapabilityBasedPartitioner also merges unconnected nodes, so a constant
    computation feeding only the CPU (e.g. the int64 indices of an index_select
    NNAPI refuses) can land in a partition; it would then be a partition
    output, which NNAPI cannot produce (and has no int64 type for).
    """
    nodes = set(nodes)
    needed: set[Node] = set()
    for node in sorted(nodes, key=_position(nodes), reverse=True):  # users first
        if node not in foldable or any(u in needed for u in node.users):
            needed.add(node)
    return needed


def _position(nodes: set[Node]) -> Callable[[Node], int]:
    graph = next(iter(nodes)).graph if nodes else None
    order = {n: i for i, n in enumerate(graph.nodes)} if graph is not None else {}
    return order.__getitem__


def _proposed_partitions(program: ExportedProgram, support: NnapiOperatorSupport) -> list[set[Node]]:
    """The node sets CapabilityBasedPartitioner proposes, each unit whole, without the constant
    computations no other node of it reads (recorded in ``support.decisions``)."""
    partitions = CapabilityBasedPartitioner(
        program.graph_module, support, allows_single_node_partition=True
    ).propose_partitions()
    # The nodes of an indivisible unit must share a partition.
    keep_groups_whole(partitions, support.patterns.indivisible_groups(), support.ctx.is_foldable)
    result = []
    def refuse(node: Node, reason: str) -> None:
        support.decisions[node] = NodeDecision(node.name, op_name(node.target), False, reason)
        node.meta[REASON_META_KEY] = reason

    for partition in partitions:
        kept = without_unfoldable_constants(needed_nodes(partition.nodes, support.foldable), support)
        kept = without_sizes_left_to_executorch(kept, refuse)
        # Dropping a node can leave a constant computation that only it read.
        nodes = needed_nodes(kept, support.foldable)
        for node in set(partition.nodes) - nodes:
            if node in kept or node not in support.decisions or support.decisions[node].supported:
                support.decisions[node] = NodeDecision(node.name, op_name(node.target), False, CONSTANT_ONLY_REASON)
        result.append(nodes)
    return without_cycles_between(result, support.patterns.indivisible_groups(), refuse,
                                  lambda nodes: needed_nodes(nodes, support.foldable))


CYCLE_REASON = ("reads, through another NNAPI partition or the CPU, a value its own partition computes: "
                "ExecuTorch could not cut the partitions out (a cycle between delegate calls)")


def without_cycles_between(partitions: list[set[Node]], groups: Any, refuse: Callable[[Node, str], None],
                           needed: Callable[[set[Node]], set[Node]]) -> list[set[Node]]:
    """The partitions minus the nodes that close a cycle once each partition is one call node.

    The proposal is acyclic, but the steps after it (whole groups, dropped constants and sizes)
    can leave a path from a partition through others back into it; ExecuTorch fuses each
    partition into one node, so a path into any node of another partition leaves from all of
    its nodes. Each node of a partition reached that way is dropped (with its indivisible group,
    and the constant computations only it read: ``needed``), and the search runs again until no
    partition reaches itself."""
    where = {n: i for i, nodes in enumerate(partitions) for n in nodes}
    changed = True
    while changed:
        changed = False
        for i, nodes in enumerate(partitions):
            reached = _reached_from(nodes, i, partitions, where)
            back = {n for n in nodes if n in reached}
            if not back:
                continue
            for group in groups:
                if any(n in back for n in group):
                    back |= {n for n in group if where.get(n) == i}
            for node in back:
                refuse(node, CYCLE_REASON)
            kept = needed(nodes - back)
            for node in nodes - kept:
                del where[node]
            partitions[i] = kept
            changed = True
    return [nodes for nodes in partitions if nodes]


def _reached_from(nodes: set[Node], index: int, partitions: list[set[Node]], where: dict[Node, int]) -> set[Node]:
    """The nodes reachable from partition ``index`` by a path that leaves it, each other
    partition taken as one node (reaching one of its nodes reaches the users of all)."""
    reached: set[Node] = set()
    entered: set[int] = set()
    stack = [u for n in nodes for u in n.users if where.get(u) != index]
    while stack:
        node = stack.pop()
        if node in reached:
            continue
        reached.add(node)
        other = where.get(node)
        if other is not None and other != index and other not in entered:
            entered.add(other)
            stack.extend(partitions[other])
        stack.extend(node.users)
    return reached


def without_unfoldable_constants(nodes: set[Node], support: NnapiOperatorSupport) -> set[Node]:
    """``nodes`` minus the constant computations that lowering cannot fold in this partition and
    NNAPI cannot run as operations, with their decisions recorded.

    CapabilityBasedPartitioner leaves out of a partition a constant computation the CPU also reads
    (taking it would make a cycle), so a constant node inside may read it as a partition input:
    lowering then sees no constant and must emit the node's operation (a SUB at API 27 cannot be).
    Such a node leaves the partition; if it also reads a node of the partition, so does every
    node of the partition that depends on it (no path may leave the partition and come back)."""
    order = _position(nodes)
    while True:
        local: set[Node] = set()  # the constant computations lowering will fold here
        for node in sorted(nodes, key=order):
            if node not in support.foldable:
                continue
            if constant_folding.inputs_known(node, lambda i: support.ctx.is_constant(i) or i in local):
                local.add(node)
                continue
            reason = support.refusal(node, folded=False)
            if reason is not None:
                break
        else:
            return nodes
        dropped = {node}
        if any(i in nodes for i in node.all_input_nodes):
            dropped |= _descendants_within(node, nodes)
        for n in dropped:
            why = reason if n is node else f"depends on {node.name} inside its partition, which NNAPI cannot run here ({reason})"
            support.decisions[n] = NodeDecision(n.name, op_name(n.target), False, why)
            n.meta[REASON_META_KEY] = why
        nodes = nodes - dropped


def _descendants_within(node: Node, nodes: set[Node]) -> set[Node]:
    """The nodes of ``nodes`` that depend on ``node``."""
    found: set[Node] = set()
    stack = [u for u in node.users if u in nodes]
    while stack:
        n = stack.pop()
        if n not in found:
            found.add(n)
            stack.extend(u for u in n.users if u in nodes)
    return found


def _fingerprint(program: ExportedProgram) -> tuple:
    """The program's nodes and their targets and arguments: equal only if nothing was rewritten."""
    return tuple((n.name, n.op, n.target, n.args) for n in program.graph.nodes)


class NnapiPartitioner(Partitioner):
    """Partitions an edge program for the NNAPI delegate.

    Args:
        feature_level: the lowest NNAPI feature level (Android API level for
            27..31) the resulting .pte must run on; ops that need more are left
            on the CPU with the reason "needs API N". Default: Android 11 (30).
        max_cached_shapes: compiled NNAPI models kept per delegate for dynamic shapes.
        relax_fp32_to_fp16: allow NNAPI to compute float32 in float16.
        take_over_mutable_buffers: a buffer the program mutates (a KV cache) that one partition
            reads and updates becomes delegate state, kept by the runtime in NNAPI memory
            across calls (``states`` lists them after partitioning); False leaves it to
            ExecuTorch, which copies it in and out of the delegate at every call.
        **runtime_options: NNAPI's runtime knobs, stored as CompileSpecs (an app or
            ``nnapi_executor_runner --option`` can override each at load time):
            ``execution_preference``, ``priority``, ``accelerator_name``,
            ``accelerator_type``, ``disallow_nnapi_cpu``, ``cache_dir``,
            ``compilation_timeout_ms``, ``execution_timeout_ms``, ``loop_timeout_ms``, ``use_burst``; see
            :class:`~executorch_nnapi.lowering.compile_specs.NnapiCompileOptions`.
    """

    def __init__(
        self,
        feature_level: int | FeatureLevel = FeatureLevel.ANDROID_11,
        *,
        max_cached_shapes: int = 8,
        relax_fp32_to_fp16: bool = False,
        take_over_mutable_buffers: bool = True,
        **runtime_options: Any,
    ) -> None:
        self.options = NnapiCompileOptions(FeatureLevel.parse(feature_level), max_cached_shapes, relax_fp32_to_fp16,
                                           **runtime_options)
        self.delegation_spec = DelegationSpec(NnapiBackend.__name__, self.options.to_compile_specs())
        self.decisions: list[NodeDecision] = []
        self.take_over_mutable_buffers = take_over_mutable_buffers
        # The mutated buffers the last partitioning made delegate state.
        self.states: list[str] = []
        self._export_ranges: dict[str, tuple[int, int]] = {}
        # (program, its graph's fingerprint, the ops kept whole) of the last call below.
        self._kept_for: tuple[ExportedProgram, tuple, list] | None = None
        # The nodes of ops NNAPI keeps whole that it refused in the last program asked about
        # (ops_to_not_decompose), so to_edge decomposed them (their parts are decided one by one):
        # named as before to_edge, they are not nodes of the partitioned program (``decisions``).
        self.decomposed: list[NodeDecision] = []
        # The parameters of the program last given to ops_to_not_decompose, by name: real tensors
        # for the dry run of the partitions (ExecuTorch partitions a copy with fake ones).
        self._real_tensors: dict[str, torch.Tensor] = {}

    def _lowerable_partitions(self, program: ExportedProgram, support: NnapiOperatorSupport,
                              spec: DelegationSpec) -> list[set[Node]]:
        """The partitions to delegate: those proposed, each lowered once (lowering_dry_run.py); a
        node whose lowering fails is refused with the failure as its reason and the partitions
        are proposed again, until every partition lowers."""
        user_inputs = set(program.graph_signature.user_inputs)
        lowered: set[frozenset[str]] = set()
        while True:
            partitions = []
            for nodes in _proposed_partitions(program, support):
                # A partition of constant computations alone has nothing for NNAPI to run.
                reason = partition_refusal(nodes, user_inputs) if nodes else None
                if reason:
                    for node in nodes:
                        support.decisions[node] = NodeDecision(node.name, op_name(node.target), False, reason)
                elif nodes:
                    partitions.append(nodes)
            failures = lowering_failures(program, partitions, spec, self.options, self._export_ranges,
                                         take_over_mutable_buffers=self.take_over_mutable_buffers,
                                         real_tensors=self._real_tensors, lowered=lowered)
            if not failures:
                return partitions
            kept = set(self._kept_for[2]) if self._kept_for is not None else set()
            for failure in failures:
                stop_at_a_kept_op(failure, kept)
                for node in failure.nodes:
                    logger.warning("%s (%s) stays on the CPU: %s", node.name, op_name(node.target), failure.reason)
                    support.refuse(node, failure.reason)

    @classmethod
    def from_compile_specs(cls, specs: list) -> "NnapiPartitioner":
        """The partitioner that wrote a delegate with these compile specs (a .pte's
        ``BackendDelegate.compile_specs``): its options and the dynamic ranges torch.export
        validated, so partitioning the same edge program again lowers it the same way."""
        options = NnapiCompileOptions.from_compile_specs(specs)
        partitioner = cls(**dataclasses.asdict(options))
        partitioner._export_ranges = ranges_from_compile_specs(specs)
        return partitioner

    @property
    def feature_level(self) -> FeatureLevel:
        return self.options.feature_level

    def ops_to_not_decompose(
        self, ep: ExportedProgram
    ) -> tuple[list[torch._ops.OpOverload], Optional[Callable[[Node], bool]]]:
        """The ops ``to_edge`` keeps whole for NNAPI (every node of them is delegated).

        Also runs the pre-partition rewrites on ``ep`` in place (``lowering/passes/``):
        ``to_edge_transform_and_lower`` calls this on the functional program it is about
        to convert, not on the user's.
        """
        # to_edge_transform_and_lower asks twice about the same program in a row; the passes
        # are idempotent, so the second answer is the first (on a transformer, ~8 s saved).
        if self._kept_for is not None and self._kept_for[0] is ep and self._kept_for[1] == _fingerprint(ep):
            return self._kept_for[2], None
        self._real_tensors = dict(ep.state_dict)
        # to_edge re-traces the program and narrows a Dim(min=1) to [2, ...]
        # (0/1 specialization); remember the ranges export validated.
        self._export_ranges = symbol_ranges(ep)
        # ExecuTorch passes the functional program it is about to convert; with its composites
        # rewritten into core ATen, the second decomposition pass has nothing to do and is
        # skipped (about half of to_edge's time). Were this a copy, only that saving would be lost.
        result = run_pre_partition_passes(ep, self._ops_kept_whole, _default_decomposition_table())
        # Deciding per op rather than per node (no filter callable) lets
        # to_edge_transform_and_lower skip two of its decomposition passes.
        kept = sorted(result.kept, key=str)
        self._kept_for = (ep, _fingerprint(ep), kept)
        return kept, None

    def _ops_kept_whole(self, ep: ExportedProgram) -> set:
        """The ops to keep whole: those NNAPI takes at every node of them in this program (a kept
        op without a CPU kernel that we then refuse breaks lowering)."""
        support = NnapiOperatorSupport(ep, self.feature_level)
        # A non-core op NNAPI takes only from a newer level is never kept: nodes of it that a
        # decomposition makes later (SDPA's matmuls) would be refused with no CPU kernel to fall
        # back on. A core op (reflection_pad2d) has a portable kernel and stays whole on the CPU.
        candidates = {row.op for row in table_by_op().values()
                      if row.keep and (self.feature_level >= row.since or torch.Tag.core in row.op.tags)}
        # A partition whose inputs do not reveal a size it needs is left on the CPU whole
        # (partition_symbols.py): its ops must then stay decomposable. Partitions are proposed only
        # where a candidate occurs: torch's proposal retries every unmergeable pair at every node,
        # a cost growing faster than the program (~150 s of an int8 weight-only 30-layer decoder,
        # whose linears are already matmuls).
        present = {aten_op(n) for n in ep.graph.nodes if n.op == "call_function"}
        user_inputs = set(ep.graph_signature.user_inputs)
        reasons: dict[Node, str] = {}
        delegated: set[Node] = set()
        for nodes in _proposed_partitions(ep, support) if candidates & present else []:
            reason = partition_refusal(nodes, user_inputs)
            if reason:
                reasons.update({n: reason for n in nodes if aten_op(n) in candidates})
            else:
                delegated |= nodes
        refused = {aten_op(n) for n in reasons}
        for node in ep.graph.nodes:
            if node.op != "call_function" or aten_op(node) not in candidates or node in reasons:
                continue
            if node in support.foldable:
                # Computed at lowering time where a delegated node reads it (EfficientSAM's resized
                # position embedding); a constant computation nothing delegated reads stays on the CPU.
                if node not in delegated:
                    refused.add(aten_op(node))
                continue
            reason = support.refusal(node)
            if reason is not None:
                refused.add(aten_op(node))
                reasons[node] = reason
        # A core op refused stays whole on the CPU (its node is among ``decisions``); others decompose.
        decomposed = {op for op in refused if torch.Tag.core not in op.tags}
        # to_edge_transform_and_lower asks again about the program it lowered (an edge program,
        # checking that the kept ops were delegated): nothing is decomposed from that one.
        if getattr(ep, "dialect", "ATEN") != "EDGE":
            self.decomposed = _decomposed_refusals(ep, decomposed, reasons)
        return candidates - refused

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        support = NnapiOperatorSupport(exported_program, self.feature_level)
        tags: dict[str, DelegationSpec] = {}
        spec = self.delegation_spec
        if self._export_ranges:
            spec = DelegationSpec(spec.backend_id, [*spec.compile_specs, symbol_ranges_spec(self._export_ranges)])
        for partition_id, nodes in enumerate(self._lowerable_partitions(exported_program, support, spec)):
            tag = f"nnapi_{partition_id}"
            # A delegated IF / WHILE takes its bodies (get_attr nodes) into the partition.
            tag_partition(nodes, tag)
            tags[tag] = spec
        tag_constant_data(exported_program)
        if self.take_over_mutable_buffers:
            self.states = tag_mutated_buffers(exported_program)
        self._real_tensors = {}  # the weights are the model's to free
        stop_at_nodes_without_cpu_kernel(support)
        load_quantized_out_variants(n for n in exported_program.graph.nodes if "delegation_tag" not in n.meta)
        self.decisions = list(support.decisions.values())
        for d in self.decomposed:
            logger.info("NNAPI refuses %s (%s) whole, decomposed by to_edge: %s", d.node, d.op, d.reason)
        for d in self.decisions:
            if not d.supported:
                logger.info("NNAPI leaves %s (%s) on the CPU: %s", d.node, d.op, d.reason)
        return PartitionResult(tagged_exported_program=exported_program, partition_tags=tags)
