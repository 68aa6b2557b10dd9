"""NnapiBackend: turns a partition (an edge ExportedProgram) into the NNAPI blob."""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
from typing import Iterator, Sequence, final

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import OutputKind
from torch.fx import Node

from executorch.backends.transforms.utils import get_param_tensor, is_param_node
from executorch.exir._serialize._named_data_store import NamedDataStore
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec

from . import constant_folding
from .builders import get_builder, get_unit_builder
from .debug_info import delegate_debug_map, operation_debug_info
from .compile_specs import NnapiCompileOptions, ranges_from_compile_specs
from .graph import SCALAR_ORDER, LoweringError, NnapiGraph, NodeLoweringError, identity, merged_shape, permute_shape
from .layout_analysis import nhwc_values, nhwc_wanted, preferred_input_order
from .lowering_context import QUANTIZED_TYPES, BodyInput, LoweringContext
from .nnapi_codes import FeatureLevel, OperandCode, OperationCode
from .node_utils import aten_op, is_dequantize, is_per_channel, op_name, quant_params, tensor_shape
from .patterns import PatternAnalysis
from .program_analysis import analyze_program
from .serialization.blob_writer import ArgumentKind, serialize_graph
from .serialization.scalar_types import scalar_type_code
from .shape_program import ShapeProgramBuilder, as_dim, describe_unsupported, is_static
from .size_nodes import assertion_values, is_size_node, read_symbol, value_element

logger = logging.getLogger(__name__)


def lower_to_graph(edge_program: ExportedProgram, options: NnapiCompileOptions,
                   export_ranges: dict[str, tuple[int, int]] | None = None):
    """Emits the NNAPI graph of a partition; returns (graph, inputs, outputs) for serialize_graph."""
    graph = NnapiGraph(options.feature_level, ShapeProgramBuilder(edge_program.range_constraints, export_ranges))
    fx_graph = edge_program.graph_module.graph
    states = mutated_buffers(edge_program)
    for node in fx_graph.nodes:
        if node.op == "placeholder" and is_param_node(edge_program, node) and node.name not in states:
            graph.set_constant(node, get_param_tensor(edge_program, node))
    input_args = _declare_inputs(graph, edge_program)
    _declare_assertions(graph, fx_graph)
    _declare_states(graph, edge_program, states)
    # Constants first (in _emit_graph), so that the matchers see folded values as known.
    lc = _emit_graph(graph, edge_program, fx_graph)
    output_args = _declare_outputs(lc, fx_graph, _mutation_targets(edge_program, states))
    nodes = [n for n in fx_graph.nodes if n.op == "call_function"]
    graph.debug_info = operation_debug_info(graph, lc.resolve, nodes)
    return graph, input_args, output_args


def _emit_graph(graph: NnapiGraph, edge_program: ExportedProgram, fx_graph: torch.fx.Graph) -> LoweringContext:
    """Folds the constant nodes of ``fx_graph``, then emits the others into ``graph`` (a partition's
    model or a control-flow body's referenced model) with their builders."""
    nodes = [n for n in fx_graph.nodes if n.op == "call_function"]
    foldable = constant_folding.foldable_nodes(fx_graph, graph.is_constant)
    for node in nodes:
        if node in foldable:
            graph.set_constant(node, constant_folding.evaluate(node, graph.constant))
    analysis = analyze_program(fx_graph, lambda n: isinstance(n, Node) and graph.is_constant(n))
    lc = LoweringContext(graph, edge_program, analysis.units)
    lc.lower_body = functools.partial(_lower_body, graph, edge_program)
    _emit_nodes(lc, nodes, analysis)
    return lc


def _lower_body(outer: NnapiGraph, edge_program: ExportedProgram, gm: torch.fx.GraphModule,
                inputs: Sequence[BodyInput], name: str) -> int:
    """Emits a control-flow body (a branch of cond, the condition or body of while_loop) as a new
    referenced model: its placeholders are model inputs typed like the outer operands passed (or
    constants), its results model outputs in PyTorch's dim order. Returns the model's index."""
    index, graph = outer.new_subgraph()
    fx_graph = gm.graph
    placeholders = [n for n in fx_graph.nodes if n.op == "placeholder"]
    for node, source in zip(placeholders, inputs):
        if source.constant is not None:
            graph.set_constant(node, source.constant)
            continue
        o = outer.operands[source.operand]
        operand = graph.emit_operand(o.type, o.dims, scale=o.scale, zero_point=o.zero_point, debug_name=node.name)
        graph.model_inputs.append(operand)
        shape = tensor_shape(node)
        graph.set_value(node, operand, identity(len(shape)) if shape else SCALAR_ORDER, shape)
    for node in fx_graph.nodes:
        if node.op == "get_attr" and isinstance(getattr(gm, node.target), torch.Tensor):
            graph.set_constant(node, getattr(gm, node.target))
    lc = _emit_graph(graph, edge_program, fx_graph)
    results = next(n for n in fx_graph.nodes if n.op == "output").args[0]
    for out in results if isinstance(results, (tuple, list)) else [results]:  # a loop condition: one bool
        shape = tensor_shape(out)
        operand = graph.operand_of(lc.resolve(out), identity(len(shape)) if shape else SCALAR_ORDER)
        graph.model_outputs.append(_distinct_output(graph, operand, f"{name}.{out.name}"))
    if not graph.model_inputs:
        raise LoweringError(f"{name}: a referenced model needs at least one input (every value it reads is constant)")
    return index


def _distinct_output(graph: NnapiGraph, operand: int, name: str) -> int:
    """``operand``, or a copy of it when it cannot be a model output: NNAPI outputs must be
    distinct operations' results, neither inputs nor constants."""
    if operand not in graph.model_outputs and operand not in graph.model_inputs and \
            graph.operands[operand].source == 0:
        return operand
    src = graph.operands[operand]
    copy = graph.emit_operand(src.type, src.dims, scale=src.scale, zero_point=src.zero_point, debug_name=f"{name}.copy")
    code, inputs = _copy_operation(graph, operand)
    graph.emit_operation(code, inputs, [copy], debug_name=f"{name} (output copy)")
    return copy


def _copy_operation(graph: NnapiGraph, operand: int) -> tuple[OperationCode, list[int]]:
    """An operation whose result equals ``operand``: RESHAPE to its own dims, which takes no
    TENSOR_INT32 before feature level 6 (hf:cpmant's int32 mask, a cast of an int64 input, copied
    out by RESHAPE was refused at addOperation); for int32, an identity CAST at API 30 and a TILE
    by ones at API 29; for bool (TENSOR_BOOL8, which no RESHAPE takes: hf:deepseek_v4's mask),
    LOGICAL_OR of the value with itself (bool values exist from API 29, as LOGICAL_OR)."""
    src = graph.operands[operand]
    if src.type == OperandCode.TENSOR_BOOL8:
        return OperationCode.LOGICAL_OR, [operand, operand]
    if src.type != OperandCode.TENSOR_INT32 or graph.feature_level >= FeatureLevel.FEATURE_LEVEL_6 or not src.dims:
        return OperationCode.RESHAPE, [operand, graph.emit_int32_vector(src.dims)]
    if graph.feature_level >= FeatureLevel.ANDROID_11:
        return OperationCode.CAST, [operand]
    return OperationCode.TILE, [operand, graph.emit_int32_vector([1] * len(src.dims))]


def _declare_inputs(graph: NnapiGraph, edge_program: ExportedProgram) -> list[tuple]:
    """Model inputs for the partition's user inputs, each in the dim order its readers want."""
    fx_graph = edge_program.graph_module.graph
    by_name = {n.name: n for n in fx_graph.nodes if n.op == "placeholder"}
    input_args = []
    arg_of: dict[Node, int] = {}
    wanted = nhwc_wanted(fx_graph, nhwc_values(fx_graph))
    for arg_index, name in enumerate(edge_program.graph_signature.user_inputs):
        node = by_name[name]
        val = node.meta.get("val")
        if isinstance(val, torch.SymInt) and not is_static(as_dim(val)) and not describe_unsupported([as_dim(val)]):
            # A size the CPU computed (e.g. sym_size of the program's input, for a view):
            # it may reveal a symbol no tensor input reveals, or confirm the one chosen.
            graph.shape_program.bind_input(arg_index, [as_dim(val)], optional=True)
            input_args.append((ArgumentKind.INT, 0, 0))
            continue
        if not isinstance(val, torch.Tensor):
            input_args.append((ArgumentKind.IGNORED, 0, 0))
            continue
        shape = tensor_shape(node)
        graph.shape_program.bind_input(arg_index, shape)
        arg_of[node] = arg_index
        if node.users and all(is_size_node(u) for u in node.users):
            # Read only as numbers and sizes (a language model's position): no operand.
            input_args.append((ArgumentKind.VALUES, 0, scalar_type_code(val.dtype), None, None, shape or [1]))
            continue
        if len(shape) > MAX_OPERAND_RANK:
            # NNAPI takes rank <= 4: the runtime binds the same bytes as a 4-D view.
            merged = input_view(len(shape))
            operand = _input_operand(graph, node, merged_shape(shape, merged))
            graph.model_inputs.append(operand)
            graph.set_merged_value(node, operand, merged, shape)
            input_args.append((ArgumentKind.TENSOR, operand, scalar_type_code(val.dtype), None, merged, shape))
            continue
        # The runtime permutes inputs while copying them in, so an input read in
        # NHWC is declared NHWC and needs no TRANSPOSE.
        order = preferred_input_order(node, len(shape), wanted)
        operand = _input_operand(graph, node, permute_shape(shape, order) or [1])
        graph.model_inputs.append(operand)
        graph.set_value(node, operand, order, shape)
        input_args.append((ArgumentKind.TENSOR, operand, scalar_type_code(val.dtype), order))
    _bind_read_values(graph, fx_graph, arg_of)
    graph.shape_program.finish_inputs()
    return input_args


def _bind_read_values(graph: NnapiGraph, fx_graph: torch.fx.Graph, arg_of: dict[Node, int]) -> None:
    """Defines each symbol the partition reads from a tensor (``input_pos[0].item()``) as the
    element of the delegate input it comes from, which the runtime reads at every execution."""
    for node in fx_graph.nodes:
        symbol = read_symbol(node) if node.op == "call_function" else None
        if symbol is None:
            continue
        found = value_element(node.args[0])
        if found is None or found[0] not in arg_of:
            raise LoweringError(f"{node.name}: reads a number from a tensor the delegate does not receive "
                                "(partitioner bug)")
        graph.shape_program.bind_input_value(arg_of[found[0]], found[1], symbol)


def _declare_assertions(graph: NnapiGraph, fx_graph: torch.fx.Graph) -> None:
    """torch.export's runtime assertions on sizes (``_assert_scalar``: position + tokens <=
    context) as shape-program assertions, checked by the runtime at every execution."""
    for node in fx_graph.nodes:
        if node.op != "call_function" or aten_op(node) != torch.ops.aten._assert_scalar.default:
            continue
        values = assertion_values(node.args[0])
        if values is None:
            raise LoweringError(f"{node.name}: an assertion the shape program cannot check (partitioner bug)")
        # The condition over the symbols the shape program names (torch.export's message may
        # use the names of the program before to_edge re-traced it).
        text = str(node.args[0].meta["val"].node.expr)
        for value in values:
            graph.shape_program.assert_nonnegative(value, text)


def mutated_buffers(edge_program: ExportedProgram) -> dict[str, str]:
    """The partition's buffers that it mutates (placeholder name -> buffer name): ExecuTorch
    handed them to the delegate (the partitioner tagged them), which keeps them as state."""
    signature = edge_program.graph_signature
    mutated = set(signature.buffers_to_mutate.values())
    return {name: target for name, target in signature.inputs_to_buffers.items() if target in mutated}


def _declare_states(graph: NnapiGraph, edge_program: ExportedProgram, states: dict[str, str]) -> None:
    """A model input per mutated buffer, in PyTorch's dim order, holding its value before the
    execution; the runtime keeps the value (initially the buffer's) between executions."""
    for node in edge_program.graph_module.graph.nodes:
        if node.op == "placeholder" and node.name in states:
            operand = graph.emit_state(get_param_tensor(edge_program, node), states[node.name], node.name)
            shape = tensor_shape(node)
            graph.set_value(node, operand, identity(len(shape)) if shape else SCALAR_ORDER, shape)


# NNAPI operations take tensors of rank <= 4.
MAX_OPERAND_RANK = 4


def input_view(rank: int) -> tuple[int, ...]:
    """How a partition input of rank > 4 is bound: its last two dims as the H, W of a
    batch of one-channel images, [N*C*D, H, W, 1] for [N, C, D, H, W] (the view the
    first step of a 3-D pool reads; other readers RESHAPE it)."""
    return (rank - 2, 1, 1, 0)


def _input_operand(graph: NnapiGraph, node: Node, dims: list) -> int:
    """The model input for ``node``; an 8-bit input (quantized on the CPU, e.g. below
    API 29 where NNAPI has no QUANTIZE) takes the parameters of the dequantize reading it."""
    dtype = node.meta["val"].dtype
    if dtype not in QUANTIZED_TYPES:
        return graph.emit_tensor(dims, dtype, debug_name=node.name)
    params = {quant_params(u) for u in node.users if is_dequantize(u) and not is_per_channel(u)}
    if len(params) != 1 or len(node.users) != len(params) and not all(is_dequantize(u) for u in node.users):
        raise LoweringError(f"{node.name}: 8-bit partition input not read by dequantize nodes of one scale")
    p = params.pop()
    return graph.emit_operand(QUANTIZED_TYPES[dtype], dims, scale=p.scale, zero_point=p.zero_point,
                              debug_name=node.name)


def _unit_ready(unit, node: Node, position: dict[Node, int]) -> bool:
    """Whether every value the unit reads from outside comes before ``node``. A unit
    is emitted at its first node that follows them all: a view chain's broadcast
    operand (a view of a run-time value) may come before the chain's own input."""
    inside = set(unit.nodes)
    return all(position.get(i, -1) < position[node]
               for m in inside for i in m.all_input_nodes if i not in inside)


def _emit_nodes(lc: LoweringContext, nodes: list[Node], analysis: PatternAnalysis) -> None:
    """Hands each unit to its builder (at its first node after its inputs) and every other
    node to its op's builder."""
    emitted: set[int] = set()
    position = {n: i for i, n in enumerate(nodes)}
    for node in nodes:
        if node in lc.aliases or lc.graph.is_constant(node) or is_size_node(node):
            continue  # a size node's work is the shape program's
        unit = analysis.covering(node)
        if unit is not None:
            if id(unit) not in emitted and _unit_ready(unit, node, position):
                emitted.add(id(unit))
                lc.graph.emitting = tuple(unit.nodes)
                with _failure_named(unit.nodes, f"{type(unit).__name__} from {node.name}"):
                    get_unit_builder(unit).define(unit, lc)
                lc.graph.emitting = ()
            continue
        builder = get_builder(aten_op(node))
        if builder is None:
            raise LoweringError(f"{node.name}: no NNAPI builder for {op_name(node.target)} (partitioner bug)")
        # A node whose unit is folded into it (batch norm and activation, dq -> op -> q) maps to all of it.
        member_of = lc.unit_of(node)
        lc.graph.emitting = tuple(member_of.nodes) if member_of is not None else (node,)
        with _failure_named([node], f"{node.name} ({op_name(node.target)})"):
            builder.define(node, lc)
        lc.graph.emitting = ()


@contextlib.contextmanager
def _failure_named(nodes: Sequence[Node], what: str) -> Iterator[None]:
    """Re-raises a builder's failure as a NodeLoweringError naming ``nodes`` (a failure inside a
    control-flow body is named after the outer node that holds the body)."""
    try:
        yield
    except Exception as error:  # noqa: BLE001  (whatever failed, the node is named)
        detail = error.args[0] if isinstance(error, NodeLoweringError) else f"{type(error).__name__}: {error}"
        raise NodeLoweringError(tuple(n.name for n in nodes), f"{what}: {detail}") from error


def _mutation_targets(edge_program: ExportedProgram, states: dict[str, str]) -> list[str | None]:
    """Per result of the partition: the state whose new value it is, or None for a delegate output."""
    kept = set(states.values())
    return [spec.target if spec.kind == OutputKind.BUFFER_MUTATION and spec.target in kept else None
            for spec in edge_program.graph_signature.output_specs]


def _declare_outputs(lc: LoweringContext, fx_graph: torch.fx.Graph, mutations: list[str | None]) -> list[tuple]:
    """Model outputs for the partition's outputs, each left in the order it was produced, and
    for the new values of its states (``mutations``: per result, the state it updates, if any)."""
    graph = lc.graph
    output_node = next(n for n in fx_graph.nodes if n.op == "output")
    results = list(output_node.args[0])
    if len(results) != len(mutations):
        raise LoweringError(f"the partition has {len(results)} results but {len(mutations)} output specs")
    states = {state.name: state for state in graph.states}
    for target, out in zip(mutations, results):
        if target is None:
            continue
        shape = graph.logical_shape(lc.resolve(out))
        operand = graph.operand_of(lc.resolve(out), identity(len(shape)) if shape else SCALAR_ORDER)
        states[target].output = _distinct_output(graph, operand, f"{target} (new value)")
        graph.model_outputs.append(states[target].output)
    output_args = []
    for target, out in zip(mutations, results):
        if target is not None:
            continue
        if not isinstance(out, Node):
            raise LoweringError(f"partition output {out!r} is not a tensor")
        source = lc.resolve(out)
        # The runtime permutes outputs back to PyTorch's order while copying out.
        order = graph.produced_order(source)
        value = graph.value(source, order)
        operand = _distinct_output(graph, value.operand, out.name)
        graph.model_outputs.append(operand)
        view = (None, value.merged, graph.logical_shape(source)) if value.merged is not None else (order,)
        output_args.append((ArgumentKind.TENSOR, operand, scalar_type_code(out.meta["val"].dtype), *view))
    return output_args


@final
class NnapiBackend(BackendDetails):
    """ExecuTorch backend id "NnapiBackend" (the C++ runtime registers the same name)."""

    @classmethod
    def copy_exported_program_for_preprocess(cls, edge_program: ExportedProgram,
                                             compile_specs: list[CompileSpec]) -> ExportedProgram:
        """The partition's program for ``preprocess``: a copy of its graph and signature, sharing
        its parameters, buffers and constants, which preprocess only reads (ExecuTorch's default
        deep copy would hold every weight twice while lowering: for a language model of one
        partition, the whole model)."""
        tensors = (*edge_program.state_dict.values(), *edge_program.constants.values())
        return copy.deepcopy(edge_program, {id(t): t for t in tensors if isinstance(t, torch.Tensor)})

    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> PreprocessResult:
        options = NnapiCompileOptions.from_compile_specs(compile_specs)
        graph, inputs, outputs = lower_to_graph(edge_program, options, ranges_from_compile_specs(compile_specs))
        blob = serialize_graph(graph, inputs, outputs, relax_fp32_to_fp16=options.relax_fp32_to_fp16,
                               debug_info=graph.debug_info)
        store = NamedDataStore()
        for key, data in graph.named_data.items():
            store.add_named_data(key, data, alignment=16)
        logger.debug("NNAPI partition: %d operations, %d operands, blob %d bytes, min feature level %d",
                     len(graph.operations), len(graph.operands), len(blob), graph.min_feature_level)
        return PreprocessResult(processed_bytes=blob, data_store_output=store.get_named_data_store_output(),
                                debug_handle_map=delegate_debug_map(graph.debug_info))
