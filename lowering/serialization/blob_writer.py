"""Writes an emitted NnapiGraph as the FlatBuffer blob (schema nnapi_blob.fbs).

The tables are flatc's object API (``flatc --python --gen-object-api``, generated at
build time into ``executorch_nnapi.blob``): the writer fills ``BlobT`` and its children
and lets the generated ``Pack`` lay them out.
"""

from __future__ import annotations

import struct
import zlib
from typing import Sequence

import flatbuffers
import numpy as np

# Generated from nnapi_blob.fbs at build time.
from executorch_nnapi.blob.ArgKind import ArgKind
from executorch_nnapi.blob.Argument import ArgumentT
from executorch_nnapi.blob.Blob import Blob, BlobT
from executorch_nnapi.blob.DimCheck import DimCheckT
from executorch_nnapi.blob.Operand import OperandT
from executorch_nnapi.blob.Operation import OperationT
from executorch_nnapi.blob.PerChannelQuant import PerChannelQuantT
from executorch_nnapi.blob.ShapeAssertion import ShapeAssertionT
from executorch_nnapi.blob.ShapeExpression import ShapeExpressionT
from executorch_nnapi.blob.ShapeInstruction import ShapeInstructionT
from executorch_nnapi.blob.ShapeOp import ShapeOp
from executorch_nnapi.blob.ShapeProgram import ShapeProgramT
from executorch_nnapi.blob.State import StateT
from executorch_nnapi.blob.Symbol import SymbolT

from ..graph import NnapiGraph, Operand, ValueSource
from ..shape_program import ShapeProgramBuilder, is_static

# Bump when a change makes old runtimes misread new blobs (runtime: kSupportedSchemaVersion).
SCHEMA_VERSION = 1
# Blobs binding a tensor at a lower rank (Argument.merged_dims), which a version-1
# runtime would misread; the others keep version 1, so older runtimes still run them.
MERGED_DIMS_SCHEMA_VERSION = 2
# Blobs with referenced models (IF / WHILE); the others keep their version.
CONTROL_FLOW_SCHEMA_VERSION = 3
# Blobs with operands filled at every execution (RUN_TIME_EXPRESSIONS); the others keep theirs.
RUN_TIME_VALUES_SCHEMA_VERSION = 4
# Blobs with delegate state, VALUES arguments, values read from inputs or assertions; the others
# keep theirs.
STATE_SCHEMA_VERSION = 5
FILE_IDENTIFIER = b"NNAB"
# vtable slot of Blob.crc32 (11th field: 4 + 2 * 10).
CRC32_VTABLE_OFFSET = 24
# Written before sealing: not the default (0), so the field is always present.
_CRC32_PLACEHOLDER = 0xFFFFFFFF
# Operand.data's force_align in the schema.
CONSTANT_ALIGNMENT = 16

# The schema's name for it is ArgKind; nnapi_backend and older callers use ArgumentKind.
ArgumentKind = ArgKind


class _Builder(flatbuffers.Builder):
    """A Builder that keeps the schema's ``force_align: 16`` on ``Operand.data``.

    flatc's Python ignores force_align, but the runtime hands inline constants to NNAPI in
    place, so they must start on a 16-byte boundary. The generated ``OperandT.Pack`` writes
    a numpy ``data`` through ``CreateNumpyVector``; ``Operand.data`` is the only uint8 array
    the writer passes, so this is the one vector the override touches.
    """

    def CreateNumpyVector(self, x: np.ndarray) -> int:  # noqa: N802 (flatbuffers' name)
        if x.dtype != np.uint8:
            return super().CreateNumpyVector(x)
        self.StartVector(1, x.size, CONSTANT_ALIGNMENT)
        self.head -= x.size
        self.Bytes[self.head:self.head + x.size] = x.data
        return self.EndVector()


def _operand(op: Operand, program: ShapeProgramBuilder) -> OperandT:
    per_channel = None
    if op.per_channel_scales is not None:
        per_channel = PerChannelQuantT(channelDim=op.per_channel_dim,
                                       scales=[float(s) for s in op.per_channel_scales])
    dim_exprs = None
    if not all(is_static(d) for d in op.dims):
        dim_exprs = [-1 if is_static(d) else program.expression(d) for d in op.dims]
    return OperandT(
        type=int(op.type),
        dims=[int(d) if is_static(d) else 0 for d in op.dims],
        dimExprs=dim_exprs,
        scale=op.scale,
        zeroPoint=op.zero_point,
        perChannel=per_channel,
        source=op.source,
        data=np.frombuffer(op.data, dtype=np.uint8) if op.data is not None else None,
        namedDataKey=op.named_data_key or None,
        valueExprs=[program.expression(v) for v in op.value_exprs] if op.value_exprs is not None else None,
        debugName=op.debug_name or None,
        subgraph=op.subgraph or 0,
        arangeStep=op.arange_step,
    )


def _model_tables(graph: NnapiGraph, program: ShapeProgramBuilder) -> BlobT:
    """A referenced model as the schema stores it: a Blob of operands, operations and model I/O."""
    return BlobT(
        operands=[_operand(op, program) for op in graph.operands],
        operations=[_operation(op, None) for op in graph.operations],
        modelInputs=list(graph.model_inputs),
        modelOutputs=list(graph.model_outputs),
    )


def _operation(op, info) -> OperationT:
    out = OperationT(type=int(op.type), inputs=list(op.inputs), outputs=list(op.outputs),
                     debugName=op.debug_name or None)
    if info is not None:
        out.debugHandles = list(info.handles) or None
        out.debugLogged = info.value_node is not None
        out.debugValueOrder = list(info.value_order) or None
    return out


def _argument(arg: tuple, program: ShapeProgramBuilder) -> ArgumentT:
    kind, operand, scalar_type, *rest = arg
    dim_order = list(rest[0]) if rest and rest[0] is not None else []
    # The identity order is written as no order (smaller blob, same meaning).
    identity = dim_order == list(range(len(dim_order)))
    merged = _merged_view(rest[1:])
    if merged is not None and not identity:
        raise ValueError(f"argument of operand {operand}: merged dims need PyTorch's dim order, not {dim_order}")
    argument = ArgumentT(kind=kind, operand=operand, scalarType=scalar_type,
                         dimOrder=None if identity else dim_order)
    if kind == ArgKind.VALUES:
        _set_tensor_dims(argument, rest[2], program)
    elif merged is not None:
        spans, tensor_shape = merged
        argument.mergedDims = list(spans)
        _set_tensor_dims(argument, tensor_shape, program)
    return argument


def _set_tensor_dims(argument: ArgumentT, tensor_shape: Sequence, program: ShapeProgramBuilder) -> None:
    """The argument's own tensor sizes (a merged or VALUES argument): static ones, and the
    expressions of dynamic ones."""
    argument.tensorDims = [int(d) if is_static(d) else 0 for d in tensor_shape]
    if not all(is_static(d) for d in tensor_shape):
        argument.tensorDimExprs = [-1 if is_static(d) else program.expression(d) for d in tensor_shape]


def _merged_view(rest: Sequence) -> tuple[list[int], list] | None:
    """(merged dims, tensor shape) of an argument bound at a lower rank, else None."""
    if len(rest) < 2 or rest[0] is None:
        return None
    spans, tensor_shape = list(rest[0]), list(rest[1])
    if sum(spans) != len(tensor_shape):
        raise ValueError(f"merged dims {spans} do not span a rank-{len(tensor_shape)} tensor")
    return spans, tensor_shape


def _shape_program(program: ShapeProgramBuilder) -> ShapeProgramT:
    return ShapeProgramT(
        symbols=[SymbolT(name=s.name, definition=s.definition, min=s.min, max=s.max) for s in program.symbols],
        expressions=[ShapeExpressionT(code=[ShapeInstructionT(op=op, arg=arg, value=value)
                                            for op, arg, value in e.code], text=e.text)
                     for e in program.expressions],
        checks=[DimCheckT(arg=c.arg, dim=c.dim, expression=c.expression) for c in program.checks],
        assertions=[ShapeAssertionT(expression=a.expression, text=a.text) for a in program.assertions] or None,
    )


def _states(graph: NnapiGraph) -> list[StateT] | None:
    for state in graph.states:
        if state.output is None:
            raise ValueError(f"state {state.name} has no new value (no model output updates it)")
    return [StateT(input=s.input, output=s.output, namedDataKey=s.named_data_key, name=s.name)
            for s in graph.states] or None


def _uses_state_features(graph: NnapiGraph, arguments: Sequence[ArgumentT]) -> bool:
    """Whether the blob needs a runtime that reads schema version 5."""
    program = graph.shape_program
    reads_values = any(op == ShapeOp.PUSH_INPUT_VALUE for e in program.expressions for op, _, _ in e.code)
    return bool(graph.states or program.assertions or reads_values
                or any(a.kind == ArgKind.VALUES for a in arguments))


def serialize_graph(
    graph: NnapiGraph,
    inputs: Sequence[tuple],
    outputs: Sequence[tuple],
    relax_fp32_to_fp16: bool = False,
    schema_version: int = SCHEMA_VERSION,
    debug_info: Sequence | None = None,
) -> bytes:
    """Serializes ``graph``.

    ``inputs``/``outputs`` list the delegate arguments as (ArgumentKind,
    operand index, c10 ScalarType code[, dim order of the NNAPI operand
    relative to the ExecuTorch tensor[, merged dims, tensor shape]]): the
    last two for a tensor bound to an operand of lower rank (see the schema).
    ``debug_info``: per operation, its OperationDebugInfo (lowering/debug_info.py).
    """
    program = graph.shape_program
    # Operands and arguments first: resolving their symbolic dims may add expressions to the program.
    operands = [_operand(op, program) for op in graph.operands]
    input_args = [_argument(a, program) for a in inputs]
    output_args = [_argument(a, program) for a in outputs]
    subgraphs = [_model_tables(sub, program) for sub in graph.subgraphs]
    if any(a.mergedDims for a in input_args + output_args):
        schema_version = max(schema_version, MERGED_DIMS_SCHEMA_VERSION)
    if subgraphs:
        schema_version = max(schema_version, CONTROL_FLOW_SCHEMA_VERSION)
    if any(op.source == ValueSource.RUN_TIME_EXPRESSIONS for op in graph.operands):
        schema_version = max(schema_version, RUN_TIME_VALUES_SCHEMA_VERSION)
    if _uses_state_features(graph, input_args):
        schema_version = max(schema_version, STATE_SCHEMA_VERSION)
    blob = BlobT(
        schemaVersion=schema_version,
        minFeatureLevel=int(graph.min_feature_level),
        operands=operands,
        operations=[_operation(op, debug_info[k] if debug_info else None) for k, op in enumerate(graph.operations)],
        modelInputs=list(graph.model_inputs),
        modelOutputs=list(graph.model_outputs),
        inputs=input_args,
        outputs=output_args,
        shapeProgram=_shape_program(program),
        relaxFp32ToFp16=bool(relax_fp32_to_fp16),
        crc32=_CRC32_PLACEHOLDER,
        subgraphs=subgraphs or None,
        states=_states(graph),
    )
    b = _Builder(1024 + sum(len(op.data or b"") for g in (graph, *graph.subgraphs) for op in g.operands))
    b.Finish(blob.Pack(b), file_identifier=FILE_IDENTIFIER)
    return seal(bytes(b.Output()))


def crc32_field_position(buffer: bytes) -> int:
    """Byte offset of the Blob.crc32 field inside ``buffer``."""
    blob = Blob.GetRootAs(buffer, 0)
    relative = blob._tab.Offset(CRC32_VTABLE_OFFSET)
    if not relative:
        raise ValueError("blob has no crc32 field")
    return blob._tab.Pos + relative


def seal(buffer: bytes) -> bytes:
    """Writes the CRC-32 of ``buffer`` (crc32 field counted as zero) into it."""
    data = bytearray(buffer)
    pos = crc32_field_position(buffer)
    data[pos:pos + 4] = b"\0\0\0\0"
    data[pos:pos + 4] = struct.pack("<I", zlib.crc32(data) & 0xFFFFFFFF)
    return bytes(data)
