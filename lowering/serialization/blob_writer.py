"""Writes an emitted NnapiGraph as the FlatBuffer blob (schema nnapi_blob.fbs)."""

from __future__ import annotations

import struct
import zlib
from typing import Sequence

import flatbuffers

from executorch_nnapi.blob import (  # generated from nnapi_blob.fbs at build time
    Argument as fb_argument,
    Blob as fb_blob,
    DimCheck as fb_dim_check,
    Operand as fb_operand,
    Operation as fb_operation,
    PerChannelQuant as fb_per_channel,
    ShapeExpression as fb_expression,
    ShapeInstruction as fb_instruction,
    ShapeProgram as fb_program,
    Symbol as fb_symbol,
)

from ..graph import NnapiGraph, ValueSource
from ..shape_program import is_static

# Bump when a change makes old runtimes misread new blobs (runtime: kSupportedSchemaVersion).
SCHEMA_VERSION = 1
FILE_IDENTIFIER = b"NNAB"
# vtable slot of Blob.crc32 (11th field: 4 + 2 * 10).
CRC32_VTABLE_OFFSET = 24


class ArgumentKind:
    TENSOR = 0
    IGNORED = 1


def _uint_vector(b: flatbuffers.Builder, start_fn, values: Sequence[int], prepend) -> int:
    start_fn(b, len(values))
    for v in reversed(values):
        prepend(int(v))
    return b.EndVector()


def _aligned_bytes(b: flatbuffers.Builder, data: bytes, alignment: int = 16) -> int:
    b.StartVector(1, len(data), alignment)
    b.head = b.head - len(data)
    b.Bytes[b.head:b.head + len(data)] = data
    return b.EndVector()


def serialize_graph(
    graph: NnapiGraph,
    inputs: Sequence[tuple[int, int, int]],
    outputs: Sequence[tuple[int, int, int]],
    relax_fp32_to_fp16: bool = False,
    schema_version: int = SCHEMA_VERSION,
) -> bytes:
    """Serializes ``graph``.

    ``inputs``/``outputs`` list the delegate arguments as (ArgumentKind,
    operand index, c10 ScalarType code[, dim order of the NNAPI operand
    relative to the ExecuTorch tensor]).
    """
    b = flatbuffers.Builder(1024 + sum(len(op.data or b"") for op in graph.operands))
    program = graph.shape_program

    def expr_index(dim) -> int:
        return -1 if is_static(dim) else program.expression(dim)

    # Operands first: resolving their symbolic dims may add expressions.
    operand_offsets = []
    for op in graph.operands:
        name = b.CreateString(op.debug_name) if op.debug_name else 0
        key = b.CreateString(op.named_data_key) if op.named_data_key else 0
        data = _aligned_bytes(b, op.data) if op.data is not None else 0
        per_channel = 0
        if op.per_channel_scales is not None:
            fb_per_channel.StartScalesVector(b, len(op.per_channel_scales))
            for s in reversed(op.per_channel_scales):
                b.PrependFloat32(float(s))
            scales = b.EndVector()
            fb_per_channel.Start(b)
            fb_per_channel.AddChannelDim(b, op.per_channel_dim)
            fb_per_channel.AddScales(b, scales)
            per_channel = fb_per_channel.End(b)
        static_dims = [int(d) if is_static(d) else 0 for d in op.dims]
        dims = _uint_vector(b, fb_operand.StartDimsVector, static_dims, b.PrependUint32)
        dim_exprs = 0
        if not all(is_static(d) for d in op.dims):
            dim_exprs = _uint_vector(b, fb_operand.StartDimExprsVector, [expr_index(d) for d in op.dims],
                                     b.PrependInt32)
        value_exprs = 0
        if op.value_exprs is not None:
            value_exprs = _uint_vector(b, fb_operand.StartValueExprsVector,
                                       [program.expression(v) for v in op.value_exprs], b.PrependInt32)
        fb_operand.Start(b)
        fb_operand.AddType(b, int(op.type))
        fb_operand.AddDims(b, dims)
        if dim_exprs:
            fb_operand.AddDimExprs(b, dim_exprs)
        fb_operand.AddScale(b, op.scale)
        fb_operand.AddZeroPoint(b, op.zero_point)
        if per_channel:
            fb_operand.AddPerChannel(b, per_channel)
        fb_operand.AddSource(b, op.source)
        if data:
            fb_operand.AddData(b, data)
        if key:
            fb_operand.AddNamedDataKey(b, key)
        if value_exprs:
            fb_operand.AddValueExprs(b, value_exprs)
        if name:
            fb_operand.AddDebugName(b, name)
        operand_offsets.append(fb_operand.End(b))

    operation_offsets = []
    for op in graph.operations:
        name = b.CreateString(op.debug_name) if op.debug_name else 0
        ins = _uint_vector(b, fb_operation.StartInputsVector, op.inputs, b.PrependUint32)
        outs = _uint_vector(b, fb_operation.StartOutputsVector, op.outputs, b.PrependUint32)
        fb_operation.Start(b)
        fb_operation.AddType(b, int(op.type))
        fb_operation.AddInputs(b, ins)
        fb_operation.AddOutputs(b, outs)
        if name:
            fb_operation.AddDebugName(b, name)
        operation_offsets.append(fb_operation.End(b))

    def arguments(start_fn, args) -> int:
        offsets = []
        for kind, operand, scalar_type, *rest in args:
            dim_order = list(rest[0]) if rest and rest[0] is not None else []
            order_vec = 0
            if dim_order and dim_order != list(range(len(dim_order))):
                fb_argument.StartDimOrderVector(b, len(dim_order))
                for d in reversed(dim_order):
                    b.PrependUint8(d)
                order_vec = b.EndVector()
            fb_argument.Start(b)
            if order_vec:
                fb_argument.AddDimOrder(b, order_vec)
            fb_argument.AddKind(b, kind)
            fb_argument.AddOperand(b, operand)
            fb_argument.AddScalarType(b, scalar_type)
            offsets.append(fb_argument.End(b))
        start_fn(b, len(offsets))
        for o in reversed(offsets):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    input_args = arguments(fb_blob.StartInputsVector, inputs)
    output_args = arguments(fb_blob.StartOutputsVector, outputs)

    # Shape program (all expressions are known now).
    expr_offsets = []
    for expr in program.expressions:
        text = b.CreateString(expr.text)
        fb_expression.StartCodeVector(b, len(expr.code))
        for op, arg, value in reversed(expr.code):
            fb_instruction.CreateShapeInstruction(b, op, arg, value)
        code = b.EndVector()
        fb_expression.Start(b)
        fb_expression.AddCode(b, code)
        fb_expression.AddText(b, text)
        expr_offsets.append(fb_expression.End(b))
    symbol_offsets = []
    for sym in program.symbols:
        name = b.CreateString(sym.name)
        fb_symbol.Start(b)
        fb_symbol.AddName(b, name)
        fb_symbol.AddDefinition(b, sym.definition)
        fb_symbol.AddMin(b, sym.min)
        fb_symbol.AddMax(b, sym.max)
        symbol_offsets.append(fb_symbol.End(b))
    check_offsets = []
    for chk in program.checks:
        fb_dim_check.Start(b)
        fb_dim_check.AddArg(b, chk.arg)
        fb_dim_check.AddDim(b, chk.dim)
        fb_dim_check.AddExpression(b, chk.expression)
        check_offsets.append(fb_dim_check.End(b))

    def table_vector(start_fn, offsets) -> int:
        start_fn(b, len(offsets))
        for o in reversed(offsets):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    exprs = table_vector(fb_program.StartExpressionsVector, expr_offsets)
    syms = table_vector(fb_program.StartSymbolsVector, symbol_offsets)
    checks = table_vector(fb_program.StartChecksVector, check_offsets)
    fb_program.Start(b)
    fb_program.AddSymbols(b, syms)
    fb_program.AddExpressions(b, exprs)
    fb_program.AddChecks(b, checks)
    shape_program = fb_program.End(b)

    operands = table_vector(fb_blob.StartOperandsVector, operand_offsets)
    operations = table_vector(fb_blob.StartOperationsVector, operation_offsets)
    model_inputs = _uint_vector(b, fb_blob.StartModelInputsVector, graph.model_inputs, b.PrependUint32)
    model_outputs = _uint_vector(b, fb_blob.StartModelOutputsVector, graph.model_outputs, b.PrependUint32)

    fb_blob.Start(b)
    fb_blob.AddSchemaVersion(b, schema_version)
    fb_blob.AddMinFeatureLevel(b, int(graph.min_feature_level))
    fb_blob.AddOperands(b, operands)
    fb_blob.AddOperations(b, operations)
    fb_blob.AddModelInputs(b, model_inputs)
    fb_blob.AddModelOutputs(b, model_outputs)
    fb_blob.AddInputs(b, input_args)
    fb_blob.AddOutputs(b, output_args)
    fb_blob.AddShapeProgram(b, shape_program)
    fb_blob.AddRelaxFp32ToFp16(b, bool(relax_fp32_to_fp16))
    fb_blob.AddCrc32(b, 0xFFFFFFFF)  # placeholder (non-default, so the field is written)
    root = fb_blob.End(b)
    b.Finish(root, file_identifier=FILE_IDENTIFIER)
    return seal(bytes(b.Output()))


def crc32_field_position(buffer: bytes) -> int:
    """Byte offset of the Blob.crc32 field inside ``buffer``."""
    blob = fb_blob.Blob.GetRootAs(buffer, 0)
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
