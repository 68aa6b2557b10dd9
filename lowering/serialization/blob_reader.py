"""Reads a delegate blob back (reports, tests, the numerics debugger)."""

from __future__ import annotations

import dataclasses

from executorch_nnapi.blob import Blob as fb_blob
from executorch_nnapi.blob.ValueSource import ValueSource

from ..nnapi_codes import OperandCode, OperationCode

_QUANT8 = frozenset({OperandCode.TENSOR_QUANT8_ASYMM, OperandCode.TENSOR_QUANT8_ASYMM_SIGNED,
                     OperandCode.TENSOR_QUANT8_SYMM, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL})
_FLOAT = frozenset({OperandCode.TENSOR_FLOAT32, OperandCode.TENSOR_FLOAT16})


@dataclasses.dataclass
class BlobSummary:
    """What a blob contains, in plain Python."""

    schema_version: int
    min_feature_level: int
    operation_types: list[str]
    operation_debug_names: list[str]
    operand_count: int
    named_data_keys: list[str]
    symbols: list[tuple[str, int, int]]
    inline_bytes: int
    # Per delegate argument: the logical dims of the NNAPI operand, outermost first
    # (the order NNAPI holds it in at the boundary; () for the same order as PyTorch's).
    input_dim_orders: list[tuple[int, ...]] = dataclasses.field(default_factory=list)
    output_dim_orders: list[tuple[int, ...]] = dataclasses.field(default_factory=list)
    # Per delegate argument: how many tensor dims each operand dim spans when a tensor of
    # rank > 4 is bound as a lower-rank operand (e.g. (3, 1, 1, 0)); () when not merged.
    input_merged_dims: list[tuple[int, ...]] = dataclasses.field(default_factory=list)
    output_merged_dims: list[tuple[int, ...]] = dataclasses.field(default_factory=list)
    # Per delegate argument: (ExecuTorch ScalarType code, NNAPI operand type code); an int64
    # tensor (4) held in TENSOR_INT32 (4) is narrowed / widened by the runtime.
    input_types: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    output_types: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    # Per operation, what it computes on (see :func:`_precision`): "8-bit", "float", "edge"
    # (a QUANTIZE of a model input or a DEQUANTIZE into a model output), "conversion" (a
    # QUANTIZE / DEQUANTIZE between two operations of the partition), "weight" (a DEQUANTIZE
    # of an 8-bit constant, weight-only int8, or a GATHER of an 8-bit table's rows and their
    # DEQUANTIZE) or "other".
    operation_precisions: list[str] = dataclasses.field(default_factory=list)
    # Per operation: the debug handles of its FX nodes, and whether the runtime logs its
    # output 0 as an intermediate (lowering/debug_info.py).
    operation_debug_handles: list[tuple[int, ...]] = dataclasses.field(default_factory=list)
    operation_logged: list[bool] = dataclasses.field(default_factory=list)
    # Per referenced model (the bodies of IF / WHILE, Blob.subgraphs): its operations.
    subgraph_operation_types: list[list[str]] = dataclasses.field(default_factory=list)
    # How many shape expressions the runtime evaluates at every execution for the values it
    # gives NNAPI as extra inputs (RUN_TIME_EXPRESSIONS operands: indices at a position read
    # from a tensor).
    run_time_expressions: int = 0

    def count(self, name: str) -> int:
        return sum(1 for t in self.operation_types if t == name)


def _op_name(code: int) -> str:
    try:
        return OperationCode(code).name
    except ValueError:
        return f"OPERATION_{code}"


def read_blob(buffer: bytes) -> BlobSummary:
    """Parses ``buffer`` (no verification beyond the file identifier)."""
    if not fb_blob.Blob.BlobBufferHasIdentifier(buffer, 0):
        raise ValueError("not an NNAPI delegate blob (file identifier is not 'NNAB')")
    blob = fb_blob.Blob.GetRootAs(buffer, 0)
    ops = [blob.Operations(i) for i in range(blob.OperationsLength())]
    operands = [blob.Operands(i) for i in range(blob.OperandsLength())]
    weight_rows = _weight_rows(ops, operands)
    program = blob.ShapeProgram()
    symbols = []
    if program is not None:
        for i in range(program.SymbolsLength()):
            s = program.Symbols(i)
            symbols.append((s.Name().decode(), s.Min(), s.Max()))
    return BlobSummary(
        schema_version=blob.SchemaVersion(),
        min_feature_level=blob.MinFeatureLevel(),
        operation_types=[_op_name(op.Type()) for op in ops],
        operation_debug_names=[(op.DebugName() or b"").decode() for op in ops],
        operand_count=len(operands),
        named_data_keys=sorted({o.NamedDataKey().decode() for o in operands if o.NamedDataKey()}),
        symbols=symbols,
        inline_bytes=sum(o.DataLength() for o in operands),
        input_dim_orders=[_dim_order(blob.Inputs(i)) for i in range(blob.InputsLength())],
        output_dim_orders=[_dim_order(blob.Outputs(i)) for i in range(blob.OutputsLength())],
        input_merged_dims=[_merged_dims(blob.Inputs(i)) for i in range(blob.InputsLength())],
        output_merged_dims=[_merged_dims(blob.Outputs(i)) for i in range(blob.OutputsLength())],
        input_types=[_types(blob.Inputs(i), operands) for i in range(blob.InputsLength())],
        output_types=[_types(blob.Outputs(i), operands) for i in range(blob.OutputsLength())],
        operation_precisions=[_precision(blob, op, operands, weight_rows) for op in ops],
        operation_debug_handles=[tuple(int(h) for h in op.DebugHandlesAsNumpy()) if op.DebugHandlesLength() else ()
                                 for op in ops],
        operation_logged=[bool(op.DebugLogged()) for op in ops],
        subgraph_operation_types=[[_op_name(sub.Operations(i).Type()) for i in range(sub.OperationsLength())]
                                  for sub in (blob.Subgraphs(k) for k in range(blob.SubgraphsLength()))],
        run_time_expressions=sum(o.ValueExprsLength() for o in operands
                                 if o.Source() == ValueSource.RUN_TIME_EXPRESSIONS),
    )


def _types(argument, operands) -> tuple[int, int]:
    return argument.ScalarType(), operands[argument.Operand()].Type()


def _weight_rows(ops, operands) -> set[int]:
    """The results of GATHERs from an 8-bit constant (a weight-only int8 embedding's rows)."""
    return {op.Outputs(0) for op in ops if _op_name(op.Type()) == "GATHER"
            and operands[op.Inputs(0)].Source() != 0 and operands[op.Inputs(0)].Type() in _QUANT8}


def _precision(blob, op, operands, weight_rows: set[int] = frozenset()) -> str:
    """What ``op`` computes on: a conversion is classed by where it sits, any other
    operation by its tensors (8-bit if any is 8-bit: a quantized conv's int32 bias is part of it);
    looking up and dequantizing the rows of an 8-bit table is "weight", as a DEQUANTIZE of one is."""
    ins = [op.Inputs(j) for j in range(op.InputsLength())]
    outs = [op.Outputs(j) for j in range(op.OutputsLength())]
    name = _op_name(op.Type())
    if outs[0] in weight_rows or (name == "DEQUANTIZE" and ins[0] in weight_rows):
        return "weight"
    if name == "QUANTIZE":
        inputs = {blob.ModelInputs(i) for i in range(blob.ModelInputsLength())}
        return "edge" if ins[0] in inputs else "conversion"
    if name == "DEQUANTIZE":
        if operands[ins[0]].Source() != 0:  # a constant: an 8-bit weight of a float operation
            return "weight"
        outputs = {blob.ModelOutputs(i) for i in range(blob.ModelOutputsLength())}
        return "edge" if outs[0] in outputs else "conversion"
    types = {operands[k].Type() for k in ins + outs}
    if types & _QUANT8:
        return "8-bit"
    return "float" if types & _FLOAT else "other"


def _dim_order(argument) -> tuple[int, ...]:
    return tuple(argument.DimOrder(i) for i in range(argument.DimOrderLength()))


def _merged_dims(argument) -> tuple[int, ...]:
    return tuple(argument.MergedDims(i) for i in range(argument.MergedDimsLength()))
