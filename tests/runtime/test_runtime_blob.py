"""The C++ NnapiBackend's handling of delegate blobs, through executorch.runtime.

Blobs are built by hand here with the flatc-generated Python code
(``executorch_nnapi.blob``), independently of the project's serializer, and wrapped
into a .pte as the processed bytes of a delegate call. Damaged or incompatible blobs
must be refused at load with a clear log line and an exception, never a crash.

The end-to-end tests at the bottom run a hand-made ADD model on the host NNAPI driver
(``executorch_nnapi.host_driver``); they are skipped while it is not installed.
"""

from __future__ import annotations

import functools
import os
import struct
import zlib
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import flatbuffers
import pytest
import torch
from torch.export import Dim, export

from executorch.exir._serialize._named_data_store import NamedDataStore
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.lowered_backend_module import LoweredBackendModule
import executorch.runtime as et_runtime

from executorch_nnapi.blob import (
    Argument as fb_argument,
    Blob as fb_blob,
    DimCheck as fb_dim_check,
    Operand as fb_operand,
    Operation as fb_operation,
    ShapeExpression as fb_expression,
    ShapeInstruction as fb_instruction,
    ShapeProgram as fb_program,
    Symbol as fb_symbol,
)
from executorch_nnapi.runtime import backend_library
from executorch_nnapi.host_driver import default_shim_path

# ---------------------------------------------------------------------------------------
# NNAPI / schema constants used by the hand-made blobs.

TENSOR_FLOAT32 = 3
TENSOR_INT32 = 4
INT32 = 1
OP_ADD = 0
FLOAT_SCALAR_TYPE = 6  # c10::ScalarType::Float

SRC_NONE, SRC_INLINE, SRC_NAMED, SRC_SHAPE, SRC_OMITTED, SRC_RUN_TIME = 0, 1, 2, 3, 4, 6
PUSH_CONST, PUSH_INPUT_DIM, PUSH_SYMBOL = 0, 1, 2
ADD, SUB, MUL, FLOOR_DIV, CEIL_DIV, MOD, MAX, MIN, NEG = range(3, 12)
CRC32_VTABLE_SLOT = 4 + 2 * 10  # Blob.crc32 is the 11th field.

REFUSAL = "NnapiBackend: cannot load the delegate blob"


# ---------------------------------------------------------------------------------------
# A tiny blob builder (deliberately independent of lowering/serialization).


@dataclass
class OperandSpec:
    type: int
    dims: Sequence[int] = ()
    dim_exprs: Sequence[int] = ()
    source: int = SRC_NONE
    data: Optional[bytes] = None
    value_exprs: Sequence[int] = ()
    named_data_key: Optional[str] = None
    debug_name: Optional[str] = None
    arange_step: int = 0


@dataclass
class ExprSpec:
    code: Sequence[tuple]  # (op, arg, value)
    text: str


@dataclass
class BlobSpec:
    operands: List[OperandSpec]
    operations: List[tuple]  # (type, inputs, outputs)
    model_inputs: Sequence[int]
    model_outputs: Sequence[int]
    inputs: List[tuple]  # (kind, operand, scalar_type[, ArgView])
    outputs: List[tuple]
    expressions: List[ExprSpec] = field(default_factory=list)
    symbols: List[tuple] = field(default_factory=list)  # (name, definition, min, max)
    checks: List[tuple] = field(default_factory=list)  # (arg, dim, expression)
    schema_version: int = 1
    min_feature_level: int = 27
    identifier: bytes = b"NNAB"


def _uint_vector(b: flatbuffers.Builder, values: Sequence[int]) -> int:
    b.StartVector(4, len(values), 4)
    for v in reversed(list(values)):
        b.PrependUint32(v)
    return b.EndVector()


def _int_vector(b: flatbuffers.Builder, values: Sequence[int]) -> int:
    b.StartVector(4, len(values), 4)
    for v in reversed(list(values)):
        b.PrependInt32(v)
    return b.EndVector()


def _table_vector(b: flatbuffers.Builder, offsets: Sequence[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for o in reversed(list(offsets)):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _operand(b: flatbuffers.Builder, op: OperandSpec) -> int:
    dims = _uint_vector(b, op.dims) if op.dims else None
    dim_exprs = _int_vector(b, op.dim_exprs) if op.dim_exprs else None
    value_exprs = _int_vector(b, op.value_exprs) if op.value_exprs else None
    data = None
    if op.data is not None:
        # force_align: 16 in the schema (the Python generator ignores it).
        b.StartVector(1, len(op.data), 16)
        for byte in reversed(op.data):
            b.PrependUint8(byte)
        data = b.EndVector()
    key = b.CreateString(op.named_data_key) if op.named_data_key else None
    name = b.CreateString(op.debug_name) if op.debug_name else None
    fb_operand.Start(b)
    fb_operand.AddType(b, op.type)
    if dims is not None:
        fb_operand.AddDims(b, dims)
    if dim_exprs is not None:
        fb_operand.AddDimExprs(b, dim_exprs)
    fb_operand.AddSource(b, op.source)
    if data is not None:
        fb_operand.AddData(b, data)
    if key is not None:
        fb_operand.AddNamedDataKey(b, key)
    if value_exprs is not None:
        fb_operand.AddValueExprs(b, value_exprs)
    if name is not None:
        fb_operand.AddDebugName(b, name)
    fb_operand.AddArangeStep(b, op.arange_step)  # 0, the default, is not written
    return fb_operand.End(b)


@dataclass
class ArgView:
    """An argument's optional binding fields: dim_order, merged_dims, tensor_dims, tensor_dim_exprs."""

    merged_dims: Sequence[int] = ()
    tensor_dims: Sequence[int] = ()
    tensor_dim_exprs: Sequence[int] = ()
    dim_order: Sequence[int] = ()


def _ubyte_vector(b: flatbuffers.Builder, values: Sequence[int]) -> int:
    b.StartVector(1, len(values), 1)
    for v in reversed(list(values)):
        b.PrependUint8(v)
    return b.EndVector()


def _argument(b: flatbuffers.Builder, arg: tuple) -> int:
    kind, operand, scalar_type, *rest = arg
    view = rest[0] if rest else ArgView()
    vectors = {
        "DimOrder": _ubyte_vector(b, view.dim_order) if view.dim_order else None,
        "MergedDims": _ubyte_vector(b, view.merged_dims) if view.merged_dims else None,
        "TensorDims": _uint_vector(b, view.tensor_dims) if view.tensor_dims else None,
        "TensorDimExprs": _int_vector(b, view.tensor_dim_exprs) if view.tensor_dim_exprs else None,
    }
    fb_argument.Start(b)
    fb_argument.AddKind(b, kind)
    fb_argument.AddOperand(b, operand)
    fb_argument.AddScalarType(b, scalar_type)
    for name, vector in vectors.items():
        if vector is not None:
            getattr(fb_argument, f"Add{name}")(b, vector)
    return fb_argument.End(b)


def _shape_program(b: flatbuffers.Builder, spec: BlobSpec) -> int:
    exprs = []
    for e in spec.expressions:
        text = b.CreateString(e.text)
        fb_expression.StartCodeVector(b, len(e.code))
        for op, arg, value in reversed(list(e.code)):
            fb_instruction.CreateShapeInstruction(b, op, arg, value)
        code = b.EndVector()
        fb_expression.Start(b)
        fb_expression.AddCode(b, code)
        fb_expression.AddText(b, text)
        exprs.append(fb_expression.End(b))
    symbols = []
    for name, definition, lo, hi in spec.symbols:
        n = b.CreateString(name)
        fb_symbol.Start(b)
        fb_symbol.AddName(b, n)
        fb_symbol.AddDefinition(b, definition)
        fb_symbol.AddMin(b, lo)
        fb_symbol.AddMax(b, hi)
        symbols.append(fb_symbol.End(b))
    checks = []
    for arg, dim, expression in spec.checks:
        fb_dim_check.Start(b)
        fb_dim_check.AddArg(b, arg)
        fb_dim_check.AddDim(b, dim)
        fb_dim_check.AddExpression(b, expression)
        checks.append(fb_dim_check.End(b))
    ev, sv, cv = _table_vector(b, exprs), _table_vector(b, symbols), _table_vector(b, checks)
    fb_program.Start(b)
    fb_program.AddExpressions(b, ev)
    fb_program.AddSymbols(b, sv)
    fb_program.AddChecks(b, cv)
    return fb_program.End(b)


def crc32_field_position(blob: bytes) -> int:
    """Absolute offset of Blob.crc32, found through the root table's vtable."""
    root = struct.unpack_from("<I", blob, 0)[0]
    vtable = root - struct.unpack_from("<i", blob, root)[0]
    field_offset = struct.unpack_from("<H", blob, vtable + CRC32_VTABLE_SLOT)[0]
    assert field_offset != 0, "crc32 field missing"
    return root + field_offset


def build_blob(spec: BlobSpec) -> bytes:
    """Serializes ``spec`` and stamps the CRC-32 (computed with its own field zeroed)."""
    b = flatbuffers.Builder(1024)
    operands = _table_vector(b, [_operand(b, o) for o in spec.operands])
    operations = []
    for op_type, ins, outs in spec.operations:
        iv, ov = _uint_vector(b, ins), _uint_vector(b, outs)
        fb_operation.Start(b)
        fb_operation.AddType(b, op_type)
        fb_operation.AddInputs(b, iv)
        fb_operation.AddOutputs(b, ov)
        operations.append(fb_operation.End(b))
    operations_v = _table_vector(b, operations)
    model_inputs = _uint_vector(b, spec.model_inputs)
    model_outputs = _uint_vector(b, spec.model_outputs)
    inputs = _table_vector(b, [_argument(b, a) for a in spec.inputs])
    outputs = _table_vector(b, [_argument(b, a) for a in spec.outputs])
    program = _shape_program(b, spec)
    fb_blob.Start(b)
    fb_blob.AddSchemaVersion(b, spec.schema_version)
    fb_blob.AddMinFeatureLevel(b, spec.min_feature_level)
    fb_blob.AddOperands(b, operands)
    fb_blob.AddOperations(b, operations_v)
    fb_blob.AddModelInputs(b, model_inputs)
    fb_blob.AddModelOutputs(b, model_outputs)
    fb_blob.AddInputs(b, inputs)
    fb_blob.AddOutputs(b, outputs)
    fb_blob.AddShapeProgram(b, program)
    fb_blob.AddCrc32(b, 0xFFFFFFFF)  # Non-default placeholder, so the field is written.
    b.Finish(fb_blob.End(b), file_identifier=spec.identifier)
    return restamp_crc(bytes(b.Output()))


def restamp_crc(blob: bytes) -> bytes:
    data = bytearray(blob)
    pos = crc32_field_position(blob)
    data[pos:pos + 4] = b"\0\0\0\0"
    data[pos:pos + 4] = struct.pack("<I", zlib.crc32(bytes(data)) & 0xFFFFFFFF)
    return bytes(data)


# The test model: out = x + c, x of shape [n, 4] (n dynamic in [1, 16]) and c of
# shape [1, 4]; ADD broadcasts.
CONST = torch.tensor([[1.0, 2.0, 3.0, 4.0]])


def add_blob_spec(*, dynamic: bool = True, n: int = 3, sym_min: int = 1, sym_max: int = 16) -> BlobSpec:
    dims = [n, 4]
    dim_exprs = [0, -1] if dynamic else []
    spec = BlobSpec(
        operands=[
            OperandSpec(TENSOR_FLOAT32, dims, dim_exprs, debug_name="x"),
            OperandSpec(TENSOR_FLOAT32, [1, 4], source=SRC_INLINE,
                        data=CONST.numpy().astype("<f4").tobytes(), debug_name="c"),
            OperandSpec(INT32, source=SRC_INLINE, data=struct.pack("<i", 0), debug_name="fuse"),
            OperandSpec(TENSOR_FLOAT32, dims, dim_exprs, debug_name="out"),
        ],
        operations=[(OP_ADD, [0, 1, 2], [3])],
        model_inputs=[0],
        model_outputs=[3],
        inputs=[(0, 0, FLOAT_SCALAR_TYPE)],
        outputs=[(0, 3, FLOAT_SCALAR_TYPE)],
    )
    if dynamic:
        spec.expressions = [ExprSpec([(PUSH_INPUT_DIM, 0, 0)], "s0")]
        spec.symbols = [("s0", 0, sym_min, sym_max)]
    return spec


# ---------------------------------------------------------------------------------------
# Wrapping a blob into a .pte.


class _AddConst(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("c", CONST.clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.c


class _CallDelegate(torch.nn.Module):
    def __init__(self, lowered: LoweredBackendModule) -> None:
        super().__init__()
        self.lowered = lowered

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lowered(x)


def make_pte_with_blob(
    blob: bytes,
    *,
    compile_specs: Sequence[CompileSpec] = (),
    dynamic: bool = True,
    extract_delegate_segments: bool = True,
    named_data: Sequence[tuple] = (),
) -> bytes:
    """A .pte whose only delegate call (x [n,4] -> [n,4]) carries ``blob`` as processed bytes.

    ``named_data`` holds (key, bytes) pairs put into the program's named data map.

    The LoweredBackendModule is built directly, without exir's BackendDetails registry
    (which looks backends up by class name and would clash with the project's own
    ``NnapiBackend`` preprocess class); the runtime only sees the id "NnapiBackend".
    """
    return _make_pte(blob, tuple((spec.key, spec.value) for spec in compile_specs), dynamic,
                     extract_delegate_segments, tuple(named_data))


def _dynamic_shapes(dynamic: bool):
    return {"x": {0: Dim("n", min=1, max=16)}} if dynamic else None


@functools.lru_cache(maxsize=None)
def _inner_program(dynamic: bool):
    # What the delegate stands for; only traced through, never run.
    return to_edge(export(_AddConst(), (torch.randn(3, 4),), dynamic_shapes=_dynamic_shapes(dynamic))).exported_program()


@functools.lru_cache(maxsize=64)
def _make_pte(blob: bytes, compile_specs: tuple, dynamic: bool, extract_delegate_segments: bool,
              named_data: tuple) -> bytes:
    x = torch.randn(3, 4)
    dynamic_shapes = _dynamic_shapes(dynamic)
    specs = [CompileSpec(key, value) for key, value in compile_specs]
    store = None
    if named_data:
        data_store = NamedDataStore()
        for key, data in named_data:
            data_store.add_named_data(key, data, alignment=16)
        store = data_store.get_named_data_store_output()
    lowered = LoweredBackendModule(_inner_program(dynamic), "NnapiBackend", blob, specs,
                                   named_data_store_output=store)
    program = to_edge(
        export(_CallDelegate(lowered), (x,), dynamic_shapes=dynamic_shapes),
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    ).to_executorch(ExecutorchBackendConfig(extract_delegate_segments=extract_delegate_segments))
    return program.buffer


# ---------------------------------------------------------------------------------------
# Fixtures.


def _shim_path() -> str:
    return default_shim_path()


@pytest.fixture
def nnapi_shim() -> str:
    """Points the backend at the host shim (loadable even with no driver installed)."""
    path = _shim_path()
    assert os.path.exists(path), f"host NNAPI shim not built: {path} (pip install . builds it)"
    backend_library.set_nnapi_library(path)
    backend_library.clear_last_error()
    return path


def load_forward(pte: bytes):
    """Loads method "forward"; the Method keeps its Program alive (it does not by itself)."""
    program = et_runtime.Runtime.get().load_program(pte)
    method = program.load_method("forward")
    method._keep_program_alive = program
    return method


def assert_refused(pte: bytes, capfd, *needles: str) -> str:
    """Loading must raise, log a line with every needle, and expose it as last_error()."""
    capfd.readouterr()
    with pytest.raises(RuntimeError) as info:
        load_forward(pte)
    err = capfd.readouterr().err
    assert "Failed to load method forward" in str(info.value)
    lines = [line for line in err.splitlines() if "NnapiBackend:" in line]
    assert lines, f"no NnapiBackend log line in stderr:\n{err}"
    for needle in needles:
        assert any(needle in line for line in lines), f"{needle!r} not logged:\n{err}"
        assert needle in backend_library.last_error()
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Loading and refusal.


def test_backend_is_registered(nnapi_shim: str) -> None:
    registry = et_runtime.Runtime.get().backend_registry
    assert "NnapiBackend" in registry.registered_backend_names
    assert registry.is_available("NnapiBackend")


@pytest.mark.parametrize("extract_segments", [True, False], ids=["segment", "inline"])
def test_valid_dynamic_blob_loads(nnapi_shim: str, capfd, extract_segments: bool) -> None:
    # Dynamic shapes compile at execute, so a valid blob loads without an NNAPI driver.
    pte = make_pte_with_blob(build_blob(add_blob_spec()), extract_delegate_segments=extract_segments)
    load_forward(pte)
    assert "NnapiBackend:" not in capfd.readouterr().err
    assert backend_library.last_error() == ""


@pytest.mark.parametrize("keep", [0, 4, 7, 8, 64, "half", "minus1"])
def test_truncated_blob_is_refused(nnapi_shim: str, capfd, keep) -> None:
    blob = build_blob(add_blob_spec())
    n = {"half": len(blob) // 2, "minus1": len(blob) - 1}.get(keep, keep)
    truncated = blob[:n]
    if n < 8:
        needle = "truncated" if n > 0 else ""
    else:
        needle = "corrupted"
    assert_refused(make_pte_with_blob(truncated), capfd, REFUSAL, needle)


@pytest.mark.parametrize("where", ["root_offset", "identifier", "quarter", "middle", "three_quarters",
                                   "crc_field", "last"])
def test_flipped_byte_is_refused(nnapi_shim: str, capfd, where: str) -> None:
    blob = build_blob(add_blob_spec())
    pos = {
        "root_offset": 0,
        "identifier": 5,
        "quarter": len(blob) // 4,
        "middle": len(blob) // 2,
        "three_quarters": 3 * len(blob) // 4,
        "crc_field": crc32_field_position(blob) + 1,
        "last": len(blob) - 1,
    }[where]
    needle = "file identifier is 'N^AB'" if where == "identifier" else "corrupted"
    assert_refused(_pte_with_flipped_blob_byte(blob, pos, 0x10), capfd, REFUSAL, needle)


def _pte_with_flipped_blob_byte(blob: bytes, pos: int, mask: int) -> bytes:
    # Building a .pte per damaged blob is slow; the processed bytes are stored verbatim
    # in the delegate segment, so patch them inside one .pte instead.
    pte = bytearray(make_pte_with_blob(blob))
    start = pte.find(blob)
    assert start >= 0 and pte.find(blob, start + 1) < 0
    pte[start + pos] ^= mask
    return bytes(pte)


def test_every_single_byte_flip_is_refused_without_crash(nnapi_shim: str) -> None:
    blob = build_blob(add_blob_spec())
    for pos in range(len(blob)):
        backend_library.clear_last_error()
        with pytest.raises(RuntimeError):
            load_forward(_pte_with_flipped_blob_byte(blob, pos, 0x01))
        message = backend_library.last_error()
        assert message.startswith(REFUSAL), (pos, message)


def test_newer_schema_version_is_refused(nnapi_shim: str, capfd) -> None:
    spec = add_blob_spec()
    spec.schema_version = 6
    lines = assert_refused(
        make_pte_with_blob(build_blob(spec)), capfd,
        "blob schema version 6 is newer than this runtime understands (5): update executorch-nnapi",
    )
    assert "corrupted" not in lines


def test_wrong_identifier_is_refused(nnapi_shim: str, capfd) -> None:
    spec = add_blob_spec()
    spec.identifier = b"XNNP"
    assert_refused(make_pte_with_blob(build_blob(spec)), capfd,
                   "not an NNAPI delegate blob: its file identifier is 'XNNP', expected 'NNAB'")


def test_crc_mismatch_message(nnapi_shim: str, capfd) -> None:
    blob = bytearray(build_blob(add_blob_spec()))
    pos = crc32_field_position(bytes(blob))
    blob[pos] ^= 0xFF
    assert_refused(make_pte_with_blob(bytes(blob)), capfd, "blob is corrupted (CRC mismatch")


def test_feature_level_too_high_is_refused(nnapi_shim: str, capfd) -> None:
    spec = add_blob_spec()
    spec.min_feature_level = 1000008
    assert_refused(make_pte_with_blob(build_blob(spec)), capfd,
                   "the model needs NNAPI feature level 1000008 (NNAPI feature level 8, Android 13+)",
                   "is at feature level")


def _broken(mutate) -> BlobSpec:
    spec = add_blob_spec()
    mutate(spec)
    return spec


SEMANTIC_CASES = {
    "operation_operand_out_of_range": (
        lambda s: setattr(s, "operations", [(OP_ADD, [0, 1, 99], [3])]),
        "refers to operand 99"),
    "model_input_out_of_range": (
        lambda s: setattr(s, "model_inputs", [7]), "model input 0 is operand 7"),
    "argument_not_a_model_input": (
        lambda s: setattr(s, "inputs", [(0, 1, FLOAT_SCALAR_TYPE)]), "which is not a model input"),
    "model_output_unbound": (
        lambda s: setattr(s, "outputs", [(1, 0, 0)]), "is not bound to any delegate argument"),
    "inline_size_mismatch": (
        lambda s: setattr(s.operands[1], "data", b"\0" * 12), "holds 12 bytes of data but its type needs 16"),
    "dim_expr_out_of_range": (
        lambda s: setattr(s.operands[0], "dim_exprs", [5, -1]), "uses shape expression 5"),
    "shape_values_on_float": (
        lambda s: (setattr(s.operands[1], "source", SRC_SHAPE), setattr(s.operands[1], "value_exprs", [0])),
        "must be INT32 or TENSOR_INT32"),
    "run_time_values_on_float": (
        lambda s: (setattr(s.operands[1], "source", SRC_RUN_TIME), setattr(s.operands[1], "value_exprs", [0])),
        "has RUN_TIME_EXPRESSIONS values but type 3 and rank 2 (must be a 1-D TENSOR_INT32)"),
    "named_data_missing": (
        lambda s: (setattr(s.operands[1], "source", SRC_NAMED), setattr(s.operands[1], "named_data_key", "w")),
        "needs the named data 'w'"),
    "stack_underflow": (
        lambda s: setattr(s, "expressions", [ExprSpec([(PUSH_INPUT_DIM, 0, 0), (ADD, 0, 0)], "bad")]),
        "pops an empty stack"),
    "expression_leaves_two_values": (
        lambda s: setattr(s, "expressions", [ExprSpec([(PUSH_CONST, 0, 1), (PUSH_CONST, 0, 2)], "two")]),
        "leaves 2 values on the stack"),
    "input_dim_out_of_rank": (
        lambda s: setattr(s, "expressions", [ExprSpec([(PUSH_INPUT_DIM, 0, 2)], "x.size(2)")]),
        "reads input 0 dimension 2"),
    "symbol_definition_out_of_range": (
        lambda s: setattr(s, "symbols", [("s0", 3, 1, 16)]), "is defined by expression 3"),
    "symbol_reads_itself": (
        lambda s: setattr(s, "expressions", [ExprSpec([(PUSH_SYMBOL, 0, 0)], "s0")]),
        "in the definition of symbol s0"),
    "unknown_opcode": (
        lambda s: setattr(s, "expressions", [ExprSpec([(PUSH_INPUT_DIM, 0, 0), (42, 0, 0)], "op42")]),
        "unknown opcode 42"),
    "check_out_of_range": (
        lambda s: setattr(s, "checks", [(3, 0, 0)]), "refers to input 3 dimension 0"),
    "unsupported_operand_type": (
        lambda s: setattr(s.operands[1], "type", 16), "NNAPI operand type 16"),
    # Binding a tensor to an operand of another rank (Argument.merged_dims).
    "merged_dims_not_one_per_operand_dim": (
        lambda s: setattr(s, "inputs", [(0, 0, FLOAT_SCALAR_TYPE, ArgView([2], [3, 4], [0, -1]))]),
        "input argument 0 has 1 merged_dims for an operand of rank 2"),
    "merged_dims_not_spanning_the_tensor": (
        lambda s: setattr(s, "inputs", [(0, 0, FLOAT_SCALAR_TYPE, ArgView([1, 1], [3, 4, 5], [0, -1, -1]))]),
        "input argument 0: merged_dims span 2 of its 3 tensor dims"),
    "merged_static_sizes_disagree": (
        lambda s: setattr(s, "outputs", [(0, 3, FLOAT_SCALAR_TYPE, ArgView([1, 2], [3, 2, 3], [0, -1, -1]))]),
        "output argument 0: merged_dims do not map its 3 tensor dims onto operand 3 (out)"),
    "merged_with_dim_order": (
        lambda s: setattr(s, "inputs", [(0, 0, FLOAT_SCALAR_TYPE, ArgView([1, 1], [3, 4], [0, -1], [1, 0]))]),
        "(and must have no dim_order)"),
    "tensor_dims_without_merged_dims": (
        lambda s: setattr(s, "inputs", [(0, 0, FLOAT_SCALAR_TYPE, ArgView((), [3, 4]))]),
        "input argument 0 has tensor_dims without merged_dims"),
    "tensor_dim_expression_out_of_range": (
        lambda s: setattr(s, "inputs", [(0, 0, FLOAT_SCALAR_TYPE, ArgView([1, 1], [3, 4], [7, -1]))]),
        "input argument 0 tensor dimension 0 is neither a static size > 0 nor one of the 1 shape expressions"),
    "tensor_dims_of_size_zero": (
        lambda s: setattr(s, "inputs", [(0, 0, FLOAT_SCALAR_TYPE, ArgView([1, 1], [3, 0], [0, -1]))]),
        "input argument 0 tensor dimension 1 is neither a static size > 0"),
    "tensor_dim_exprs_count": (
        lambda s: setattr(s, "inputs", [(0, 0, FLOAT_SCALAR_TYPE, ArgView([1, 1], [3, 4], [0]))]),
        "has merged_dims but 2 tensor_dims (must be 1 to 16) and 1 tensor_dim_exprs"),
}


@pytest.mark.parametrize("case", sorted(SEMANTIC_CASES))
def test_semantically_invalid_blob_is_refused(nnapi_shim: str, capfd, case: str) -> None:
    mutate, needle = SEMANTIC_CASES[case]
    assert_refused(make_pte_with_blob(build_blob(_broken(mutate))), capfd, REFUSAL, needle)


def named_const_spec(key: str = "c", dynamic: bool = True) -> BlobSpec:
    spec = add_blob_spec(dynamic=dynamic)
    spec.operands[1] = OperandSpec(TENSOR_FLOAT32, [1, 4], source=SRC_NAMED, named_data_key=key,
                                   debug_name="c")
    return spec


CONST_BYTES = CONST.numpy().astype("<f4").tobytes()


def test_named_data_blob_loads(nnapi_shim: str) -> None:
    load_forward(make_pte_with_blob(build_blob(named_const_spec()), named_data=[("c", CONST_BYTES)]))


def test_named_data_of_wrong_size_is_refused(nnapi_shim: str, capfd) -> None:
    pte = make_pte_with_blob(build_blob(named_const_spec()), named_data=[("c", CONST_BYTES[:8])])
    assert_refused(pte, capfd, REFUSAL, "named data 'c' has 8 bytes but the operand's type needs 16")


def test_named_data_key_not_found_is_refused(nnapi_shim: str, capfd) -> None:
    pte = make_pte_with_blob(build_blob(named_const_spec("weights")), named_data=[("c", CONST_BYTES)])
    assert_refused(pte, capfd, REFUSAL, "needs the named data 'weights'")


def test_bad_compile_spec_is_refused(nnapi_shim: str, capfd) -> None:
    pte = make_pte_with_blob(build_blob(add_blob_spec()),
                             compile_specs=[CompileSpec("max_cached_shapes", b"\x01\x00")])
    assert_refused(pte, capfd, "compile spec 'max_cached_shapes' must be a 4-byte little-endian int32")


def test_unknown_compile_spec_is_ignored(nnapi_shim: str) -> None:
    pte = make_pte_with_blob(build_blob(add_blob_spec()),
                             compile_specs=[CompileSpec("some_future_hint", b"xyz")])
    load_forward(pte)


def test_missing_library_makes_backend_unavailable(capfd) -> None:
    backend_library.set_nnapi_library("/nonexistent/libneuralnetworks.so")
    try:
        capfd.readouterr()
        assert not et_runtime.Runtime.get().backend_registry.is_available("NnapiBackend")
        assert "cannot load the NNAPI library '/nonexistent/libneuralnetworks.so'" in capfd.readouterr().err
    finally:
        backend_library.set_nnapi_library(_shim_path())


# ---------------------------------------------------------------------------------------
# End to end on the host NNAPI driver (the shape program, model build, cache, resize).


@pytest.fixture(scope="module")
def host_driver() -> str:
    from executorch_nnapi.host_driver import install

    path = install(feature_level=30)
    backend_library.set_nnapi_library(path)
    return path


@pytest.fixture
def driver(host_driver: str) -> str:
    backend_library.set_nnapi_library(host_driver)
    backend_library.clear_last_error()
    return host_driver


def test_static_add_runs(driver: str) -> None:
    method = load_forward(make_pte_with_blob(build_blob(add_blob_spec(dynamic=False)), dynamic=False))
    x = torch.randn(3, 4)
    (out,) = method.execute([x])
    torch.testing.assert_close(out, x + CONST)


def test_add_with_named_data_runs(driver: str) -> None:
    method = load_forward(make_pte_with_blob(build_blob(named_const_spec()), named_data=[("c", CONST_BYTES)]))
    for n in [2, 7]:
        x = torch.randn(n, 4)
        torch.testing.assert_close(method.execute([x])[0], x + CONST)


def test_dynamic_add_runs_for_several_sizes(driver: str) -> None:
    # Two cache slots, four sizes, revisited: exercises build, hit and eviction.
    pte = make_pte_with_blob(build_blob(add_blob_spec()),
                             compile_specs=[CompileSpec("max_cached_shapes", struct.pack("<i", 2))])
    method = load_forward(pte)
    for n in [3, 5, 16, 3, 1, 5, 5]:
        x = torch.randn(n, 4)
        (out,) = method.execute([x])
        assert out.shape == (n, 4)
        torch.testing.assert_close(out, x + CONST)


def test_symbol_out_of_range_is_reported(driver: str, capfd) -> None:
    # ExecuTorch's own bound is [1, 16]; the blob claims the model was exported for [2, 16].
    method = load_forward(make_pte_with_blob(build_blob(add_blob_spec(sym_min=2))))
    capfd.readouterr()
    with pytest.raises(RuntimeError):
        method.execute([torch.randn(1, 4)])
    expected = ("input 0 dimension 0 is 1, outside the range [2, 16] the model was exported with "
                "(symbol s0)")
    assert expected in capfd.readouterr().err
    assert expected in backend_library.last_error()


def test_a_run_time_arange_longer_than_any_input_is_refused(driver: str, capfd) -> None:
    """Run-time values (KV cache positions) 2^21 x n long: more than 2^24 are refused, not allocated."""
    spec = add_blob_spec()
    spec.expressions.append(ExprSpec([(PUSH_INPUT_DIM, 0, 0), (PUSH_CONST, 0, 1 << 21), (MUL, 0, 0)], "s0 * 2**21"))
    spec.operands.append(OperandSpec(TENSOR_INT32, [3 << 21], [1], SRC_RUN_TIME, value_exprs=[0], arange_step=1))
    method, x = load_forward(make_pte_with_blob(build_blob(spec))), torch.randn(8, 4)
    torch.testing.assert_close(method.execute([x])[0], x + CONST)  # 2^24 values: allowed
    capfd.readouterr()
    with pytest.raises(RuntimeError):
        method.execute([torch.randn(9, 4)])
    assert "has 18874368 run-time values at this execution, more than the 16777216" in capfd.readouterr().err


def test_dim_check_failure_is_reported(driver: str, capfd) -> None:
    spec = add_blob_spec()
    # Expression 1 = 2*(s0//2); dimension 0 must equal it, i.e. be even.
    spec.expressions.append(ExprSpec([(PUSH_SYMBOL, 0, 0), (PUSH_CONST, 0, 2), (FLOOR_DIV, 0, 0),
                                      (PUSH_CONST, 0, 2), (MUL, 0, 0)], "2*(s0//2)"))
    spec.checks = [(0, 0, 1)]
    method = load_forward(make_pte_with_blob(build_blob(spec)))
    x = torch.randn(4, 4)
    torch.testing.assert_close(method.execute([x])[0], x + CONST)
    capfd.readouterr()
    with pytest.raises(RuntimeError):
        method.execute([torch.randn(5, 4)])
    expected = "input 0 dimension 0 is 5 but the exported program requires it to equal 2*(s0//2) = 4"
    assert expected in capfd.readouterr().err


def merged_add_spec(dynamic: bool = True) -> BlobSpec:
    """The ADD model with x [n, 4] and its result bound as [n, 4, 1] operands
    (merged_dims [1, 1, 0]: an added unit dim), as a 5-D tensor binds as a 4-D one."""
    spec = add_blob_spec(dynamic=dynamic)
    exprs = [0, -1, -1] if dynamic else []
    spec.operands[0] = OperandSpec(TENSOR_FLOAT32, [3, 4, 1], exprs, debug_name="x")
    spec.operands[1] = OperandSpec(TENSOR_FLOAT32, [1, 4, 1], source=SRC_INLINE, data=CONST_BYTES, debug_name="c")
    spec.operands[3] = OperandSpec(TENSOR_FLOAT32, [3, 4, 1], exprs, debug_name="out")
    view = ArgView([1, 1, 0], [3, 4], [0, -1] if dynamic else [])
    spec.inputs, spec.outputs = [(0, 0, FLOAT_SCALAR_TYPE, view)], [(0, 3, FLOAT_SCALAR_TYPE, view)]
    spec.schema_version = 2
    return spec


@pytest.mark.parametrize("dynamic", [True, False], ids=["dynamic", "static"])
def test_tensor_bound_as_operand_of_another_rank_runs(driver: str, dynamic: bool) -> None:
    method = load_forward(make_pte_with_blob(build_blob(merged_add_spec(dynamic)), dynamic=dynamic))
    for n in ([3, 1, 7] if dynamic else [3]):
        x = torch.randn(n, 4)
        (out,) = method.execute([x])
        assert out.shape == (n, 4)  # Resized to the tensor's dims, not the operand's [n, 4, 1].
        torch.testing.assert_close(out, x + CONST)


# Each expression evaluates to 4 (= x.size(1)) only with Python's integer semantics.
PYTHON_ARITHMETIC = {
    "-(-7 // 2)": [(PUSH_CONST, 0, -7), (PUSH_CONST, 0, 2), (FLOOR_DIV, 0, 0), (NEG, 0, 0)],
    "-1 % 5": [(PUSH_CONST, 0, -1), (PUSH_CONST, 0, 5), (MOD, 0, 0)],
    "-(7 % -3) + 2": [(PUSH_CONST, 0, 7), (PUSH_CONST, 0, -3), (MOD, 0, 0), (NEG, 0, 0),
                      (PUSH_CONST, 0, 2), (ADD, 0, 0)],
    "ceil(7 / 2)": [(PUSH_CONST, 0, 7), (PUSH_CONST, 0, 2), (CEIL_DIV, 0, 0)],
    "ceil(-9 / -2) - 1": [(PUSH_CONST, 0, -9), (PUSH_CONST, 0, -2), (CEIL_DIV, 0, 0),
                          (PUSH_CONST, 0, 1), (SUB, 0, 0)],
    "max(min(9, 4), 1)": [(PUSH_CONST, 0, 9), (PUSH_CONST, 0, 4), (MIN, 0, 0), (PUSH_CONST, 0, 1),
                          (MAX, 0, 0)],
    "3 * 2 - 2": [(PUSH_CONST, 0, 3), (PUSH_CONST, 0, 2), (MUL, 0, 0), (PUSH_CONST, 0, 2), (SUB, 0, 0)],
}


def test_shape_arithmetic_follows_python(driver: str) -> None:
    spec = add_blob_spec()
    for text, code in PYTHON_ARITHMETIC.items():
        spec.checks.append((0, 1, len(spec.expressions)))
        spec.expressions.append(ExprSpec(code, text))
    method = load_forward(make_pte_with_blob(build_blob(spec)))
    x = torch.randn(3, 4)
    torch.testing.assert_close(method.execute([x])[0], x + CONST)


@pytest.mark.parametrize("code, text, needle", [
    ([(PUSH_INPUT_DIM, 0, 0), (PUSH_CONST, 0, 0), (FLOOR_DIV, 0, 0)], "s0 // 0", "s0 // 0 divides by zero"),
    ([(PUSH_INPUT_DIM, 0, 0), (PUSH_CONST, 0, 0), (MOD, 0, 0)], "s0 % 0", "s0 % 0 divides by zero"),
    ([(PUSH_CONST, 0, 2**63 - 1), (PUSH_INPUT_DIM, 0, 0), (ADD, 0, 0)], "big + s0", "big + s0 overflows int64"),
])
def test_shape_evaluation_errors_are_reported(nnapi_shim: str, capfd, code, text: str, needle: str) -> None:
    # Evaluated at execute, before any NNAPI call: no driver needed.
    spec = add_blob_spec()
    spec.checks.append((0, 1, len(spec.expressions)))
    spec.expressions.append(ExprSpec(code, text))
    method = load_forward(make_pte_with_blob(build_blob(spec)))
    capfd.readouterr()
    with pytest.raises(RuntimeError):
        method.execute([torch.randn(3, 4)])
    assert needle in capfd.readouterr().err
    assert needle in backend_library.last_error()
