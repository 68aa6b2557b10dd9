"""torch.cond -> IF and torch.while_loop -> WHILE (API 30): each body (a branch, the loop's
condition or body) becomes a referenced model of the partition's NNAPI model, emitted by the same
builders as the partition itself (``LoweringContext.lower_body``; docs/control_flow.md).

Values cross a body's boundary in PyTorch's dim order. A value the outer node passes that is known
at lowering time (a parameter passed to a branch) becomes a constant of the body instead of an
operand of the operation.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import torch
from torch.fx import Node

from ..graph import SCALAR_ORDER, LoweringError, identity
from ..lowering_context import BodyInput, LoweringContext
from ..nnapi_codes import FeatureLevel, OperandCode, OperationCode
from ..node_utils import fake_value, is_tensor_node
from .integer_ranges import Range, condition_bounds
from .node_builder import BodyCheckContext, CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

higher_order = torch.ops.higher_order


def body_module(node: Node, arg: Any) -> torch.fx.GraphModule:
    """The GraphModule a control-flow node's get_attr argument names."""
    if not isinstance(arg, Node) or arg.op != "get_attr":
        raise LoweringError(f"{node.name}: expected a get_attr of a body, got {arg!r}")
    return getattr(node.graph.owning_module, arg.target)


def _placeholders(gm: torch.fx.GraphModule) -> list[Node]:
    return [n for n in gm.graph.nodes if n.op == "placeholder"]


def boundary_order(node: Node) -> tuple[int, ...]:
    """The dim order a value crosses a body's boundary in: PyTorch's ([1] for a 0-d value)."""
    rank = len(fake_value(node).shape)
    return identity(rank) if rank else SCALAR_ORDER


def _check_tensors(values: Sequence[Any], what: str) -> None:
    for v in values:
        if not is_tensor_node(v):
            raise Refused(f"{what} {v!r} is not a tensor (NNAPI passes tensors between models)")


def _check_body(node: Node, ctx: CheckContext, arg: Any, outer_values: Sequence[Node | None], what: str,
                bounds: dict[int, Range] | None = None) -> None:
    """Refuses unless NNAPI can run the body ``arg`` whole (the partitioner decides its nodes);
    ``outer_values``: per placeholder, the outer node passed (None: a value carried by a loop);
    ``bounds``: per placeholder position, bounds of its integer values whenever the body runs."""
    gm = body_module(node, arg)
    placeholders = _placeholders(gm)
    if len(placeholders) != len(outer_values):
        raise Refused(f"{what} ({arg.target}) takes {len(placeholders)} values, {len(outer_values)} are passed")
    if ctx.body_refusal is None:
        raise Refused(f"{what} ({arg.target}) cannot be checked here (no partitioner)")
    ranges = {placeholders[i]: r for i, r in (bounds or {}).items()}
    reason = ctx.body_refusal(f"{node.name}.{arg.target}", gm,
                              BodyCheckContext(ctx, dict(zip(placeholders, outer_values)), ranges))
    if reason:
        raise Refused(f"{what} ({arg.target}): {reason}")


def _sources(lc: LoweringContext, values: Sequence[Node]) -> list[BodyInput]:
    """Per body placeholder: the outer constant, or the outer operand passed to the operation."""
    sources = []
    for v in values:
        if lc.is_constant(v):
            sources.append(BodyInput(constant=lc.constant(v)))
        else:
            sources.append(BodyInput(operand=lc.operand(v, boundary_order(v))))
    return sources


def _output_signature(lc: LoweringContext, index: int) -> list[tuple]:
    """(type, dims, scale, zero point) of each output of referenced model ``index``."""
    sub = lc.graph.main.subgraphs[index]
    return [(o.type, tuple(o.dims), o.scale, o.zero_point) for o in (sub.operands[i] for i in sub.model_outputs)]


@register_builder
class CondBuilder(NodeBuilder):
    """torch.cond -> IF: both branches are referenced models, the predicate a TENSOR_BOOL8 [1]."""

    ops = (
        OpSupport(higher_order.cond, FeatureLevel.ANDROID_11, "IF",
                  "a one-element bool tensor predicate; tensor operands; both branches taken whole by NNAPI "
                  "(below API 30 the cond stays on the CPU)"),
    )
    layout = LayoutClass.PYTORCH

    def check(self, node: Node, ctx: CheckContext) -> None:
        pred, true_gm, false_gm, operands = node.args[:4]
        val = fake_value(pred) if isinstance(pred, Node) else None
        if not isinstance(val, torch.Tensor) or val.dtype != torch.bool or val.numel() != 1:
            raise Refused("the predicate is not a one-element bool tensor (a predicate on sizes stays on the CPU)")
        _check_tensors(operands, "operand")
        _check_tensors([u for u in node.users], "result")
        _check_body(node, ctx, true_gm, operands, "true branch")
        _check_body(node, ctx, false_gm, operands, "false branch")

    def define(self, node: Node, lc: LoweringContext) -> None:
        pred, true_gm, false_gm, operands = node.args[:4]
        sources = _sources(lc, operands)
        branches = [lc.lower_body(body_module(node, arg), sources, f"{node.name}.{arg.target}")
                    for arg in (true_gm, false_gm)]
        if _output_signature(lc, branches[0]) != _output_signature(lc, branches[1]):
            raise LoweringError(f"{node.name}: the two branches produce results of different NNAPI types")
        g = lc.graph
        results = _emit_outputs_like(lc, node, branches[0])
        inputs = [lc.operand(pred, boundary_order(pred)), *(g.emit_model_reference(b) for b in branches),
                  *(s.operand for s in sources if s.operand is not None)]
        g.emit_operation(OperationCode.IF, inputs, results, debug_name=node.name)


def _emit_outputs_like(lc: LoweringContext, node: Node, subgraph: int) -> list[int]:
    """Result operands of ``node`` typed like referenced model ``subgraph``'s outputs."""
    g = lc.graph
    sub = g.main.subgraphs[subgraph]
    by_index = {u.args[1]: u for u in node.users if u.target is operator.getitem}
    results = []
    for j, src in enumerate(sub.model_outputs):
        o = sub.operands[src]
        operand = g.emit_operand(o.type, o.dims, scale=o.scale, zero_point=o.zero_point, debug_name=f"{node.name}[{j}]")
        user = by_index.get(j)
        if user is not None:
            g.set_value(user, operand, boundary_order(user), lc.shape(user))
        results.append(operand)
    return results


@register_builder
class WhileLoopBuilder(NodeBuilder):
    """torch.while_loop -> WHILE: the condition and the body are referenced models; the carried
    values are the loop's input-output operands, the additional inputs its input-only operands."""

    ops = (
        OpSupport(higher_order.while_loop, FeatureLevel.ANDROID_11, "WHILE",
                  "tensor carried values and inputs (an int64 counter held in int32 when the condition "
                  "bounds it: i < n); condition and body taken whole by NNAPI "
                  "(ExecuTorch's CPU runtime cannot run a loop: lowering stops otherwise)",
                  cpu_kernel=False),
    )
    layout = LayoutClass.PYTORCH

    def check(self, node: Node, ctx: CheckContext) -> None:
        cond_gm, body_gm, carried, additional = node.args[:4]
        if not carried:
            raise Refused("the loop carries no value (NNAPI's WHILE returns the carried values)")
        _check_tensors(carried, "carried value")
        _check_tensors(additional, "input")
        values = [*(None for _ in carried), *additional]  # carried values are never constants
        _check_body(node, ctx, cond_gm, values, "condition")
        # The body runs only when the condition holds: what it proves bounds the body's values
        # (``i < n`` lets an int64 counter's ``i + 1`` be held in int32; integer_ranges.py).
        cond = body_module(node, cond_gm)
        proven = condition_bounds(cond.graph, BodyCheckContext(ctx, dict(zip(_placeholders(cond), values))))
        _check_body(node, ctx, body_gm, values, "body", proven)

    def define(self, node: Node, lc: LoweringContext) -> None:
        cond_gm, body_gm, carried, additional = node.args[:4]
        g = lc.graph
        # Carried values change from one iteration to the next: always operands.
        carried_sources = [BodyInput(operand=lc.operand(v, boundary_order(v))) for v in carried]
        sources = [*carried_sources, *_sources(lc, additional)]
        cond = lc.lower_body(body_module(node, cond_gm), sources, f"{node.name}.{cond_gm.target}")
        body = lc.lower_body(body_module(node, body_gm), sources, f"{node.name}.{body_gm.target}")
        flag = _output_signature(lc, cond)
        if len(flag) != 1 or flag[0][0] != OperandCode.TENSOR_BOOL8:
            raise LoweringError(f"{node.name}: the loop condition does not produce one bool")
        carried_types = [(o.type, tuple(o.dims), o.scale, o.zero_point)
                         for o in (g.operands[s.operand] for s in carried_sources)]
        if _output_signature(lc, body) != carried_types:
            raise LoweringError(f"{node.name}: the loop body's results differ from the carried values in "
                                "NNAPI type or shape")
        results = _emit_outputs_like(lc, node, body)
        inputs = [g.emit_model_reference(cond), g.emit_model_reference(body),
                  *(s.operand for s in sources if s.operand is not None)]
        g.emit_operation(OperationCode.WHILE, inputs, results, debug_name=node.name)
