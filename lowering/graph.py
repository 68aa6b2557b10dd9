"""The NNAPI model being emitted for one partition.

Builders call ``emit_operand`` / ``emit_operation`` and the value helpers here;
the serializer turns the finished graph into the blob. Every tensor value of
the FX graph is tracked with its *dim order*: NNAPI's physical dimension i
holds the logical (PyTorch) dimension ``dim_order[i]``. Spatial operations run
NHWC, so a 4-D activation produced by a convolution has dim order (0, 2, 3, 1);
TRANSPOSE is emitted only where a consumer needs a different order, and values
leaving the partition are brought back to the PyTorch order.
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from typing import Any, Sequence

import sympy
import torch

from .nnapi_codes import ELEMENT_BYTES, FeatureLevel, OperandCode, OperationCode, OPERATION_SINCE
from .shape_program import Dim, ShapeProgramBuilder, is_static

# Constants up to this size live inside the blob; larger ones go to ExecuTorch's
# named data store, so weights are stored once and can be shared.
INLINE_CONSTANT_LIMIT = 1024


class LoweringError(RuntimeError):
    """Lowering could not emit a node the partitioner accepted (a bug or a gap)."""


class ValueSource:
    """Must match ``enum ValueSource`` in nnapi_blob.fbs."""

    NONE = 0
    INLINE = 1
    NAMED_DATA = 2
    SHAPE_EXPRESSIONS = 3
    OMITTED = 4


@dataclasses.dataclass
class Operand:
    type: OperandCode
    dims: list[Dim]
    scale: float = 0.0
    zero_point: int = 0
    source: int = ValueSource.NONE
    data: bytes | None = None
    named_data_key: str | None = None
    value_exprs: list[Dim] | None = None
    debug_name: str = ""
    per_channel_dim: int | None = None
    per_channel_scales: list[float] | None = None


@dataclasses.dataclass
class Operation:
    type: OperationCode
    inputs: list[int]
    outputs: list[int]
    debug_name: str = ""


@dataclasses.dataclass(frozen=True)
class TensorValue:
    """An FX value materialized as an NNAPI operand with a physical dim order."""

    operand: int
    dim_order: tuple[int, ...]


def identity(rank: int) -> tuple[int, ...]:
    return tuple(range(rank))


NHWC = (0, 2, 3, 1)


def permute_shape(shape: Sequence[Dim], dim_order: Sequence[int]) -> list[Dim]:
    """Physical shape of a tensor with logical ``shape`` stored in ``dim_order``."""
    return [shape[d] for d in dim_order]


def same_memory_order(logical_shape: Sequence[Dim], src: Sequence[int], dst: Sequence[int]) -> bool:
    """Whether a tensor laid out in dim order ``src`` has the same bytes in order ``dst``:
    true when the two orders differ only in where dims of static size 1 sit."""
    def moving(order: Sequence[int]) -> list[int]:
        return [d for d in order if not (is_static(logical_shape[d]) and int(logical_shape[d]) == 1)]
    return moving(src) == moving(dst)


def transpose_perm(src: Sequence[int], dst: Sequence[int]) -> list[int]:
    """TRANSPOSE perm taking physical order ``src`` to ``dst``."""
    position = {logical: i for i, logical in enumerate(src)}
    return [position[logical] for logical in dst]


_TORCH_TO_OPERAND = {
    torch.float32: OperandCode.TENSOR_FLOAT32,
    torch.int32: OperandCode.TENSOR_INT32,
    torch.float16: OperandCode.TENSOR_FLOAT16,
    torch.bool: OperandCode.TENSOR_BOOL8,
}


class NnapiGraph:
    """Operands, operations and the FX-value bookkeeping of one NNAPI model."""

    def __init__(self, feature_level: FeatureLevel, shape_program: ShapeProgramBuilder) -> None:
        self.feature_level = feature_level
        self.shape_program = shape_program
        self.operands: list[Operand] = []
        self.operations: list[Operation] = []
        self.model_inputs: list[int] = []
        self.model_outputs: list[int] = []
        self.min_feature_level = FeatureLevel.ANDROID_8_1
        # FX node -> {dim_order: TensorValue}; the first entry is the value as produced.
        self._values: dict[Any, dict[tuple[int, ...], TensorValue]] = {}
        self._logical_shapes: dict[Any, list[Dim]] = {}
        # FX node -> constant tensor (parameters, buffers, values folded at lowering time).
        self.constants: dict[Any, torch.Tensor] = {}
        # name -> bytes for the named data store
        self.named_data: dict[str, bytes] = {}
        self._scalar_cache: dict[tuple, int] = {}

    # ----------------------------------------------------------------- operands
    def emit_operand(
        self,
        type: OperandCode,
        dims: Sequence[Dim] = (),
        *,
        scale: float = 0.0,
        zero_point: int = 0,
        debug_name: str = "",
    ) -> int:
        """Adds an operand without a value (input, output or temporary)."""
        self.operands.append(Operand(OperandCode(type), list(dims), scale, zero_point, debug_name=debug_name))
        return len(self.operands) - 1

    def emit_tensor(self, shape: Sequence[Dim], dtype: torch.dtype = torch.float32, debug_name: str = "") -> int:
        """Adds a tensor operand (no value) of the given physical shape."""
        if dtype not in _TORCH_TO_OPERAND:
            raise LoweringError(f"dtype {dtype} has no NNAPI tensor type")
        return self.emit_operand(_TORCH_TO_OPERAND[dtype], shape, debug_name=debug_name)

    def emit_constant_tensor(self, tensor: torch.Tensor, debug_name: str = "") -> int:
        """Adds a constant tensor operand holding ``tensor`` (contiguous copy)."""
        tensor = tensor.detach().contiguous()
        if tensor.dim() == 0:
            tensor = tensor.reshape(1)  # NNAPI has no rank-0 tensors
        if tensor.dtype == torch.int64:
            tensor = tensor.to(torch.int32)
        if tensor.dtype not in _TORCH_TO_OPERAND:
            raise LoweringError(f"constant of dtype {tensor.dtype} has no NNAPI tensor type")
        data = tensor.numpy().tobytes() if tensor.dtype != torch.bfloat16 else None
        op = Operand(_TORCH_TO_OPERAND[tensor.dtype], list(tensor.shape), debug_name=debug_name)
        if len(data) <= INLINE_CONSTANT_LIMIT:
            op.source, op.data = ValueSource.INLINE, data
        else:
            key = "nnapi_" + hashlib.sha256(data).hexdigest()[:40]
            self.named_data.setdefault(key, data)
            op.source, op.named_data_key = ValueSource.NAMED_DATA, key
        self.operands.append(op)
        return len(self.operands) - 1

    def _scalar(self, type: OperandCode, fmt: str, value) -> int:
        key = (type, value)
        if key not in self._scalar_cache:
            op = Operand(type, [], source=ValueSource.INLINE, data=struct.pack(fmt, value))
            self.operands.append(op)
            self._scalar_cache[key] = len(self.operands) - 1
        return self._scalar_cache[key]

    def emit_int32(self, value: Dim) -> int:
        """INT32 scalar operand; a symbolic value is computed at execute time."""
        if not is_static(value):
            op = Operand(OperandCode.INT32, [], source=ValueSource.SHAPE_EXPRESSIONS, value_exprs=[value])
            self.operands.append(op)
            return len(self.operands) - 1
        value = int(value)
        if not -(2**31) <= value < 2**31:
            raise LoweringError(f"value {value} does not fit NNAPI's INT32")
        return self._scalar(OperandCode.INT32, "<i", value)

    def emit_float32(self, value: float) -> int:
        return self._scalar(OperandCode.FLOAT32, "<f", float(value))

    def emit_bool(self, value: bool) -> int:
        return self._scalar(OperandCode.BOOL, "<B", 1 if value else 0)

    def emit_int32_vector(self, values: Sequence[Dim]) -> int:
        """1-D TENSOR_INT32 constant; symbolic entries are computed at execute time."""
        values = list(values)
        if all(is_static(v) for v in values):
            return self.emit_constant_tensor(torch.tensor([int(v) for v in values], dtype=torch.int32))
        op = Operand(OperandCode.TENSOR_INT32, [len(values)], source=ValueSource.SHAPE_EXPRESSIONS,
                     value_exprs=values)
        self.operands.append(op)
        return len(self.operands) - 1

    def emit_omitted(self, type: OperandCode, dims: Sequence[Dim] = ()) -> int:
        self.operands.append(Operand(type, list(dims), source=ValueSource.OMITTED))
        return len(self.operands) - 1

    # --------------------------------------------------------------- operations
    def emit_operation(self, code: OperationCode, inputs: Sequence[int], outputs: Sequence[int],
                       debug_name: str = "") -> None:
        """Appends an NNAPI operation and raises the model's minimum feature level."""
        code = OperationCode(code)
        since = OPERATION_SINCE[code]
        if since > self.feature_level:
            raise LoweringError(f"{code.name} needs {since.label}, target is {self.feature_level.label}")
        self.require_feature_level(since)
        self.operations.append(Operation(code, list(inputs), list(outputs), debug_name))

    def require_feature_level(self, level: FeatureLevel) -> None:
        """Records that the emitted model needs at least ``level``."""
        if level > self.feature_level:
            raise LoweringError(f"emitted form needs {FeatureLevel(level).label}, target is {self.feature_level.label}")
        self.min_feature_level = max(self.min_feature_level, FeatureLevel(level))

    # ------------------------------------------------------------------- values
    def logical_shape(self, node) -> list[Dim]:
        return self._logical_shapes[node]

    def has_value(self, node) -> bool:
        return node in self._values or node in self.constants

    def is_constant(self, node) -> bool:
        return node in self.constants

    def constant(self, node) -> torch.Tensor:
        return self.constants[node]

    def set_constant(self, node, tensor: torch.Tensor) -> None:
        self.constants[node] = tensor

    def set_value(self, node, operand: int, dim_order: Sequence[int], logical_shape: Sequence[Dim]) -> None:
        """Records that ``node``'s result is ``operand`` stored in ``dim_order``."""
        dim_order = tuple(dim_order)
        self._logical_shapes[node] = list(logical_shape)
        self._values.setdefault(node, {})[dim_order] = TensorValue(operand, dim_order)

    def produced_order(self, node) -> tuple[int, ...]:
        """The dim order in which ``node`` was produced (constants: identity)."""
        if node in self.constants:
            return identity(max(self.constants[node].dim(), 1))
        return next(iter(self._values[node]))

    def value(self, node, dim_order: Sequence[int] | None = None) -> TensorValue:
        """``node``'s value in ``dim_order`` (default: as produced).

        Emits a TRANSPOSE the first time another order is asked for; constants
        are permuted at lowering time instead.
        """
        if node in self.constants:
            tensor = self.constants[node]
            order = tuple(dim_order) if dim_order is not None else identity(max(tensor.dim(), 1))
            cached = self._values.get(node, {}).get(order)
            if cached is not None:
                return cached
            physical = tensor.permute(order) if tensor.dim() > 1 else tensor
            operand = self.emit_constant_tensor(physical, debug_name=str(getattr(node, "name", node)))
            self._logical_shapes[node] = list(tensor.shape)
            self._values.setdefault(node, {})[order] = TensorValue(operand, order)
            return self._values[node][order]
        if node not in self._values:
            raise LoweringError(f"no NNAPI value for {node} (was its producer emitted?)")
        values = self._values[node]
        if dim_order is None:
            return next(iter(values.values()))
        dim_order = tuple(dim_order)
        if dim_order in values:
            return values[dim_order]
        src = next(iter(values.values()))
        logical = self._logical_shapes[node]
        name = getattr(node, "name", node)
        shape = permute_shape(logical, dim_order)
        source = self.operands[src.operand]
        out = self.emit_operand(source.type, shape, scale=source.scale, zero_point=source.zero_point,
                                debug_name=f"{name}.transposed")
        if same_memory_order(logical, src.dim_order, dim_order):
            # Only size-1 dims move: the bytes are already in the wanted order.
            self.emit_operation(OperationCode.RESHAPE, [src.operand, self.emit_int32_vector(shape)], [out],
                                debug_name=f"{name} (layout)")
        else:
            perm = transpose_perm(src.dim_order, dim_order)
            self.emit_operation(OperationCode.TRANSPOSE, [src.operand, self.emit_int32_vector(perm)], [out],
                                debug_name=f"{name} (layout)")
        values[dim_order] = TensorValue(out, dim_order)
        return values[dim_order]

    def operand_of(self, node, dim_order: Sequence[int] | None = None) -> int:
        return self.value(node, dim_order).operand

    # ------------------------------------------------------------------ summary
    def count_operations(self, code: OperationCode | None = None) -> int:
        return sum(1 for op in self.operations if code is None or op.type == code)
