"""The partitioner's last line of defence: every proposed partition is lowered once before it is
tagged, and a node whose builder fails there is refused with the failure as its reason.

A builder's ``check`` decides whether the partitioner claims a node, its ``define`` emits it; the
two should agree, but when they do not (a form ``check`` did not foresee, a value reaching the
builder in a form it cannot read: hiera's comparison of a rank-5 partition input), the failure
would surface in ``NnapiBackend.preprocess``, after partitioning, as an exception ExecuTorch
cannot recover from. Here it surfaces while the node can still stay on the CPU: the partitioner
refuses the node (or the unit) named by the failure and proposes the partitions again.

The partitions are lowered as ExecuTorch will lower them: on a copy of the tagged program, cut
into partition programs by ExecuTorch's own functions (the same placeholders, the same duplicated
constants, the same delegate states). The program ExecuTorch gives a partitioner holds fake
parameters; the copy holds the real tensors their fake mode made them from (or those the
partitioner saw before ``to_edge`` under the same names); a partition reading a parameter whose
value is unknown is not lowered here.
"""

from __future__ import annotations

import copy as copying
import dataclasses
import logging
from typing import Any, Iterable, Mapping, Sequence

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram
from torch.fx import Graph, GraphModule, Node

from executorch.exir.backend.partitioner import DelegationSpec, PartitionResult
from executorch.exir.backend.utils import _maybe_duplicate_constant_nodes, tag_constant_data
# ExecuTorch's own partition cutting (private: the same functions to_backend runs, not copies).
from executorch.exir.backend.backend_api import _create_partitions_in_graph_module

from executorch_nnapi.lowering.compile_specs import NnapiCompileOptions
from executorch_nnapi.lowering.graph import NodeLoweringError
from executorch_nnapi.lowering.nnapi_backend import lower_to_graph
from executorch_nnapi.lowering.node_utils import aten_op, op_name, source_location

from .mutable_buffers import tag_mutated_buffers

__all__ = ["KeptOpLoweringError", "LoweringFailure", "lowering_failures", "stop_at_a_kept_op", "tag_partition"]

logger = logging.getLogger(__name__)

TAG = "delegation_tag"


@dataclasses.dataclass(frozen=True)
class LoweringFailure:
    """A partition's lowering failed at ``nodes`` (nodes of the partitioned program) for ``reason``."""

    nodes: tuple[Node, ...]
    reason: str


class KeptOpLoweringError(RuntimeError):
    """NNAPI's lowering failed at a node of an op ``to_edge`` kept whole for NNAPI: it cannot stay
    on the CPU (ExecuTorch requires every kept op to be delegated), so lowering stops there."""


def stop_at_a_kept_op(failure: LoweringFailure, kept_ops: set) -> None:
    """Raises :class:`KeptOpLoweringError` if ``failure`` names a node of one of ``kept_ops``
    (the ops the partitioner asked ``to_edge`` not to decompose)."""
    for node in failure.nodes:
        if aten_op(node) in kept_ops:
            where = source_location(node) or "no source line recorded"
            raise KeptOpLoweringError(
                f"{node.name} ({op_name(node.target)}, {where}): {failure.reason}. NNAPI asked to_edge to keep "
                f"{op_name(node.target)} whole, so it cannot fall back to the CPU; this is a gap in "
                "executorch_nnapi's lowering of it (please report it with this message)")


def tag_partition(nodes: Sequence[Node], tag: str) -> None:
    """Tags ``nodes`` with ``tag``, and the bodies (get_attr nodes) of a control-flow node among them."""
    for node in nodes:
        node.meta[TAG] = tag
        for arg in node.args:
            if isinstance(arg, Node) and arg.op == "get_attr" and len(arg.users) == 1:
                arg.meta[TAG] = tag


def lowering_failures(program: ExportedProgram, partitions: Sequence[set[Node]], spec: DelegationSpec,
                      options: NnapiCompileOptions, export_ranges: Mapping[str, tuple[int, int]], *,
                      take_over_mutable_buffers: bool, real_tensors: Mapping[str, torch.Tensor],
                      lowered: set[frozenset[str]]) -> list[LoweringFailure]:
    """Lowers each of ``partitions`` (node sets of ``program``, which stays untouched) and returns
    one failure per partition that failed. ``lowered``: the node-name sets lowered without failure
    before (skipped, and extended with those that pass now)."""
    try:
        copy, by_name = _program_copy(program, real_tensors)
        tags = {}
        for index, nodes in enumerate(partitions):
            tag = f"dry_run_{index}"
            tag_partition([by_name[n.name] for n in nodes], tag)
            tags[tag] = spec
        tag_constant_data(copy)
        if take_over_mutable_buffers:
            tag_mutated_buffers(copy)
        for tag in tags:
            _maybe_duplicate_constant_nodes(copy, tag)
        created = _create_partitions_in_graph_module(copy.graph_module, PartitionResult(copy, tags), copy, False)
    except Exception as error:  # noqa: BLE001  (the dry run is a safeguard; lowering goes on without it)
        logger.warning("NNAPI's dry run of the partitions could not cut them (%s: %s); partitions are not "
                       "checked by lowering", type(error).__name__, error)
        return []
    failures = []
    for call in (c for calls in created.values() for c in calls):
        sub_program = call.meta["submodule_program"]
        index = _partition_index(sub_program)
        names = frozenset(n.name for n in partitions[index])
        if names in lowered or any(isinstance(v, FakeTensor) for v in sub_program.state_dict.values()):
            continue  # lowered before, or reads a parameter whose value is unknown here
        failure = _lowering_failure(sub_program, partitions[index], options, export_ranges)
        if failure is None:
            lowered.add(names)
        else:
            failures.append(failure)
    return failures


def _lowering_failure(sub_program: ExportedProgram, nodes: set[Node], options: NnapiCompileOptions,
                      export_ranges: Mapping[str, tuple[int, int]]) -> LoweringFailure | None:
    """Lowers one partition's program; on failure, the nodes of ``nodes`` named by it (all of
    them when the failure names none: declaring the partition's inputs or outputs)."""
    try:
        lower_to_graph(sub_program, options, dict(export_ranges))
    except Exception as error:  # noqa: BLE001  (any failure refuses what failed)
        by_name = {n.name: n for n in nodes}
        named = error.nodes if isinstance(error, NodeLoweringError) else ()
        failed = tuple(by_name[n] for n in named if n in by_name) or tuple(nodes)
        detail = str(error) if isinstance(error, NodeLoweringError) else f"{type(error).__name__}: {error}"
        return LoweringFailure(failed, f"NNAPI's lowering of this node failed ({detail})")
    return None


def _partition_index(sub_program: ExportedProgram) -> int:
    """Which partition a cut partition program holds (from its nodes' tag)."""
    for node in sub_program.graph.nodes:
        tag = node.meta.get(TAG)
        if tag is not None:
            return int(tag.rsplit("_", 1)[1])
    raise ValueError("a partition program without tagged nodes")


def _program_copy(program: ExportedProgram, real_tensors: Mapping[str, torch.Tensor]
                  ) -> tuple[ExportedProgram, dict[str, Node]]:
    """A copy of ``program`` to cut (its graph's nodes with the same names and shallow copies of
    their meta, its signature, real parameters) and its nodes by name."""
    graph = Graph()
    values: dict[Node, Node] = {}
    result = graph.graph_copy(program.graph, values, return_output_node=True)
    outputs, old_output = result  # type: ignore[misc]
    graph.output(outputs).meta = dict(old_output.meta)  # node_copy copies meta dicts too: tags stay on the copy
    module = GraphModule(program.graph_module, graph)
    state = _real_state(program.state_dict, real_tensors)
    copy = ExportedProgram(root=module, graph=module.graph, graph_signature=copying.deepcopy(program.graph_signature),
                           state_dict=state, range_constraints=copying.deepcopy(program.range_constraints),
                           module_call_graph=copying.deepcopy(program.module_call_graph),
                           constants=dict(program.constants), verifiers=[program.verifier])
    return copy, {n.name: n for n in copy.graph.nodes}


def _real_state(state: Mapping[str, Any], real_tensors: Mapping[str, torch.Tensor]) -> dict[str, Any]:
    """``state`` (a fake state dict) with each fake tensor replaced by the real tensor it was made
    from, where that is known: from the fake mode's record of the tensors it converted, else from
    ``real_tensors`` by name and shape. Unknown ones stay fake (their partitions are not lowered)."""
    behind = _tensors_behind_fakes(state.values())
    result = {}
    for name, value in state.items():
        real = behind.get(id(value))
        if real is None:
            real = real_tensors.get(name)
        same = isinstance(real, torch.Tensor) and isinstance(value, torch.Tensor) and real.shape == value.shape \
            and real.dtype == value.dtype
        result[name] = real if same else value
    return result


def _tensors_behind_fakes(values: Iterable[Any]) -> dict[int, torch.Tensor]:
    """id(fake tensor) -> the real tensor its fake mode made it from (ExecuTorch's fake program
    converts each parameter with ``FakeTensorMode.from_tensor``, which remembers the real tensor by
    a weak reference). Empty if torch keeps that record elsewhere."""
    found: dict[int, torch.Tensor] = {}
    converters = {id(c): c for c in (_converter(v) for v in values) if c is not None}
    for converter in converters.values():
        try:
            fakes = dict(converter.tensor_memo.items())
            for real, meta_id in converter.describer.lookup_tensor.items():
                fake = fakes.get(meta_id)
                if fake is not None:
                    found[id(fake)] = real
        except (AttributeError, TypeError):  # a torch without this record: names alone are used
            continue
    return found


def _converter(value: Any) -> Any:
    """The meta converter of a fake tensor's fake mode, else None."""
    mode = getattr(value, "fake_mode", None)
    return getattr(getattr(mode, "fake_tensor_converter", None), "meta_converter", None)
