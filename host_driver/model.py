"""ANeuralNetworksModel: building, the finish-time graph checks and shape inference (docs/nnapi_facts.md §5.1)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch

from . import cmem
from .errors import OP_FAILED, DriverError, bad_data, bad_state, feature_level_name
from .operand_types import (
    ELEMENT_SIZE, MODEL, QUANTIZED, TENSOR_BOOL8, TENSOR_QUANT8_SYMM_PER_CHANNEL, TORCH_DTYPE, OperandType,
    decode_scalar, is_tensor, type_name, validate_operand_type,
)
from .operations import OPERATION_NAMES, OPERATIONS
from .operations.common import ADD, FINISH, RUN, Ctx, Deferred, OperandSource, Params

# Operand lifetimes.
TEMPORARY, MODEL_INPUT, MODEL_OUTPUT, CONSTANT, NO_VALUE, SUBGRAPH = range(6)
_LIFETIME_NAMES = ("a temporary", "a model input", "a model output", "a constant", "an omitted operand",
                   "a referenced model")
# Lifetimes whose value is known once the model is finished.
KNOWN_VALUE = (CONSTANT, SUBGRAPH)

# setOperandValue copies values up to this size; longer ones are only referenced (docs/nnapi_facts.md §5.1).
MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES = 128


class Operand:
    """One operand: its declared type, where its value comes from and per-channel quantization."""

    __slots__ = ("type", "lifetime", "data", "ref", "channel_quant")

    def __init__(self, t: OperandType) -> None:
        self.type = t
        self.lifetime = TEMPORARY
        self.data: Optional[bytes] = None          # a copied (small) value
        self.ref: Optional[tuple] = None           # (address, length) or (memory, offset, length)
        self.channel_quant: Optional[tuple[int, tuple[float, ...]]] = None


class Operation:
    __slots__ = ("code", "module", "ins", "outs", "index")

    def __init__(self, code: int, module: Any, ins: tuple[int, ...], outs: tuple[int, ...], index: int) -> None:
        self.code, self.module, self.ins, self.outs, self.index = code, module, ins, outs, index

    @property
    def name(self) -> str:
        return self.module.NAME


class _AddSource(OperandSource):
    """addOperation: only types (and declared ranks) are known."""

    stage = ADD

    def __init__(self, model: "Model") -> None:
        self.model = model

    def operand(self, idx: int) -> OperandType:
        return self.model.operands[idx].type

    def dims(self, idx: int) -> Optional[tuple[int, ...]]:
        return self.model.operands[idx].type.dims

    def channel_quant(self, idx: int):
        raise Deferred

    def omitted(self, idx: int) -> bool:
        raise Deferred

    def value(self, idx: int) -> Any:
        raise Deferred

    def is_constant(self, idx: int) -> bool:
        raise Deferred


class _FinishSource(_AddSource):
    """Model_finish: inferred shapes so far and the constants' values."""

    stage = FINISH

    def dims(self, idx: int) -> Optional[tuple[int, ...]]:
        return self.model.shapes[idx]

    def channel_quant(self, idx: int):
        return self.model.operands[idx].channel_quant

    def omitted(self, idx: int) -> bool:
        return self.model.operands[idx].lifetime == NO_VALUE

    def value(self, idx: int) -> Any:
        if self.model.operands[idx].lifetime not in KNOWN_VALUE:
            raise Deferred  # computed or fed at run time
        return self.model.values[idx]

    def is_constant(self, idx: int) -> bool:
        return self.model.operands[idx].lifetime in KNOWN_VALUE


def merge_dims(op: Operation, j: int, idx: int, declared: Optional[tuple[int, ...]],
               inferred: tuple[int, ...]) -> tuple[int, ...]:
    """Check an inferred output shape against the declared one (0 = unknown) and return it."""
    if declared is not None and len(declared) > 0:
        if len(declared) != len(inferred) or any(d and d != i for d, i in zip(declared, inferred)):
            shown = "[" + ", ".join(str(d) if d else "?" for d in declared) + "]"
            raise bad_data(f"{op.name} (operation #{op.index}): output {j} (operand {idx}) is declared as "
                           f"{shown} but the operation produces {list(inferred)}")
    return inferred


def validate_operation(op: Operation, level: int, src: OperandSource) -> Ctx:
    """Run the operation's validator; raises Deferred or DriverError."""
    c = Ctx(op.name, op.index, level, op.ins, op.outs, src)
    op.module.validate(c)
    if src.stage != ADD:
        missing = [j for j, d in enumerate(c.out_dims) if d is None]
        # IF / WHILE know their outputs' dims only once the referenced model has run.
        if missing and not (src.stage == RUN and getattr(op.module, "RUNS_REFERENCED_MODELS", False)):
            raise DriverError(OP_FAILED, f"host driver bug: {op.name} did not infer outputs {missing}")
        c.quant_params()
    return c


def constant_value(t: OperandType, raw: bytes | None, address: int | None, length: int,
                   in_place: bool = False) -> Any:
    """Decode a constant: a Python scalar or a tensor in the type's storage dtype; ``in_place``:
    a tensor reading the memory at ``address`` (which must outlive it) rather than a copy."""
    if not is_tensor(t.type):
        data = raw if raw is not None else cmem.read_bytes(address, length)
        return decode_scalar(t.type, data)
    dims = t.dims
    if t.type == TENSOR_BOOL8:
        u8 = _tensor_from(raw, address, length, torch.uint8, dims, in_place)
        return u8 != 0
    return _tensor_from(raw, address, length, TORCH_DTYPE[t.type], dims, in_place)


def _tensor_from(raw, address, length, dtype, dims, in_place: bool = False) -> torch.Tensor:
    if raw is not None:
        return torch.frombuffer(bytearray(raw), dtype=dtype).view(dims) if raw else torch.empty(dims, dtype=dtype)
    if in_place:
        return cmem.tensor_view(address, length, dtype, dims)
    return cmem.tensor_copy(address, length, dtype, dims)


class Model:
    """An NNAPI model being built, or finished (then read-only)."""

    def __init__(self, level: int) -> None:
        self.level = level
        self.operands: list[Operand] = []
        self.operations: list[Operation] = []
        self.inputs: tuple[int, ...] = ()
        self.outputs: tuple[int, ...] = ()
        self.relaxed = False
        self.finished = False
        self.invalid = False
        # Set by finish():
        self.order: list[int] = []
        self.shapes: list[Optional[tuple[int, ...]]] = []
        self.values: list[Any] = []
        self.params: list[Optional[Params]] = []

    # -- building ---------------------------------------------------------------------------------
    def _modifiable(self) -> None:
        if self.finished:
            raise bad_state("the model is finished and can no longer be modified")
        if self.invalid:
            raise bad_state("the model is invalid (an earlier Model_finish failed)")

    def _operand(self, index: int) -> Operand:
        if not 0 <= index < len(self.operands):
            raise bad_data(f"operand index {index} is out of range (the model has {len(self.operands)} operands)")
        return self.operands[index]

    def add_operand(self, t: OperandType) -> None:
        self._modifiable()
        validate_operand_type(t, self.level, f"operand {len(self.operands)}")
        self.operands.append(Operand(t))

    def set_operand_value(self, index: int, address: int, length: int) -> None:
        self._modifiable()
        op = self._operand(index)
        where = f"operand {index} ({op.type.describe()})"
        if op.lifetime in (MODEL_INPUT, MODEL_OUTPUT):
            raise bad_data(f"{where} is {_LIFETIME_NAMES[op.lifetime]}; it cannot get a value")
        if op.type.type == MODEL:
            raise bad_data(f"{where}: MODEL operands take their value from setOperandValueFromModel")
        if not address:
            if length:
                raise bad_data(f"{where}: buffer is NULL but length is {length}")
            # NULL with length 0 marks an omitted optional operand.
            op.lifetime, op.data, op.ref = NO_VALUE, None, None
            return
        self._check_value_size(op, where, length)
        op.lifetime = CONSTANT
        if length <= MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES:
            op.data, op.ref = cmem.read_bytes(address, length), None
        else:
            # The caller keeps the buffer alive and unchanged; it is read at Model_finish.
            op.data, op.ref = None, (address, length)

    def set_operand_value_from_model(self, index: int, referenced: "Model") -> None:
        """setOperandValueFromModel: a MODEL operand (the body of an IF or WHILE) refers to a finished
        model, which the caller keeps alive. A model cannot refer to itself, and since only finished
        models can be referred to, references cannot form a cycle."""
        self._modifiable()
        op = self._operand(index)
        where = f"operand {index} ({op.type.describe()})"
        if op.type.type != MODEL:
            raise bad_data(f"{where}: setOperandValueFromModel needs an operand of type MODEL")
        if op.lifetime in (MODEL_INPUT, MODEL_OUTPUT):
            raise bad_data(f"{where} is {_LIFETIME_NAMES[op.lifetime]}; it cannot get a value")
        if referenced is self:
            raise bad_data(f"{where}: a model cannot refer to itself")
        if not referenced.finished:
            raise bad_data(f"{where}: the referenced model must be finished first (Model_finish)")
        op.lifetime, op.data, op.ref = SUBGRAPH, None, referenced

    def set_operand_value_from_memory(self, index: int, memory: Any, offset: int, length: int) -> None:
        self._modifiable()
        op = self._operand(index)
        where = f"operand {index} ({op.type.describe()})"
        if op.lifetime in (MODEL_INPUT, MODEL_OUTPUT):
            raise bad_data(f"{where} is {_LIFETIME_NAMES[op.lifetime]}; it cannot get a value")
        self._check_value_size(op, where, length)
        memory.check_range(offset, length, where)
        size = ELEMENT_SIZE[op.type.type]
        if offset % size:
            raise bad_data(f"{where}: offset {offset} is not aligned to the element size {size}")
        op.lifetime, op.data, op.ref = CONSTANT, None, (memory, offset, length)

    @staticmethod
    def _check_value_size(op: Operand, where: str, length: int) -> None:
        if not op.type.fully_specified:
            raise bad_data(f"{where}: a constant operand must be fully specified")
        size = op.type.byte_size()
        if length != size:
            raise bad_data(f"{where}: value length is {length} bytes, the type needs exactly {size}")

    def set_channel_quant(self, index: int, channel_dim: int, scales: Sequence[float]) -> None:
        self._modifiable()
        op = self._operand(index)
        where = f"operand {index} ({op.type.describe()})"
        if op.type.type != TENSOR_QUANT8_SYMM_PER_CHANNEL:
            raise bad_data(f"{where}: per-channel quantization needs TENSOR_QUANT8_SYMM_PER_CHANNEL")
        dims = op.type.dims or ()
        if channel_dim >= len(dims):
            raise bad_data(f"{where}: channelDim {channel_dim} is not below the rank {len(dims)}")
        if dims[channel_dim] == 0:
            raise bad_data(f"{where}: dimension {channel_dim} (the channel dimension) must be known")
        if len(scales) != dims[channel_dim]:
            raise bad_data(f"{where}: scaleCount {len(scales)} must equal dimension {channel_dim} "
                           f"({dims[channel_dim]})")
        bad = [s for s in scales if not s > 0]
        if bad:
            raise bad_data(f"{where}: every per-channel scale must be > 0, got {bad[0]}")
        op.channel_quant = (channel_dim, tuple(scales))

    def add_operation(self, code: int, ins: Sequence[int], outs: Sequence[int]) -> None:
        self._modifiable()
        module = OPERATIONS.get(code)
        if module is None:
            if code in OPERATION_NAMES:
                raise DriverError(OP_FAILED, f"{OPERATION_NAMES[code]} ({code}) is a valid NNAPI operation "
                                             "but the host driver does not implement it")
            raise bad_data(f"unknown operation code {code}")
        index = len(self.operations)
        if module.SINCE > self.level:
            raise bad_data(f"{module.NAME} (operation #{index}) needs feature level "
                           f"{feature_level_name(module.SINCE)} (configured: {feature_level_name(self.level)})")
        if not outs:
            raise bad_data(f"{module.NAME} (operation #{index}): an operation needs at least one output")
        for kind, idxs in (("input", ins), ("output", outs)):
            for k, idx in enumerate(idxs):
                if not 0 <= idx < len(self.operands):
                    raise bad_data(f"{module.NAME} (operation #{index}): {kind} {k} refers to operand {idx}, "
                                   f"but the model has {len(self.operands)} operands")
        op = Operation(code, module, tuple(ins), tuple(outs), index)
        try:
            validate_operation(op, self.level, _AddSource(self))
        except Deferred:
            pass  # the rest is checked at Model_finish
        if not self.operation_supported(op):
            # Refused now rather than at compute: the driver has no integer kernel for it.
            types = sorted({type_name(self.operands[i].type.type) for i in (*op.ins, *op.outs)
                            if self.operands[i].type.type in QUANTIZED})
            raise DriverError(OP_FAILED, f"{module.NAME} (operation #{index}) on {', '.join(types)} is not "
                                         "implemented on the host driver")
        self.operations.append(op)

    def identify_inputs_and_outputs(self, ins: Sequence[int], outs: Sequence[int]) -> None:
        self._modifiable()
        previous = set(self.inputs) | set(self.outputs)
        seen: set[int] = set()
        for kind, idxs in (("input", ins), ("output", outs)):
            for k, idx in enumerate(idxs):
                life = self._operand(idx).lifetime
                if idx in previous:
                    life = TEMPORARY  # an earlier identify call is replaced as a whole
                if life != TEMPORARY or idx in seen:
                    what = "listed twice" if idx in seen else f"{_LIFETIME_NAMES[life]}"
                    raise bad_data(f"model {kind} {k} (operand {idx}) is {what}; model inputs and outputs "
                                   "must be distinct temporaries")
                seen.add(idx)
        for idx in previous:
            self.operands[idx].lifetime = TEMPORARY
        for idx in ins:
            self.operands[idx].lifetime = MODEL_INPUT
        for idx in outs:
            self.operands[idx].lifetime = MODEL_OUTPUT
        self.inputs, self.outputs = tuple(ins), tuple(outs)

    def relax(self, allow: bool) -> None:
        self._modifiable()
        # Computing in float32 is always allowed under relaxation: the flag is recorded only.
        self.relaxed = bool(allow)

    # -- finish -----------------------------------------------------------------------------------
    def finish(self) -> None:
        if self.finished:
            raise bad_state("Model_finish was already called")
        if self.invalid:
            raise bad_state("the model is invalid (an earlier Model_finish failed)")
        try:
            self._check_graph()
            self._load_constants()
            self._infer_shapes()
        except DriverError:
            self.invalid = True
            raise
        self.finished = True

    def _check_graph(self) -> None:
        if not self.inputs or not self.outputs:
            raise bad_data("the model needs at least one input and one output (identifyInputsAndOutputs)")
        producer: dict[int, int] = {}
        for op in self.operations:
            for j, idx in enumerate(op.outs):
                life = self.operands[idx].lifetime
                if life not in (TEMPORARY, MODEL_OUTPUT):
                    raise bad_data(f"{op.name} (operation #{op.index}): output {j} (operand {idx}) is "
                                   f"{_LIFETIME_NAMES[life]}")
                if idx in producer:
                    raise bad_data(f"operand {idx} is written by operation #{producer[idx]} and by "
                                   f"{op.name} (operation #{op.index})")
                producer[idx] = op.index
        for idx, o in enumerate(self.operands):
            if o.type.type == MODEL and o.lifetime != SUBGRAPH:
                raise bad_data(f"operand {idx} is of type MODEL but setOperandValueFromModel was not called "
                               "for it")
            if o.lifetime in (TEMPORARY, MODEL_OUTPUT) and idx not in producer:
                raise bad_data(f"operand {idx} ({o.type.describe()}) is {_LIFETIME_NAMES[o.lifetime]} that no "
                               "operation writes (every operand must be a model input, a constant or an "
                               "operation's output)")
            if o.type.type == TENSOR_QUANT8_SYMM_PER_CHANNEL and o.channel_quant is None:
                raise bad_data(f"operand {idx} is TENSOR_QUANT8_SYMM_PER_CHANNEL but "
                               "setOperandSymmPerChannelQuantParams was not called for it")
        # Topological order (Kahn); anything left over is on a cycle.
        waiting = [sum(1 for i in op.ins if i in producer) for op in self.operations]
        consumers: dict[int, list[int]] = {}
        for op in self.operations:
            for i in op.ins:
                if i in producer:
                    consumers.setdefault(i, []).append(op.index)
        ready = [op.index for op in self.operations if waiting[op.index] == 0]
        order: list[int] = []
        while ready:
            k = ready.pop(0)
            order.append(k)
            for o in self.operations[k].outs:
                for c in consumers.get(o, ()):
                    waiting[c] -= 1
                    if waiting[c] == 0:
                        ready.append(c)
        if len(order) != len(self.operations):
            stuck = sorted(set(range(len(self.operations))) - set(order))
            raise bad_data(f"the operations form a cycle (operations {stuck[:8]})")
        self.order = order

    def _load_constants(self) -> None:
        values: list[Any] = [None] * len(self.operands)
        for idx, o in enumerate(self.operands):
            if o.lifetime == SUBGRAPH:
                values[idx] = o.ref  # the referenced (finished) Model
                continue
            if o.lifetime != CONSTANT:
                continue
            if o.data is not None:
                values[idx] = constant_value(o.type, o.data, None, len(o.data))
            elif len(o.ref) == 2:
                address, length = o.ref
                values[idx] = constant_value(o.type, None, address, length)
            else:
                # A memory's pages are read where they are mapped, as a device's driver maps
                # a memory pool rather than copying it (the operand keeps the memory mapped).
                memory, offset, length = o.ref
                values[idx] = constant_value(o.type, None, memory.address + offset, length, in_place=True)
        self.values = values

    def _infer_shapes(self) -> None:
        self.shapes = [o.type.dims for o in self.operands]
        self.params = [None] * len(self.operations)
        src = _FinishSource(self)
        for k in self.order:
            op = self.operations[k]
            try:
                c = validate_operation(op, self.level, src)
            except Deferred:
                continue  # validated at execution with the actual shapes/values
            self.params[k] = c.p
            for j, idx in enumerate(op.outs):
                self.shapes[idx] = merge_dims(op, j, idx, self.operands[idx].type.dims, c.out_dims[j])

    # -- queries ----------------------------------------------------------------------------------
    def operation_supported(self, op: Operation) -> bool:
        """Whether the driver has a kernel for this operation's operand types."""
        if op.module.QUANT_COMPUTE:
            return True
        return not any(self.operands[i].type.type in QUANTIZED for i in (*op.ins, *op.outs))

