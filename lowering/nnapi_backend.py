"""NnapiBackend: turns a partition (an edge ExportedProgram) into the NNAPI blob."""

from __future__ import annotations

import logging
from typing import Any, final

import torch
from torch.export import ExportedProgram
from torch.fx import Node

from executorch.backends.transforms.utils import get_param_tensor, is_param_node
from executorch.exir._serialize._named_data_store import NamedDataStore
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec

from . import constant_folding
from .builders import get_builder
from .compile_specs import NnapiCompileOptions, ranges_from_compile_specs
from .graph import LoweringError, NnapiGraph, permute_shape
from .layout_analysis import nhwc_values, nhwc_wanted, preferred_input_order
from .lowering_context import LoweringContext
from .nnapi_codes import OperationCode
from .node_utils import aten_op, op_name, tensor_shape
from .passes import (fold_batch_norms, fuse_activations, record_channel_shuffles, record_safe_softmaxes,
                     record_view_regions)
from .serialization.blob_writer import ArgumentKind, serialize_graph
from .shape_program import ShapeProgramBuilder

logger = logging.getLogger(__name__)

# c10::ScalarType codes of the tensor dtypes a delegate argument may have.
SCALAR_TYPE_CODES = {
    torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
    torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11,
}


def lower_to_graph(edge_program: ExportedProgram, options: NnapiCompileOptions,
                   export_ranges: dict[str, tuple[int, int]] | None = None):
    """Emits the NNAPI graph of a partition; returns (graph, inputs, outputs) for serialize_graph."""
    graph = NnapiGraph(options.feature_level, ShapeProgramBuilder(edge_program.range_constraints, export_ranges))
    lc = LoweringContext(graph, edge_program)
    fx_graph = edge_program.graph_module.graph
    user_inputs = list(edge_program.graph_signature.user_inputs)

    placeholders = [n for n in fx_graph.nodes if n.op == "placeholder"]
    by_name = {n.name: n for n in placeholders}
    for node in placeholders:
        if is_param_node(edge_program, node):
            graph.set_constant(node, get_param_tensor(edge_program, node))

    input_args = []
    wanted = nhwc_wanted(fx_graph, nhwc_values(fx_graph))
    for arg_index, name in enumerate(user_inputs):
        node = by_name[name]
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            input_args.append((ArgumentKind.IGNORED, 0, 0))
            continue
        shape = tensor_shape(node)
        graph.shape_program.bind_input(arg_index, shape)
        # The runtime permutes inputs while copying them in, so an input read in
        # NHWC is declared NHWC and needs no TRANSPOSE.
        order = preferred_input_order(node, len(shape), wanted)
        operand = graph.emit_tensor(permute_shape(shape, order) or [1], val.dtype, debug_name=node.name)
        graph.model_inputs.append(operand)
        graph.set_value(node, operand, order, shape)
        input_args.append((ArgumentKind.TENSOR, operand, SCALAR_TYPE_CODES[val.dtype], order))
    graph.shape_program.finish_inputs()

    nodes = [n for n in fx_graph.nodes if n.op == "call_function"]
    # Constants first, so that the passes see folded values as constants.
    foldable = constant_folding.foldable_nodes(fx_graph, graph.is_constant)
    for node in nodes:
        if node in foldable:
            graph.set_constant(node, constant_folding.evaluate(node, graph.constant))
    fold_batch_norms(lc, nodes)
    record_channel_shuffles(lc, fx_graph)
    record_view_regions(lc, fx_graph)
    record_safe_softmaxes(lc, fx_graph)
    fuse_activations(lc, nodes)

    for node in nodes:
        if node in lc.aliases or graph.is_constant(node):
            continue
        if node in lc.emitters:  # a pass took the node over
            lc.emitters[node](node, lc)
            continue
        builder = get_builder(aten_op(node))
        if builder is None:
            raise LoweringError(f"{node.name}: no NNAPI builder for {op_name(node.target)} (partitioner bug)")
        builder.define(node, lc)

    output_node = next(n for n in fx_graph.nodes if n.op == "output")
    output_args = []
    used_as_output: set[int] = set()
    for out in output_node.args[0]:
        if not isinstance(out, Node):
            raise LoweringError(f"partition output {out!r} is not a tensor")
        source = lc.resolve(out)
        shape = tensor_shape(out)
        # Outputs leave in the order they were produced; the runtime permutes
        # them back to PyTorch's order while copying out.
        order = graph.produced_order(source)
        operand = graph.operand_of(source, order)
        if operand in used_as_output or operand in graph.model_inputs or graph.operands[operand].source != 0:
            # NNAPI outputs must be distinct non-constant, non-input operands: copy.
            copy = graph.emit_tensor(graph.operands[operand].dims, out.meta["val"].dtype, debug_name=f"{out.name}.copy")
            graph.emit_operation(OperationCode.RESHAPE,
                                 [operand, graph.emit_int32_vector(graph.operands[operand].dims)], [copy],
                                 debug_name=f"{out.name} (output copy)")
            operand = copy
        used_as_output.add(operand)
        graph.model_outputs.append(operand)
        output_args.append((ArgumentKind.TENSOR, operand, SCALAR_TYPE_CODES[out.meta["val"].dtype], order))
    return graph, input_args, output_args


@final
class NnapiBackend(BackendDetails):
    """ExecuTorch backend id "NnapiBackend" (the C++ runtime registers the same name)."""

    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> PreprocessResult:
        options = NnapiCompileOptions.from_compile_specs(compile_specs)
        graph, inputs, outputs = lower_to_graph(edge_program, options, ranges_from_compile_specs(compile_specs))
        blob = serialize_graph(graph, inputs, outputs, relax_fp32_to_fp16=options.relax_fp32_to_fp16)
        store = NamedDataStore()
        for key, data in graph.named_data.items():
            store.add_named_data(key, data, alignment=16)
        logger.debug("NNAPI partition: %d operations, %d operands, blob %d bytes, min feature level %d",
                     len(graph.operations), len(graph.operands), len(blob), graph.min_feature_level)
        return PreprocessResult(processed_bytes=blob, data_store_output=store.get_named_data_store_output())
